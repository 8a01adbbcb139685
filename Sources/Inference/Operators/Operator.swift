/// One node's computation, fully resolved at plan time: attribute values, output shapes and types,
/// and any tables the kernel needs are fixed, so running it only reads and writes buffers.
///
/// Operators are built by the functions registered in `OperatorRegistry` (one file per ONNX
/// op under `Operators/`). `run` is the *reference* kernel: scalar, written from the ONNX
/// operator spec, and the oracle the fast path is tested against. It must not allocate.
///
/// Buffers are passed as `Float` pointers because float32 is what nearly every kernel reads; an
/// operator that takes or makes other element types views its buffers through
/// `UnsafeRawPointer` (every buffer is 64-byte aligned and sized for its own type).
protocol Operator: AnyObject, Sendable {
    /// The node inputs the kernel reads at run time, as indices into the node's input list, in
    /// the order `run` receives them. Inputs read only at plan time (a Reshape's shape, a Resize's
    /// sizes, a Slice's starts) are not listed.
    var dataInputs: [Int] { get }
    /// The shape of each output, in the node's output order.
    var outputShapes: [[Int]] { get }
    /// The element type of each output (float32 unless the operator says otherwise).
    var outputTypes: [ElementType] { get }
    /// Multiply-accumulates per run (convolutions and products; 0 for the others).
    var multiplyAccumulates: Int { get }
    /// Whether the builder checked the element types of the data inputs itself. When false (the
    /// default), the loader requires every data input to be float32.
    var checksInputTypes: Bool { get }
    /// Computes the outputs from the inputs.
    ///
    /// - Precondition: `inputs[i]` holds the elements of data input `i`; `outputs[j]` has room
    ///   for output `j`; outputs do not overlap inputs.
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>])
}

extension Operator {
    var outputTypes: [ElementType] { outputShapes.map { _ in .float32 } }
    var multiplyAccumulates: Int { 0 }
    var checksInputTypes: Bool { false }
}

/// Builds an `Operator` for one node, or throws a `ModelError` naming the node, op and attribute.
typealias OperatorBuilder = @Sendable (NodeContext) throws(ModelError) -> any Operator
