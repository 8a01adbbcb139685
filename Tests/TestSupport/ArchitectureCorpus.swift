import Foundation

/// `Fixtures/corpus/` (`Tools/make_architecture_corpus.py`): real architectures with random weights,
/// each committed with its large float initializers stripped. ``CorpusModel/regeneratedModel()``
/// refills them from the seeded streams the script used, so the model is byte for byte the one
/// onnxruntime ran.
package enum ArchitectureCorpus {
    /// One line of `Fixtures/corpus/index.json`.
    package struct Listed: Decodable, Sendable {
        package var name: String
        package var nodes: Int
        /// Whether the debug-build quick subset runs the model.
        package var quick: Bool
    }

    /// Every model of the index, in its order; empty when the index is missing or unreadable (the
    /// suite checks that it is not).
    package static let index: [Listed] = {
        struct Index: Decodable { var models: [Listed] }
        guard let data = try? Data(contentsOf: Fixtures.url("corpus/index.json")),
              let index = try? JSONDecoder().decode(Index.self, from: data)
        else { return [] }
        return index.models
    }()

    /// The manifest of the model named `name`.
    ///
    /// - Throws: when `corpus/NAME/manifest.json` is missing or malformed.
    package static func model(named name: String) throws -> CorpusModel {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(CorpusModel.self, from: Data(contentsOf: Fixtures.url("corpus/\(name)/manifest.json")))
    }
}

/// `Fixtures/corpus/NAME/manifest.json`.
package struct CorpusModel: Decodable, Sendable {
    /// A tensor refilled from a stream: uniform on [mean − halfWidth, mean + halfWidth].
    package struct Filled: Decodable, Sendable {
        package var name: String
        package var count: Int
        /// The seed of its stream (from the exported tensor's dims and values), 16 hex digits.
        package var stream: String
        package var mean: Double
        package var halfWidth: Double
        /// ``CorpusFill/checksum(_:)`` of the values the script wrote.
        package var checksum: String
    }

    package struct Input: Decodable, Sendable {
        package var name: String
        package var shape: [Int]
        package var stream: String
        package var mean: Double
        package var halfWidth: Double
        package var checksum: String
    }

    package struct Output: Decodable, Sendable {
        package var name: String
        package var shape: [Int]
        /// onnxruntime's output (ORT_DISABLE_ALL, 1 thread), relative to `Fixtures/corpus/NAME/`.
        package var file: String
        /// max|ORT_ENABLE_ALL − ORT_DISABLE_ALL| / max|ORT_DISABLE_ALL|.
        package var ortSpread: Double
    }

    package var name: String
    package var family: String
    package var source: String
    package var producer: String
    package var opset: Int
    package var nodes: Int
    package var seed: UInt64
    package var inputs: [Input]
    package var outputs: [Output]
    package var filled: [Filled]

    /// `corpus/NAME/FILE`, relative to `Fixtures/`.
    package func path(_ file: String) -> String { "corpus/\(name)/\(file)" }

    /// The committed model with every stripped initializer refilled.
    ///
    /// - Throws: `CorpusError` when a refilled tensor's checksum is not the manifest's (the stream
    ///   here and the script's have diverged) or the model does not have the tensors the manifest
    ///   names.
    package func regeneratedModel() throws -> [UInt8] {
        let stripped = try [UInt8](Data(contentsOf: Fixtures.url(path("model.onnx"))))
        var fills: [String: Filled] = [:]
        for tensor in filled { fills[tensor.name] = tensor }
        var refilled = Set<String>()
        let bytes = try ProtobufSplice.appendingRawData(to: stripped) { name in
            guard let spec = fills[name] else { return nil }
            let values = CorpusFill.values(stream: try Self.seed(spec.stream), count: spec.count, mean: spec.mean, halfWidth: spec.halfWidth)
            let sum = CorpusFill.checksum(values)
            guard sum == spec.checksum else {
                throw CorpusError("\(self.name): initializer '\(name)' refilled with checksum \(sum), the script's is \(spec.checksum)")
            }
            refilled.insert(name)
            return values.withUnsafeBytes { [UInt8]($0) }
        }
        let missing = Set(fills.keys).subtracting(refilled)
        guard missing.isEmpty else { throw CorpusError("\(name): no stripped initializer named \(missing.sorted())") }
        return bytes
    }

    /// The input `input` as the script fed it.
    ///
    /// - Throws: `CorpusError` when its checksum is not the manifest's.
    package func values(of input: Input) throws -> [Float] {
        let values = CorpusFill.values(stream: try Self.seed(input.stream), count: input.shape.reduce(1, *),
                                       mean: input.mean, halfWidth: input.halfWidth)
        let sum = CorpusFill.checksum(values)
        guard sum == input.checksum else {
            throw CorpusError("\(name): input '\(input.name)' regenerated with checksum \(sum), the script's is \(input.checksum)")
        }
        return values
    }
}

