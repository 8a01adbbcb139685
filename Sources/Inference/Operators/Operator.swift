/// One node's computation, fully resolved at plan time: attribute values, output shapes and any
/// tables the kernel needs are fixed, so running it only reads and writes float buffers.
///
/// Operators are built by the functions registered in `OperatorRegistry` (one file per ONNX
/// op under `Operators/`). `run` is the *reference* kernel: scalar, written from the ONNX
/// operator spec, and the oracle the fast path is tested against. It must not allocate.
protocol Operator: Sendable {
    /// The node inputs the kernel reads at run time, as indices into the node's input list, in
    /// the order `run` receives them. Inputs read only at plan time (a Reshape's shape, a Resize's
    /// sizes, a Slice's starts) are not listed.
    var dataInputs: [Int] { get }
    /// The shape of each output, in the node's output order.
    var outputShapes: [[Int]] { get }
    /// Multiply-accumulates per run (convolutions; 0 for the others).
    var multiplyAccumulates: Int { get }
    /// Computes the outputs from the inputs.
    ///
    /// - Precondition: `inputs[i]` holds `product(shape of dataInputs[i])` floats; `outputs[j]`
    ///   has room for `product(outputShapes[j])`; outputs do not overlap inputs.
    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>])
}

extension Operator {
    var multiplyAccumulates: Int { 0 }
}

/// Builds an `Operator` for one node, or throws a `ModelError` naming the node, op and attribute.
typealias OperatorBuilder = @Sendable (NodeContext) throws(ModelError) -> any Operator
