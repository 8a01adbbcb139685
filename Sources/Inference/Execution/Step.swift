import Kernels

/// One planned node bound to its buffers, ready to run: the unit an execution path provides.
///
/// Steps are made once per session; `run()` must not allocate.
protocol Step: AnyObject {
    func run()
    /// The worker pool's scratch the step's kernels need for its problem (from the kernels' own
    /// statements, e.g. `pointwiseScratch(inputChannels:)`), read once when the step is planned
    /// (`StepBuilder.work(for:inputs:outputs:)` reserves it in the pool); none by default.
    var scratch: ScratchSize { get }
}

extension Step {
    var scratch: ScratchSize { .none }
}

/// Runs a node with its operator's reference (scalar, spec-derived) kernel: the reference path's
/// step for every node, and the fast path's for a node it has no kernel for.
final class ReferenceStep: Step {
    let operation: any Operator
    let inputs: [UnsafePointer<Float>]
    let outputs: [UnsafeMutablePointer<Float>]

    func run() { operation.run(inputs: inputs, outputs: outputs) }

    init(operation: any Operator, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        self.operation = operation
        self.inputs = inputs
        self.outputs = outputs
    }
}

/// What a session runs for one node, as the fast path plans it.
enum NodeWork {
    /// The node's own step; a fused one also writes the values of nodes after it.
    case step(any Step)
    /// A fused step of an earlier node (by index in the graph's nodes) writes this node's value.
    case absorbed(leader: Int)
    /// Nothing moves: the buffer plan laid the node's output where its input already is.
    case view
    /// No fast kernel takes the node: its operator's reference kernel runs it.
    case reference
}
