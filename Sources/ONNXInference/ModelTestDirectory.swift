import Foundation
import Inference
import ONNXFormat

extension Tensor {
    /// Decodes a serialized ONNX `TensorProto`: the `input_K.pb` and `output_K.pb` files of
    /// onnx's backend tests and of model-zoo entries. The element type is kept as stored.
    ///
    /// - Throws: `InferenceError(.malformed)` for bytes that are not a TensorProto or whose
    ///   data disagrees with its dims; `.unsupported` for element types a `Tensor` cannot hold
    ///   (strings, complex, float6).
    public init(serializedTensorProto bytes: some Collection<UInt8>) throws(InferenceError) {
        self = try Tensor.decodingTensorProto(Array(bytes)).tensor
    }

    /// The tensor as a serialized ONNX `TensorProto` named `name` (none when empty), its
    /// elements in `raw_data`, the 4- and 2-bit types packed as ONNX stores them: the format of
    /// onnx's `input_K.pb` and `output_K.pb` files, read back by ``init(serializedTensorProto:)``.
    ///
    /// - Throws: `InferenceError(.unsupported)` for a `string` tensor (its elements are not written).
    public func serializedTensorProto(name: String = "") throws(InferenceError) -> [UInt8] {
        guard elementType != .string else {
            throw InferenceError(.unsupported, "a string tensor cannot be serialized as a TensorProto here (only numeric types)")
        }
        return engineTensor.serializedTensorProto(name: name)
    }

    static func decodingTensorProto(_ bytes: [UInt8]) throws(InferenceError) -> (name: String, tensor: Tensor) {
        do {
            let decoded = try Inference.Tensor.decoding(serializedTensorProto: bytes)
            return (decoded.name, Tensor(decoded.tensor))
        } catch {
            throw InferenceError(error)
        }
    }
}

/// A model directory in onnx's backend-test layout: `model.onnx` beside `test_data_set_0/`,
/// `test_data_set_1/`, …, each holding `input_K.pb` and `output_K.pb` (serialized `TensorProto`s).
///
/// A tensor's stored name binds it to a graph input or output; a tensor without a name is
/// bound by its index `K` in the graph's order (initializers excluded), as onnx's runner does.
public struct ModelTestDirectory: Sendable {
    /// One test data set: inputs and the outputs expected for them.
    public struct DataSet: Sendable {
        /// The folder's name (`test_data_set_0`).
        public let name: String
        /// The inputs by graph input name.
        public let inputs: [String: Tensor]
        /// The expected outputs by graph output name, in the graph's order.
        public let expectedOutputs: [(name: String, tensor: Tensor)]
    }

    /// The result of one data set.
    public struct Result: Sendable {
        public let dataSet: String
        /// Each expected output with its comparison to what the session computed (the
        /// comparison's `incompatibility` says when the session did not compute it).
        public let outputs: [(name: String, comparison: TensorComparison)]
        /// Whether every output is within the tolerance.
        public var passed: Bool { outputs.allSatisfy { $0.comparison.isClose } }
    }

    /// The directory.
    public let path: String
    /// `path/model.onnx`.
    public var modelPath: String { (path as NSString).appendingPathComponent("model.onnx") }
    /// The data sets, in the order of their numbers.
    public let dataSets: [DataSet]