extension CorpusModel {
    fileprivate static func seed(_ hex: String) throws -> UInt64 {
        guard let seed = UInt64(hex, radix: 16) else { throw CorpusError("stream seed '\(hex)' is not 16 hex digits") }
        return seed
    }
}

package struct CorpusError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The seeded fill stream of `Tools/make_architecture_corpus.py` (its docstring states it).
package enum CorpusFill {
    static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// SplitMix64's output function.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` values uniform on [mean − halfWidth, mean + halfWidth], one per output of
    /// `SeededGenerator(seed: stream)`. `mean` and `halfWidth` are float32 values (as the manifest
    /// writes them).
    package static func values(stream: UInt64, count: Int, mean: Double, halfWidth: Double) -> [Float] {
        var generator = SeededGenerator(seed: stream)
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            for i in 0..<count {
                let k = Int64(generator.next() >> 40)
                // |t| < 2^24 and halfWidth has 24 significant bits: the product is exact in Double.
                let t = Double(2 * k + 1 - (1 << 24))
                buffer[i] = Float(mean + halfWidth * t * 0x1p-24)
            }
            initialized = count
        }
    }

    /// Σ mix(bits_i + (i + 1) · γ) mod 2^64 as 16 hex digits (bits_i: element i's IEEE pattern).
    package static func checksum(_ values: [Float]) -> String {
        var total: UInt64 = 0
        values.withUnsafeBufferPointer { buffer in
            for i in buffer.indices { total &+= mix(UInt64(buffer[i].bitPattern) &+ UInt64(i + 1) &* gamma) }
        }
        let hex = String(total, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

/// Protobuf wire-format surgery on an ONNX ModelProto: appends `raw_data` to the graph's
/// initializers, field numbers as in onnx/onnx.proto3 (ModelProto.graph = 7,
/// GraphProto.initializer = 5, TensorProto.name = 8, float_data = 4, raw_data = 9).
enum ProtobufSplice {
    private struct Field {
        var number: Int
        var wireType: Int
        /// The whole field, key included.
        var whole: Range<Int>
        /// A length-delimited field's payload (empty otherwise).
        var payload: Range<Int>
    }

    /// `model` with `data(name)` appended as `raw_data` to every graph initializer for which it is
    /// not nil. The initializer must have no data of its own.
    static func appendingRawData(to model: [UInt8], _ data: (String) throws -> [UInt8]?) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(model.count)
        for field in try fields(model, model.indices) {
            guard field.number == 7, field.wireType == 2 else { out += model[field.whole]; continue }
            var graph: [UInt8] = []
            for graphField in try fields(model, field.payload) {
                guard graphField.number == 5, graphField.wireType == 2 else { graph += model[graphField.whole]; continue }
                let tensorFields = try fields(model, graphField.payload)
                let name = tensorFields.last { $0.number == 8 && $0.wireType == 2 }
                    .map { String(decoding: model[$0.payload], as: UTF8.self) } ?? ""
                guard let raw = try data(name) else { graph += model[graphField.whole]; continue }
                guard !tensorFields.contains(where: { $0.number == 4 || $0.number == 9 }) else {
                    throw CorpusError("initializer '\(name)' already has data")
                }
                var tensor = Array(model[graphField.payload])
                append(field: 9, raw, to: &tensor)
                append(field: 5, tensor, to: &graph)
            }
            append(field: 7, graph, to: &out)
        }
        return out
    }

    private static func append(field: Int, _ payload: [UInt8], to out: inout [UInt8]) {
        out += ProtoWriter.varintBytes(UInt64(field << 3 | 2))
        out += ProtoWriter.varintBytes(UInt64(payload.count))
        out += payload
    }

    private static func fields(_ bytes: [UInt8], _ range: Range<Int>) throws -> [Field] {
        var position = range.lowerBound
        func varint() throws -> UInt64 {
            var value: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard position < range.upperBound, shift < 64 else { throw CorpusError("truncated varint at byte \(position)") }
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
        var result: [Field] = []
        while position < range.upperBound {
            let start = position
            let key = try varint()
            let number = Int(key >> 3), wireType = Int(key & 7)
            var payload = position..<position
            switch wireType {
            case 0: _ = try varint()
            case 1: position += 8
            case 5: position += 4
            case 2:
                let length = Int(try varint())
                payload = position..<position + length
                position += length
            default: throw CorpusError("wire type \(wireType) of field \(number) at byte \(start)")
            }
            guard position <= range.upperBound else { throw CorpusError("field \(number) at byte \(start) runs past its message") }
            result.append(Field(number: number, wireType: wireType, whole: start..<position, payload: payload))
        }
        return result
    }
}
