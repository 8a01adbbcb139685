import Foundation
import Testing
import NumpyFormat
import TestSupport
import Kernels
@testable import Inference

/// One case of `Fixtures/ops/cases.json` (Tools/make_op_fixtures.py): a one-node ONNX model in
/// `Fixtures/ops/<name>/model.onnx`, its inputs and onnxruntime's outputs as .npy.
struct OperatorCase: Decodable, Sendable, CustomTestStringConvertible {
    struct Tensor: Decodable, Sendable {
        var file: String
        var name: String
        var shape: [Int]
    }

    var name: String
    var op: String
    var what: String
    var inputs: [Tensor]
    var outputs: [Tensor]
    /// A float16 model of a float operator (`Tools/op_cases/float16.py`), which the engine runs on
    /// float32 copies; nil for the others.
    var float16Widened: Bool?

    enum CodingKeys: String, CodingKey {
        case name, op, what, inputs, outputs
        case float16Widened = "float16_widened"
    }

    var testDescription: String { "\(name) (\(op): \(what))" }

    static let all: [OperatorCase] = {
        struct Index: Decodable { var cases: [OperatorCase] }
        guard let data = try? Data(contentsOf: Fixtures.url("ops/cases.json")),
              let index = try? JSONDecoder().decode(Index.self, from: data)
        else { return [] }
        return index.cases
    }()
}

@Suite("One-node op fixtures match onnxruntime")
struct OperatorFixtureTests {
    @Test("the fixture index is present and covers every supported op (default and com.microsoft domains)")
    func coverage() {
        #expect(OperatorCase.all.count >= 100)
        let covered = Set(OperatorCase.all.map(\.op))
        let supported = Set(InferenceModel.supportedOpTypes).subtracting(["Constant"]).union(InferenceModel.supportedMicrosoftOpTypes)
        #expect(covered == supported, "ops without a fixture: \(supported.subtracting(covered).sorted())")
    }

