/// A sequence value as the plan holds it: the value names of its element tensors, in order, and
/// their element type.
///
/// Sequences exist only while the plan is built. The sequence operators (`Operators/PlanTimeValues`)
/// make and rearrange these lists, and the ones that read elements (`SequenceAt`,
/// `ConcatFromSequence`, `SplitToSequence`) become ordinary tensor nodes over the element values,
/// so nothing about a sequence runs per frame. Hence every position, and every split length, must
/// be known when the plan is built (a constant, or a graph input offered at plan time), and a
/// sequence is never a graph input or output.
struct PlanTimeSequence: Sendable {
    var elementType: ElementType
    var elements: [String]
}

/// An optional value as the plan holds it: what it holds, or nothing. Whether it is empty is
/// known when the plan is built, as for `PlanTimeSequence`.
struct PlanTimeOptional: Sendable {
    enum Element: Sendable {
        /// A tensor value, by name.
        case tensor(String)
        case sequence(PlanTimeSequence)
    }

    /// Nil when the optional is empty.
    var element: Element?
}