    /// Reads every data set of the directory (the model itself is read by the session that runs them).
    ///
    /// - Throws: `InferenceError`: `.fileNotFound` when there is no `model.onnx` or no
    ///   `test_data_set_*` folder; `.malformed` for a `.pb` file that cannot be decoded (naming
    ///   it); `.invalidInput` for a tensor whose name is neither an input nor an output of the
    ///   model, or an index beyond them.
    public init(path: String) throws(InferenceError) {
        self.path = path
        let files = FileManager.default
        let modelFile = (path as NSString).appendingPathComponent("model.onnx")
        guard files.fileExists(atPath: modelFile) else {
            throw InferenceError(.fileNotFound, "no model.onnx in the directory", path: modelFile)
        }
        let bytes: [UInt8]
        do { bytes = try InferenceModel.readFile(modelFile) } catch { throw InferenceError(error) }
        let proto: ModelProto
        do { proto = try ModelProto(serializedBytes: bytes) } catch {
            throw InferenceError(.malformed, "not a valid ONNX model: \(error.description)", path: modelFile)
        }
        let initializers = Set(proto.graph?.initializers.map(\.name) ?? [])
        let inputNames = (proto.graph?.inputs ?? []).map(\.name).filter { !initializers.contains($0) }
        let outputNames = (proto.graph?.outputs ?? []).map(\.name)

        let entries = (try? files.contentsOfDirectory(atPath: path)) ?? []
        let sets = entries.compactMap { entry -> (Int, String)? in
            guard entry.hasPrefix("test_data_set_"), let number = Int(entry.dropFirst("test_data_set_".count)) else { return nil }
            return (number, entry)
        }.sorted { $0.0 < $1.0 }
        guard !sets.isEmpty else {
            throw InferenceError(.fileNotFound, "no test_data_set_N folder in the directory", path: path)
        }
        var dataSets: [DataSet] = []
        for (_, name) in sets {
            let folder = (path as NSString).appendingPathComponent(name)
            let inputs = try Self.tensors(in: folder, prefix: "input_", names: inputNames, role: "input")
            let outputs = try Self.tensors(in: folder, prefix: "output_", names: outputNames, role: "output")
            dataSets.append(DataSet(name: name, inputs: Dictionary(uniqueKeysWithValues: inputs.map { ($0.name, $0.tensor) }),
                                    expectedOutputs: outputs))
        }
        self.dataSets = dataSets
    }

    /// Runs every data set through `session` (made from ``modelPath``) and compares each
    /// output with the expected one.
    ///
    /// - Parameters:
    ///   - rtol, atol: the tolerance, onnx's backend runner's by default (1e-3, 1e-7).
    /// - Throws: an `InferenceError` from running a data set (its inputs do not fit the model).
    public func run(on session: InferenceSession, rtol: Double = 1e-3, atol: Double = 1e-7) throws(InferenceError) -> [Result] {
        var results: [Result] = []
        for dataSet in dataSets {
            let computed = try session.run(inputs: dataSet.inputs)
            let outputs = dataSet.expectedOutputs.map { expected in
                let actual = computed[expected.name] ?? Tensor(zeros: expected.tensor.elementType, shape: [0])
                return (expected.name, TensorComparison(actual: actual, expected: expected.tensor, rtol: rtol, atol: atol))
            }
            results.append(Result(dataSet: dataSet.name, outputs: outputs))
        }
        return results
    }

    /// The `prefixK.pb` files of `folder` in the order of K, each bound to a name.
    private static func tensors(in folder: String, prefix: String, names: [String],
                                role: String) throws(InferenceError) -> [(name: String, tensor: Tensor)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        let numbered = entries.compactMap { entry -> (Int, String)? in
            guard entry.hasPrefix(prefix), entry.hasSuffix(".pb"),
                  let number = Int(entry.dropFirst(prefix.count).dropLast(3)) else { return nil }
            return (number, entry)
        }.sorted { $0.0 < $1.0 }
        var result: [(name: String, tensor: Tensor)] = []
        for (number, entry) in numbered {
            let file = (folder as NSString).appendingPathComponent(entry)
            let bytes: [UInt8]
            do { bytes = try InferenceModel.readFile(file) } catch { throw InferenceError(error) }
            let decoded: (name: String, tensor: Tensor)
            do { decoded = try Tensor.decodingTensorProto(bytes) } catch {
                throw InferenceError(error.kind, error.message, path: file)
            }
            let name: String
            if !decoded.name.isEmpty, names.contains(decoded.name) {
                name = decoded.name
            } else if names.indices.contains(number) {
                name = names[number]
            } else {
                throw InferenceError(.invalidInput, "\(entry) is \(role) \(number), but the model has \(names.count) \(role)s", path: file)
            }
            result.append((name, decoded.tensor))
        }
        return result
    }
}
