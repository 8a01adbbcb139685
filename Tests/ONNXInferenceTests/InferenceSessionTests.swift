import Foundation
import ONNXInference
import Testing
import TestSupport

/// The library's core as a client uses it: load, describe, run, read back, on both paths.
@Suite struct InferenceSessionTests {
    /// `y = Relu(x · 2 + b)` over a [1, 2, 2, 2] input with a symbolic batch.
    static let scaledRelu = ONNXBuilder.model(
        nodes: [ONNXBuilder.node("Mul", inputs: ["x", "two"], outputs: ["scaled"], name: "scale"),
                ONNXBuilder.node("Add", inputs: ["scaled", "b"], outputs: ["shifted"], name: "shift"),
                ONNXBuilder.node("Relu", inputs: ["shifted"], outputs: ["y"], name: "relu")],
        initializers: [ONNXBuilder.floatTensor("two", [], [2]), ONNXBuilder.floatTensor("b", [1, 2, 1, 1], [-1, 1])],
        inputs: [ONNXBuilder.valueInfo("x", dims: [.parameter("N"), .value(2), .value(2), .value(2)])],
        outputs: [ONNXBuilder.valueInfo("y", dims: [.parameter("N"), .value(2), .value(2), .value(2)])])

    static func expectedScaledRelu(_ x: [Float]) -> [Float] {
        x.enumerated().map { index, value in max(0, value * 2 + ((index / 4) % 2 == 0 ? -1 : 1)) }
    }

