/// ONNX `StringNormalizer` (10) on a string tensor of shape `[C]` or `[1, C]`: removes the
/// elements equal to one of `stopwords` (compared as they are when `is_case_sensitive` is 1, else
/// after lowercasing both), then changes the case of the others (`case_change_action` `LOWER`,
/// `UPPER` or `NONE`, the default). When every element is removed the output is one empty string
/// (`[1]`, or `[1, 1]`).
///
/// Case is changed and compared by Unicode's default mappings, which are those of `en_US` (the
/// default `locale`) and `C.UTF-8`; another `locale` is refused.
enum StringNormalizer {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["case_change_action", "is_case_sensitive", "locale", "stopwords"])
        let action = try context.choice("case_change_action", ["NONE", "LOWER", "UPPER"], default: "NONE")
        let caseSensitive = try context.int("is_case_sensitive", default: 0, in: 0...1) == 1
        _ = try context.choice("locale", ["en_US", "en_US.UTF-8", "C.UTF-8"], default: "en_US")
        let stopwords = context.attribute("stopwords").map { $0.strings.map { String(decoding: $0, as: UTF8.self) } } ?? []
        guard case let .strings(x) = context.inputs[0] else {
            throw context.error(.unsupported, "input 0 ('\(context.node.inputs[0])') must be a string tensor")
        }
        guard x.shape.count == 1 || (x.shape.count == 2 && x.shape[0] == 1) else {
            throw context.error(.invalidShape, "input 0 has shape \(x.shape); StringNormalizer takes [C] or [1, C]")
        }
        let key = { (word: String) in caseSensitive ? word : word.lowercased() }
        let stops = Set(stopwords.map(key))
        var kept = x.values.filter { !stops.contains(key($0)) }.map { word in
            switch action {
            case "LOWER": word.lowercased()
            case "UPPER": word.uppercased()
            default: word
            }
        }
        if kept.isEmpty { kept = [""] }
        let shape = x.shape.count == 1 ? [kept.count] : [1, kept.count]
        return PlanTimeRewrite(strings: [(context.node.outputs[0], StringTensor(shape: shape, values: kept))])
    }
}
