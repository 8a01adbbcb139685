/// ONNX `ConcatFromSequence` (11): the sequence's tensors joined along `axis` by a `Concat`
/// node; with `new_axis` 1 they are stacked instead, each given a new dim of size 1 at `axis`
/// (in `-r-1...r` for elements of rank r) by an `Unsqueeze` first. The sequence must not be
/// empty.
enum ConcatFromSequence {
    static let build: PlanTimeBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 1, 1)
        try context.checkAttributes(["axis", "new_axis"])
        let sequence = try context.sequence(ofInput: 0)
        guard context.attribute("axis") != nil else { throw context.error(.malformed, "is required", attribute: "axis") }
        let axis = try context.int("axis", default: 0)
        let stacks = try context.int("new_axis", default: 0, in: 0...1) == 1
        guard !sequence.elements.isEmpty else { throw context.error(.invalidValue, "cannot concatenate an empty sequence") }
        var rewrite = PlanTimeRewrite()
        var parts = sequence.elements
        if stacks {
            parts = parts.indices.map { context.helperName("stacked\($0)") }
            for (element, part) in zip(sequence.elements, parts) {
                rewrite.nodes.append((context.tensorNode("Unsqueeze", inputs: [element], outputs: [part], attributes: [.ints("axes", [axis])]), 11))
            }
        }
        rewrite.nodes.append((context.tensorNode("Concat", inputs: parts, outputs: context.node.outputs, attributes: [.int("axis", axis)]), 11))
        return rewrite
    }
}