    @Test(arguments: InferenceSession.ExecutionPath.allCases)
    func runsAModelAndReturnsItsOutputsByName(path: InferenceSession.ExecutionPath) throws {
        let session = try InferenceSession(modelData: Self.scaledRelu, options: .init(path: path))
        #expect(session.inputs == [TensorInfo(name: "x", elementType: .float32, shape: [nil, 2, 2, 2], dimensionNames: ["N", nil, nil, nil])])
        #expect(session.outputs.map(\.name) == ["y"])
        let x: [Float] = (0..<8).map { Float($0) / 4 - 1 }
        let out = try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: x)])
        #expect(out["y"]!.shape == [1, 2, 2, 2])
        #expect(try out["y"]!.scalars(as: Float.self) == Self.expectedScaledRelu(x))
    }

    @Test func aPlannedModelsOnlySessionHoldsItsWeightsOncePackedAndPlansNothingElse() throws {
        let bytes = [UInt8](try Data(contentsOf: Fixtures.weights("selfie_segmentation.onnx")))
        let shared = try InferenceSession(planned: PlannedModel(modelData: bytes), options: .init(path: .fast))
        let only = try InferenceSession(planned: PlannedModel(modelData: bytes), options: .init(path: .fast), isOnlySession: true)
        // The shared one keeps the decoded model (to plan other shapes) and the weights as loaded,
        // besides the packed ones; the only one keeps the packed weights alone.
        let weightBytes = 106_401 * 4
        #expect(only.modelHeldBytes <= shared.modelHeldBytes - 2 * weightBytes, "\(only.modelHeldBytes) against \(shared.modelHeldBytes)")
        let x = Tensor(shape: [1, 256, 256, 3], scalars: (0..<(256 * 256 * 3)).map { Float($0 % 255) / 255 })
        #expect(try only.run(inputs: ["input_1": x]) == shared.run(inputs: ["input_1": x]))
        #expect(throws: InferenceError.self) { try only.run(inputs: ["input_1": x], observing: { _ in }) }
    }

    @Test func aSymbolicDimTakesItsSizeFromEachRun() throws {
        let session = try InferenceSession(modelData: Self.scaledRelu)
        for batch in [1, 3, 2, 3] {
            let x: [Float] = (0..<(8 * batch)).map { Float($0 % 7) - 3 }
            let out = try session.run(inputs: ["x": Tensor(shape: [batch, 2, 2, 2], scalars: x)])
            #expect(out["y"]!.shape == [batch, 2, 2, 2])
            #expect(try out["y"]!.scalars(as: Float.self) == Self.expectedScaledRelu(x))
        }
    }

    @Test func wrongInputsNameTheInputAndTheAxis() throws {
        let session = try InferenceSession(modelData: Self.scaledRelu)
        let wrongSize = #expect(throws: InferenceError.self) {
            try session.run(inputs: ["x": Tensor(shape: [1, 3, 2, 2], scalars: [Float](repeating: 0, count: 12))])
        }
        #expect(wrongSize?.kind == .invalidInput)
        #expect(wrongSize?.input == "x" && wrongSize?.axis == 1)
        #expect(wrongSize?.description == "'x' axis 1: the model needs 2, the tensor has 3")
        let wrongType = #expect(throws: InferenceError.self) {
            try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: [Int64](repeating: 0, count: 8))])
        }
        #expect(wrongType?.description == "'x': the model needs FLOAT elements, the tensor has INT64")
        let unknown = #expect(throws: InferenceError.self) {
            try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: [Float](repeating: 0, count: 8)),
                                     "z": Tensor(shape: [1], scalars: [Float(0)])])
        }
        #expect(unknown?.input == "z")
        let missing = #expect(throws: InferenceError.self) { try session.run(inputs: [:]) }
        #expect(missing?.input == "x")
    }

    @Test func chosenOutputsMayBeIntermediateValuesAndOnlyTheirNodesRun() throws {
        let session = try InferenceSession(modelData: Self.scaledRelu, options: .init(outputs: ["scaled"]))
        #expect(session.outputs.map(\.name) == ["scaled"])
        let out = try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: [Float](repeating: 1.5, count: 8))])
        #expect(Array(out.keys) == ["scaled"])
        #expect(try out["scaled"]!.scalars(as: Float.self) == [Float](repeating: 3, count: 8))
        #expect(throws: InferenceError.self) { try InferenceSession(modelData: Self.scaledRelu, options: .init(outputs: ["nothing"])) }
    }

    @Test(arguments: InferenceSession.ExecutionPath.allCases)
    func everyIntermediateValueCanBeObserved(path: InferenceSession.ExecutionPath) throws {
        let session = try InferenceSession(modelData: Self.scaledRelu, options: .init(path: path))
        var seen: [(String, String, String, [Float])] = []
        let x: [Float] = (0..<8).map { Float($0) - 4 }
        let out = try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: x)]) { value in
            seen.append((value.node, value.op, value.name, (try? value.tensor.scalars(as: Float.self)) ?? []))
        }
        #expect(seen.map(\.0) == ["scale", "shift", "relu"])
        #expect(seen.map(\.1) == ["Mul", "Add", "Relu"])
        #expect(seen.map(\.2) == ["scaled", "shifted", "y"])
        #expect(seen[0].3 == x.map { $0 * 2 })
        #expect(try out["y"]!.scalars(as: Float.self) == seen[2].3)
    }

    @Test func outputsWrittenIntoTheCallersTensorsReuseTheirBytes() throws {
        let session = try InferenceSession(modelData: Self.scaledRelu)
        let feeds = ["x": Tensor(shape: [1, 2, 2, 2], scalars: [Float](repeating: 1, count: 8))]
        var results: [String: Tensor] = [:]
        try session.run(inputs: feeds, into: &results)
        let address = results["y"]!.withUnsafeBytes { $0.baseAddress }
        try session.run(inputs: feeds, into: &results)
        #expect(results["y"]!.withUnsafeBytes { $0.baseAddress } == address)
        #expect(try results["y"]!.scalars(as: Float.self) == Self.expectedScaledRelu([Float](repeating: 1, count: 8)))
        // A copy the caller keeps is never written behind its back.
        let kept = results["y"]!
        try session.run(inputs: ["x": Tensor(shape: [1, 2, 2, 2], scalars: [Float](repeating: -5, count: 8))], into: &results)
        #expect(try kept.scalars(as: Float.self) == Self.expectedScaledRelu([Float](repeating: 1, count: 8)))
        #expect(try results["y"]!.scalars(as: Float.self) == [Float](repeating: 0, count: 8))
    }

    @Test func aModelWithSeveralUnsupportedNodesListsEachOfThem() throws {
        let model = ONNXBuilder.model(
            nodes: [ONNXBuilder.node("FancyOp", inputs: ["x"], outputs: ["a"], name: "first"),
                    ONNXBuilder.node("OtherOp", inputs: ["x"], outputs: ["b"], name: "second"),
                    ONNXBuilder.node("Add", inputs: ["a", "b"], outputs: ["y"], name: "sum")],
            inputs: [ONNXBuilder.valueInfo("x", [1, 4])], outputs: [ONNXBuilder.valueInfo("y", [1, 4])])
        let error = #expect(throws: InferenceError.self) { try InferenceSession(modelData: model) }
        #expect(error?.kind == .unsupported)
        #expect(error?.problems.map(\.node) == ["first", "second"])
        #expect(error?.problems.map(\.op) == ["FancyOp", "OtherOp"])
        #expect(error?.problems.map(\.domain) == ["", ""])
        #expect(error?.description.contains("FancyOp") == true && error?.description.contains("OtherOp") == true)
    }

    @Test func missingAndEmptyFilesSaySo() throws {
        let missing = #expect(throws: InferenceError.self) { try InferenceSession(modelPath: "/nonexistent/model.onnx") }
        #expect(missing?.kind == .fileNotFound && missing?.path == "/nonexistent/model.onnx")
        let empty = #expect(throws: InferenceError.self) { try InferenceSession(modelData: [UInt8]()) }
        #expect(empty?.kind == .malformed)
        #expect(empty?.description.contains("empty") == true)
    }
}

