/// One planned node bound to its buffers, ready to run: the unit an execution path provides.
///
/// Steps are made once per session; `run()` must not allocate.
protocol Step {
    func run()
}

/// Runs a node with its operator's reference (scalar, spec-derived) kernel.
struct ReferenceStep: Step {
    let operation: any Operator
    let inputs: [UnsafePointer<Float>]
    let outputs: [UnsafeMutablePointer<Float>]

    func run() { operation.run(inputs: inputs, outputs: outputs) }
}

/// Makes the step for each planned node of a session.
///
/// The seam between the plan and the kernels: an executor returns nil for a node it has no
/// kernel for, and the session falls back to the `ReferenceExecutor`, per node.
protocol Executor {
    func makeStep(for node: PlannedNode, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>],
                  threads: Int) -> (any Step)?
}

/// The reference path: every node runs its `Operator.run`; the fallback of every other executor.
struct ReferenceExecutor {
    func makeStep(for node: PlannedNode, inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) -> any Step {
        ReferenceStep(operation: node.operation, inputs: inputs, outputs: outputs)
    }
}
