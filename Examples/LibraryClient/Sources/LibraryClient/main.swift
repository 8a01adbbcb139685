// Runs an ONNX model on both paths of the engine and compares them, through the library's core
// calls only. Usage: LibraryClient MODEL.onnx [NAME=D0,D1,... ...] (sizes for symbolic dims).
// Prints each input and output, then each output's comparison; exits 1 when the paths differ.

import Foundation
import ONNXInference

let arguments = Array(CommandLine.arguments.dropFirst())
guard let modelPath = arguments.first else {
    print("usage: LibraryClient MODEL.onnx [NAME=D0,D1,...]")
    exit(2)
}
var shapes: [String: [Int]] = [:]
for argument in arguments.dropFirst() {
    let parts = argument.split(separator: "=", maxSplits: 1)
    shapes[String(parts[0])] = parts.count == 2 ? parts[1].split(separator: ",").compactMap { Int($0) } : []
}

let session = try InferenceSession(modelPath: modelPath)                              // fast path
let oracle = try InferenceSession(modelPath: modelPath, options: .init(path: .reference))
for input in session.inputs { print("input  \(input)") }
for output in session.outputs { print("output \(output)") }

// Seeded values in [-1, 1) for every float input.
struct SeededValues {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(state >> 40) / Float(1 << 23) - 1
    }
}
var values = SeededValues()
var feeds: [String: Tensor] = [:]
for input in session.inputs {
    let shape = shapes[input.name] ?? input.shape.map { $0 ?? 1 }
    guard input.elementType == .float32 else {
        print("input '\(input.name)' is \(input.elementType); this example feeds float32 inputs only")
        exit(2)
    }
    feeds[input.name] = Tensor(shape: shape, scalars: (0..<shape.reduce(1, *)).map { _ in values.next() })
}

let out = try session.run(inputs: feeds)                                                // [String: Tensor]
let expected = try oracle.run(inputs: feeds)
var differ = false
for output in session.outputs {
    let y: [Float] = try out[output.name]!.scalars(as: Float.self)
    let report = TensorComparison(actual: out[output.name]!, expected: expected[output.name]!, rtol: 1e-4, atol: 1e-5)
    print("\(output.name) \(out[output.name]!.shape) (\(y.count) values): \(report)")
    differ = differ || !report.isClose
}
exit(differ ? 1 : 0)