    /// Both paths: the fast path runs a node with its SIMD kernel where it recognises one (the
    /// convolutions with every stride, pad and `auto_pad` variant of the fixtures, so the kernels'
    /// pad arithmetic is checked against ONNX's window geometry and onnxruntime) and with the
    /// reference kernel elsewhere.
    @Test("each path within relative 1e-5 of onnxruntime", arguments: OperatorCase.all, ExecutionPath.allCases)
    func matchesOnnxRuntime(_ testCase: OperatorCase, path: ExecutionPath) throws {
        let directory = "ops/\(testCase.name)"
        var inputs: [String: Inference.Tensor] = [:], strings: [String: StringTensor] = [:]
        for input in testCase.inputs {
            if let value = try Fixtures.strings("\(directory)/\(input.file)") {
                strings[input.name] = value
            } else {
                inputs[input.name] = try Fixtures.tensor("\(directory)/\(input.file)")
            }
        }
        let model = try InferenceModel(contentsOfFile: Fixtures.url("\(directory)/model.onnx").path, planTimeStrings: strings)
        let session = try InferenceSession(model: model, path: path)
        let outputs = try session.run(inputs)
        for output in testCase.outputs {
            if let expected = try Fixtures.strings("\(directory)/\(output.file)") {
                #expect(model.stringOutputs[output.name] == expected, "\(testCase.name) \(output.name)")
                continue
            }
            let expected = try Fixtures.tensor("\(directory)/\(output.file)")
            let actual = try #require(outputs[output.name])
            #expect(actual.shape == expected.shape, "\(output.name) shape")
            #expect(actual.type == expected.type, "\(output.name) type")
            if var actualValues = actual.floats, var expectedValues = expected.floats {
                // NaN where onnxruntime has NaN (a loss mean over no weight), and only there; the rest compared.
                let expectedNaN = expectedValues.map(\.isNaN)
                if expectedNaN.contains(true), actualValues.count == expectedValues.count {
                    #expect(actualValues.map(\.isNaN) == expectedNaN, "\(testCase.name) \(output.name) (\(path)): NaN elsewhere than onnxruntime's")
                    actualValues = zip(actualValues, expectedNaN).filter { !$0.1 }.map(\.0)
                    expectedValues = expectedValues.filter { !$0.isNaN }
                }
                let difference = Difference(actualValues, expectedValues)
                #expect(difference.relative <= 1e-5, "\(testCase.name) \(output.name) (\(path)): \(difference)")
                print("op fixture \(testCase.name) \(output.name) (\(path)): relative \(difference.relative)")
            } else if actual.type == .double, expected.type == .double, actual.bytes != expected.bytes,
                      actual.elementCount == expected.elementCount {
                // Double results summed in another order: NaN at onnxruntime's places, the rest within relative 1e-12.
                let actualValues = actual.doubles, expectedValues = expected.doubles
                #expect(actualValues.map(\.isNaN) == expectedValues.map(\.isNaN), "\(testCase.name) \(output.name) (\(path)): NaN elsewhere")
                let pairs = zip(actualValues, expectedValues).filter { !$0.1.isNaN }
                let scale = pairs.map { abs($0.1) }.max() ?? 0, worst = pairs.map { abs($0.0 - $0.1) }.max() ?? 0
                #expect(worst <= 1e-12 * max(scale, 1e-300), "\(testCase.name) \(output.name) (\(path)): max|Δ| \(worst), max|ref| \(scale)")
                print("op fixture \(testCase.name) \(output.name) (\(path)): double, max|Δ| \(worst) of max|ref| \(scale)")
            } else if testCase.float16Widened == true, actual.type == .float16, expected.type == .float16,
                      actual.elementCount == expected.elementCount {
                // Both are float32 results rounded once to float16: the engine's (its float32 kernel
                // between two Casts) and onnxruntime's (equal to its float32 twin's rounded once:
                // `float16_steps_from_rounded_float32` is 0 for every case). The two float32 results
                // differ by what the float32 fixtures allow (relative 1e-5 of the largest value:
                // another summation order, another exp), and rounding each once to float16 adds at
                // most one float16 step at the value. Where the value is large that is 1 step; near 0,
                // where float16's steps are smaller than float32's absolute error of a sum with
                // cancellation, the float32 term decides (a 3x3 Conv output of 8.5e-5 is 4 steps,
                // 2.4e-7, apart on the fast path).
                let actualValues = actual.doubles, expectedValues = expected.doubles
                let scale = expectedValues.map(abs).max() ?? 0
                func step(_ value: Double) -> Double {  // float16's spacing at |value| (subnormal below 2^-14)
                    value == 0 ? 0x1p-24 : 0x1p-10 * pow(2, Double(max(Int(floor(log2(abs(value)))), -14)))
                }
                let excess = zip(actualValues, expectedValues).map { abs($0 - $1) - (step($1) + 1e-5 * scale) }
                #expect(excess.allSatisfy { $0 <= 0 }, "\(testCase.name) \(output.name) (\(path)): an element beyond 1 float16 step + 1e-5 relative, by \(excess.max() ?? 0)")
                let steps = zip(halves(actual), halves(expected)).map(float16Steps)
                print("op fixture \(testCase.name) \(output.name) (\(path)): float16, \(steps.filter { $0 == 1 }.count) of \(steps.count) one step apart, \(steps.filter { $0 > 1 }.count) more (up to \(steps.max() ?? 0))")
            } else {
                #expect(actual.bytes == expected.bytes, "\(testCase.name) \(output.name) (\(path)): elements differ")
            }
        }
    }
}

