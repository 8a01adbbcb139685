import Foundation
import ONNXInference

/// `vbg infer --dump DIR`: every value the graph computes as `DIR/<file>.npy`, and `DIR/index.json`
/// mapping each file to its node, op, value name, shape and dtype.
///
/// File names are short, safe on every file system and distinct whatever the value names are:
/// `<node index>_<name>.npy` when the name is made of ASCII letters, digits, '.', '-' and '_' and
/// is at most `maximumNameLength` bytes; otherwise the name with every other character replaced by
/// '_', cut to `shortenedNameLength` characters, then '-' and 8 hex digits of a hash of the full
/// name. A name already taken (compared without case, for case-insensitive file systems) gets
/// `-2`, `-3`, ... before `.npy`.
enum ValueDump {
    /// The longest name kept as it is (well under the 255 bytes file systems allow a name).
    static let maximumNameLength = 100
    /// The characters of a changed or long name kept before its hash.
    static let shortenedNameLength = 80

    /// One file of the dump.
    struct Entry: Equatable {
        var file: String
        var node: String
        var op: String
        var value: String
        var shape: [Int]
        var dtype: String
    }

    /// A file name (without `.npy`) for value `name` of node `index`, not in `taken` (lowercased
    /// names), which it joins.
    static func fileName(node index: Int, value name: String, taken: inout Set<String>) -> String {
        let sanitised = TensorFile.sanitised(name)
        var base = "\(index)_"
        if sanitised == name && name.utf8.count <= maximumNameLength {
            base += name
        } else {
            base += String(sanitised.prefix(shortenedNameLength)) + "-" + hash(name)
        }
        var candidate = base, suffix = 1
        while taken.contains(candidate.lowercased()) {
            suffix += 1
            candidate = "\(base)-\(suffix)"
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    /// 32 bits of the FNV-1a hash of `name`'s UTF-8 bytes, as 8 hex digits.
    static func hash(_ name: String) -> String {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        let folded = UInt32(truncatingIfNeeded: value ^ (value >> 32))
        let hex = String(folded, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// Runs `session` on `feeds`, observing every value a node computes, writes each into
    /// `directory` as it comes, then the index.
    ///
    /// - Returns: the session's outputs.
    static func write(running session: InferenceSession, on feeds: [String: Tensor], to directory: String,
                      modelName: String) throws -> [String: Tensor] {
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw CLIError.input("cannot create \(directory): \(error.localizedDescription)")
        }
        var taken: Set<String> = ["index"]
        var entries: [Entry] = []
        var failure: (any Error)?
        let outputs: [String: Tensor]
        do {
            outputs = try session.run(inputs: feeds) { value in
                guard failure == nil else { return }
                let file = fileName(node: value.nodeIndex, value: value.name, taken: &taken)
                    + (TensorFile.isNumpyType(value.tensor.elementType) ? ".npy" : ".pb")
                do { try TensorFile.write(value.tensor, to: "\(directory)/\(file)", name: value.name) } catch { failure = error; return }
                entries.append(Entry(file: file, node: value.node, op: value.op, value: value.name, shape: value.tensor.shape,
                                     dtype: TensorFile.numpyName(of: value.tensor.elementType)))
            }
        } catch {
            throw CLIError.input(String(describing: error))
        }
        if let failure { throw failure }
        let text = indexJSON(entries, model: modelName, path: session.options.path.rawValue)
        try OutputFile.write("\(directory)/index.json") { temporary in
            do { try Data(text.utf8).write(to: URL(fileURLWithPath: temporary)) } catch {
                throw CLIError.input("cannot write \(directory)/index.json: \(error.localizedDescription)")
            }
        }
        return outputs
    }

    /// `{"model": …, "path": …, "values": {"<file>": {"node", "op", "value", "shape", "dtype"}, …}}`,
    /// the values in execution order, one per line.
    static func indexJSON(_ entries: [Entry], model: String, path: String) -> String {
        let values = entries.map { entry in
            "    \(JSON.string(entry.file)): {\"node\": \(JSON.string(entry.node)), \"op\": \(JSON.string(entry.op)), "
                + "\"value\": \(JSON.string(entry.value)), \"shape\": [\(entry.shape.map(String.init).joined(separator: ", "))], "
                + "\"dtype\": \(JSON.string(entry.dtype))}"
        }
        return "{\n  \"model\": \(JSON.string(model)),\n  \"path\": \(JSON.string(path)),\n  \"values\": {\n"
            + values.joined(separator: ",\n") + (values.isEmpty ? "" : "\n") + "  }\n}\n"
    }
}

/// JSON text for the values `vbg` prints or writes.
enum JSON {
    /// `text` as a JSON string literal: quotes, backslashes and control characters escaped.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