/// Tensors of every stored element type, read back bit for bit.
@Suite struct TensorTests {
    @Test func scalarsRoundTripForEveryElementType() throws {
        #expect(try Tensor(shape: [2], scalars: [Float(1.5), -0.0]).scalars(as: Float.self).map(\.bitPattern) == [Float(1.5).bitPattern, Float(-0.0).bitPattern])
        #expect(try Tensor(shape: [3], scalars: [Int64.min, 0, Int64.max]).scalars(as: Int64.self) == [Int64.min, 0, Int64.max])
        #expect(try Tensor(shape: [2], scalars: [true, false]).scalars(as: Bool.self) == [true, false])
        #expect(try Tensor(shape: [1, 2], scalars: [UInt8(7), 255]).scalars(as: UInt8.self) == [7, 255])
        #expect(try Tensor(shape: [], scalars: [Double.pi]).scalars(as: Double.self) == [Double.pi])
        #expect(try Tensor(shape: [2], scalars: [Int8(-128), 127]).scalars(as: Int8.self) == [-128, 127])
        #expect(Tensor(shape: [2], scalars: [Int32(1), 2]).elementType == .int32)
    }

    @Test func readingAsAnotherTypeIsAnError() {
        let tensor = Tensor(shape: [2], scalars: [Float(1), 2])
        #expect(throws: TensorError.elementTypeMismatch(expected: .float32, actual: .int64)) { try tensor.scalars(as: Int64.self) }
    }

    @Test func copiesShareBytesUntilOneIsWritten() throws {
        var a = Tensor(shape: [2], scalars: [Float(1), 2])
        let b = a
        #expect(a.withUnsafeBytes { $0.baseAddress } == b.withUnsafeBytes { $0.baseAddress })
        try a.withUnsafeMutableBufferPointer(of: Float.self) { $0[0] = 9 }
        #expect(try a.scalars(as: Float.self) == [9, 2])
        #expect(try b.scalars(as: Float.self) == [1, 2])
    }

    @Test func bytesAreAlignedForAnyScalar() {
        for count in [1, 3, 17] {
            let tensor = Tensor(zeros: .float64, shape: [count])
            #expect(Int(bitPattern: tensor.withUnsafeBytes { $0.baseAddress }) % 64 == 0)
        }
    }
}

/// numpy's `allclose` and the report an oracle's user reads when it fails.
@Suite struct TensorComparisonTests {
    @Test func withinTheToleranceIsClose() {
        let expected = Tensor(shape: [2, 2], scalars: [Float(1), 2, 3, 4])
        let actual = Tensor(shape: [2, 2], scalars: [Float(1.00001), 2, 3, 4])
        #expect(actual.isClose(to: expected, rtol: 1e-4))
        #expect(!actual.isClose(to: expected, rtol: 1e-6, atol: 0))
    }

    @Test func theReportSaysWhereTheLargestErrorIs() {
        let expected = Tensor(shape: [2, 3], scalars: [Float(0), 1, 2, 3, 4, 5])
        let actual = Tensor(shape: [2, 3], scalars: [Float(0), 1, 2, 3, 4.5, 5.01])
        let report = TensorComparison(actual: actual, expected: expected, rtol: 1e-3, atol: 0)
        #expect(!report.isClose)
        #expect(report.mismatchCount == 2)
        #expect(report.worst?.index == [1, 1])
        #expect(report.maximumAbsoluteError == 0.5)
        #expect(abs(report.maximumRelativeError - 0.125) < 1e-12)
        #expect(report.description.hasPrefix("2 of 6 elements differ beyond rtol 0.001, atol 0.0"))
    }

    @Test func nanMatchesNanAndInfinityOnlyItself() {
        let expected = Tensor(shape: [3], scalars: [Float.nan, .infinity, 1])
        #expect(Tensor(shape: [3], scalars: [Float.nan, .infinity, 1]).isClose(to: expected))
        #expect(!Tensor(shape: [3], scalars: [Float(0), .infinity, 1]).isClose(to: expected))
        #expect(!Tensor(shape: [3], scalars: [Float.nan, -.infinity, 1]).isClose(to: expected))
    }

    @Test func differentShapesOrTypesAreNeverClose() {
        let a = Tensor(shape: [2], scalars: [Float(1), 2])
        #expect(TensorComparison(actual: a, expected: Tensor(shape: [1, 2], scalars: [Float(1), 2])).incompatibility != nil)
        #expect(!a.isClose(to: Tensor(shape: [2], scalars: [Double(1), 2])))
    }

    @Test func integersCompareExactlyAtZeroTolerance() {
        let a = Tensor(shape: [2], scalars: [Int64(1), 1 << 53 + 1])
        #expect(a.isClose(to: a, rtol: 0, atol: 0))
        #expect(!a.isClose(to: Tensor(shape: [2], scalars: [Int64(1), 2]), rtol: 0, atol: 0))
    }
}
