/// ONNX `StringSplit` (20): each element of X split as Python's `str.split` does (onnx's reference
/// calls it): at every `delimiter` (none or empty: at runs of whitespace, none counted at either
/// end), at most `maxsplit` times from the left (all by default; the rest is the last piece). Y has X's shape plus one dim, the largest
/// number of pieces, shorter rows padded with empty strings; Z (int64, X's shape) holds each count.
/// Computed when the plan is built, where strings exist (`StringTensor`).
enum StringSplit {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1, outputs: 2)
        try context.checkAttributes(["delimiter", "maxsplit"])
        let delimiter = context.attribute("delimiter").map { String(decoding: $0.s, as: UTF8.self) } ?? ""
        let maxsplit = context.attribute("maxsplit") == nil ? Int.max : try context.int("maxsplit", default: 0, in: 0...(1 << 40))
        guard case let .strings(x) = context.inputs[0] else {
            throw context.error(.unsupported, "input 0 ('\(context.node.inputs[0])') must be a string tensor")
        }
        let pieces = x.values.map { delimiter.isEmpty ? splitAtWhitespace($0, maxsplit) : split($0, at: delimiter, maxsplit) }
        let width = pieces.map { $0.count }.max() ?? 0
        let padded = pieces.flatMap { $0 + Array(repeating: "", count: width - $0.count) }
        let counts = ConstantTensor(shape: x.shape, integers: pieces.map { Int64($0.count) }, type: .int64)
        return PlanTimeRewrite(constants: [(context.node.outputs[1], counts)],
                               strings: [(context.node.outputs[0], StringTensor(shape: x.shape + [width], values: padded))])
    }

    /// `text.split(delimiter, maxsplit)`, on UTF-8 bytes.
    static func split(_ text: String, at delimiter: String, _ maxsplit: Int) -> [String] {
        let bytes = Array(text.utf8), separator = Array(delimiter.utf8)
        var pieces: [String] = [], start = 0, index = 0
        while index + separator.count <= bytes.count && pieces.count < maxsplit {
            if Array(bytes[index..<(index + separator.count)]) == separator {
                pieces.append(String(decoding: bytes[start..<index], as: UTF8.self))
                index += separator.count
                start = index
            } else {
                index += 1
            }
        }
        return pieces + [String(decoding: bytes[start...], as: UTF8.self)]
    }

    /// `text.split(None, maxsplit)`: runs of whitespace separate, none at either end counts.
    static func splitAtWhitespace(_ text: String, _ maxsplit: Int) -> [String] {
        let characters = Array(text.unicodeScalars)
        var pieces: [String] = [], index = 0
        func skipSpace() { while index < characters.count && characters[index].properties.isWhitespace { index += 1 } }
        skipSpace()
        while index < characters.count {
            if pieces.count == maxsplit {
                // The rest, its trailing whitespace kept (as Python keeps it), is the last piece.
                pieces.append(String(String.UnicodeScalarView(characters[index...])))
                return pieces
            }
            let start = index
            while index < characters.count && !characters[index].properties.isWhitespace { index += 1 }
            pieces.append(String(String.UnicodeScalarView(characters[start..<index])))
            skipSpace()
        }
        return pieces
    }
}