extension OperatorFixtureTests {
    /// The `*_bits` cases (`Tools/op_cases/onnxruntime_bits.py`): ops whose arithmetic is
    /// onnxruntime's own (MLAS's erf, its HardSwish's order of roundings, MLAS's global mean's
    /// order of sums, MLAS's logistic from −10 on), so each path must
    /// give its bytes, not values within 1e-5: a DynamicQuantizeLinear reading them turns one ulp
    /// into a quantum.
    ///
    /// The fixtures are onnxruntime's outputs on a CPU with FMA, where its Erf and Sigmoid run
    /// MLAS's FMA kernels. A build without FMA (the portable one) computes those two as MLAS's
    /// kernels without FMA do (each step rounded twice), which is not the fixture's arithmetic:
    /// there both paths must give the same bytes as each other (the replicas are checked step by
    /// step in `GateAndResizeTests` and `TransformerKernelTests`), and the 1e-5 comparison above
    /// still holds.
    @Test("onnxruntime's bits, exactly, on each path",
          arguments: OperatorCase.all.filter { $0.name.hasSuffix("_bits") }, ExecutionPath.allCases)
    func equalsOnnxRuntimeBits(_ testCase: OperatorCase, path: ExecutionPath) throws {
        let directory = "ops/\(testCase.name)"
        let input = try Fixtures.tensor("\(directory)/\(testCase.inputs[0].file)")
        let expected = try Fixtures.tensor("\(directory)/\(testCase.outputs[0].file)")
        let model = try InferenceModel(contentsOfFile: Fixtures.url("\(directory)/model.onnx").path)
        func run(_ path: ExecutionPath) throws -> [Float] {
            let outputs = try InferenceSession(model: model, path: path).run([testCase.inputs[0].name: input])
            return try #require(outputs[testCase.outputs[0].name]?.floats)
        }
        let got = try run(path), x = try #require(input.floats)
        let fusedOnnxruntimeKernel = ["Erf", "Sigmoid"].contains(testCase.op) && !CompiledFeatures.names.contains("FMA")
        let want = fusedOnnxruntimeKernel ? try run(path == .fast ? .reference : .fast) : try #require(expected.floats)
        let against = fusedOnnxruntimeKernel ? "the other path's (a build without FMA)" : "onnxruntime's bits"
        guard got.count == want.count else { Issue.record("\(testCase.name): \(got.count) elements, not \(want.count)"); return }
        let differing = want.indices.filter { got[$0].bitPattern != want[$0].bitPattern && !(got[$0].isNaN && want[$0].isNaN) }
        if let first = differing.first {
            Issue.record("\(testCase.name) (\(path)): \(differing.count) of \(want.count) differ from \(against), first at x = \(x[first]): \(got[first]) against \(want[first])")
        }
        print("op fixture \(testCase.name) (\(path)): \(differing.count) of \(want.count) elements differ from \(against)")
    }
}

extension Fixtures {
    /// A fixture `.npy` file of strings (numpy's `<U` dtype) as a string tensor; nil for a file of numbers.
    static func strings(_ relativePath: String) throws -> StringTensor? {
        let bytes = try [UInt8](Data(contentsOf: url(relativePath)))
        guard NumpyStringArray.holdsStrings(bytes) else { return nil }
        let array = try NumpyStringArray(bytes: bytes)
        return StringTensor(shape: array.shape, values: array.values)
    }

    /// A fixture `.npy` file as an inference tensor of the same element type.
    static func tensor(_ relativePath: String) throws -> Inference.Tensor {
        let array = try NumpyArray(contentsOfFile: url(relativePath).path)
        let types: [String: ElementType] = [
            "<f4": .float32, "<f2": .float16, "<f8": .double, "|i1": .int8, "<i2": .int16, "<i4": .int32, "<i8": .int64,
            "|u1": .uint8, "<u2": .uint16, "<u4": .uint32, "<u8": .uint64, "|b1": .bool,
        ]
        let type = try #require(types[array.dataType.rawValue], "no element type for .npy type \(array.dataType.rawValue)")
        return Inference.Tensor(type: type, shape: array.shape, bytes: array.data)
    }
}
