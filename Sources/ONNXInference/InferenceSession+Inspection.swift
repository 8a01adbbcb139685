import Inference

// The package-only introspection of a session made by `init(planned:options:keepsIntermediates:fusions:)`:
// values by name after a run, one node's kernel alone, the fusions (`vbg check`), the kernel of
// each node (`vbg inspect`) and per-layer timing (`vbg bench --per-layer`). Not public: an app
// observes values with `run(inputs:observing:)`.

extension InferenceSession {
    /// Which fusions across nodes a fast session of a planned model plans.
    package enum Fusions: Sendable, Equatable {
        /// Every fusion the fast path's rules find (what the SDK runs).
        case all
        /// Only those led by these nodes (indices into `PlannedModel.runningNodes`); every other
        /// node runs its single-node step.
        case ledBy(Set<Int>)

        var engine: Inference.InferenceSession.Fusions {
            switch self {
            case .all: .all
            case let .ledBy(leaders): .ledBy(leaders)
            }
        }
    }

    private var plannedEngine: Inference.InferenceSession {
        guard let pinned else { preconditionFailure("introspection needs a session made by init(planned:options:)") }
        return pinned
    }

    /// The value named `name` after the last run: any value when the session keeps its
    /// intermediates, otherwise only graph outputs and constants; nil for unknown names, for
    /// values whose buffer was reused and for values folded away when the model was planned.
    package func value(named name: String) -> Tensor? {
        plannedEngine.tensor(named: name).map(Tensor.init)
    }

    /// Runs the kernel of one node alone on the values its inputs have in `source` (after
    /// `source`'s last run) and returns its outputs: one kernel against another on the same
    /// inputs, whatever the nodes before computed. This session's other values are unchanged.
    ///
    /// - Parameters:
    ///   - index: the node's index in `PlannedModel.runningNodes`.
    ///   - source: another session of the same planned model.
    /// - Precondition: both sessions keep their intermediates and were made from one `PlannedModel`.
    package func replay(nodeAt index: Int, readingInputsFrom source: InferenceSession) -> [Tensor] {
        plannedEngine.replay(nodeAt: index, readingInputsFrom: source.plannedEngine).map(Tensor.init)
    }

    /// The nodes the session runs (folded ones excluded), in execution order, with their output
    /// names: `PlannedModel.runningNodes`, or the rewritten fast graph's in a fast session of
    /// every fusion (`Docs/Inference.md`, the fast graph).
    package var runningNodes: [(name: String, op: String, outputs: [String])] { plannedEngine.runningNodes }

    /// Each fusion the session runs: the index of the node leading it, then those of the nodes
    /// whose work its step does; empty on the reference path and in sessions that keep their
    /// intermediates. Indices are into `PlannedModel.runningNodes` for sessions led by chosen
    /// nodes; a session of every fusion may run the rewritten fast graph (`loweredSteps` names
    /// its nodes).
    package var fusionSpans: [[Int]] { plannedEngine.fusionSpans }

    /// Each node the session runs (folded ones excluded), in execution order, with its
    /// multiply-accumulates and whether its operator's reference kernel runs it (a node whose
    /// work a fused step does counts as fast).
    package var nodeKernels: [NodeKernel] {
        plannedEngine.nodeKernels.map { NodeKernel(name: $0.name, op: $0.op, multiplyAccumulates: $0.multiplyAccumulates,
                                                   runsOnReference: $0.runsOnReference) }
    }

    /// The graph as the session runs it (what `vbg inspect --steps` prints): each step with its
    /// kernel and the nodes whose work it does, in execution order, views included.
    package var loweredSteps: [LoweredStep] {
        let nodes = plannedEngine.runningNodes
        return plannedEngine.loweredSteps.map { entry in
            LoweredStep(kernel: entry.kernel, nodes: entry.nodes.map { nodes[$0].name }, operators: entry.nodes.map { nodes[$0].op })
        }
    }

    /// Runs a model with one float32 input and one float32 output `runs` times and times every
    /// layer: each step the session runs, with the nodes whose work it does. Allocates (a tool's
    /// measurement, not the per-frame path).
    ///
    /// - Returns: the layers in execution order with the median wall time of each.
    /// - Throws: as `run(input:output:outputAt:)`.
    package func profileLayers(input: UnsafeBufferPointer<Float>, output: UnsafeMutableBufferPointer<Float>,
                               runs: Int) throws(InferenceError) -> [LayerProfile] {
        do {
            return try plannedEngine.profileLayers(input: input, output: output, runs: runs).map { layer in
                LayerProfile(nodes: layer.nodes, operators: layer.operators, multiplyAccumulates: layer.multiplyAccumulates,
                             seconds: layer.seconds, runsOnReference: layer.runsOnReference)
            }
        } catch {
            throw InferenceError(error)
        }
    }
}

/// One layer of a profiled run (`InferenceSession.profileLayers`): a step and the nodes it covers.
package struct LayerProfile: Sendable {
    /// The node names, the first the node whose step does the work.
    package var nodes: [String]
    /// The nodes' operator types, in the order of `nodes`.
    package var operators: [String]
    /// Multiply-accumulates of the covered nodes (convolutions; 0 for elementwise work).
    package var multiplyAccumulates: Int
    /// Median wall time of the layer, in seconds.
    package var seconds: Double
    /// Whether the layer runs on its operator's reference kernel.
    package var runsOnReference: Bool
}

/// One step of a session and the nodes it runs (`InferenceSession.loweredSteps`).
package struct LoweredStep: Sendable {
    /// The step's type (`ReferenceStep`: the operator's reference kernel); nil for a view, a node
    /// whose output already lies where its input is, which has no step.
    package var kernel: String?
    /// The node names, the first the node the step was built for, the others those it absorbed.
    package var nodes: [String]
    /// The nodes' operator types, in the order of `nodes`.
    package var operators: [String]
}

/// A node of a session and the kind of kernel that runs it (`InferenceSession.nodeKernels`).
package struct NodeKernel: Sendable {
    package var name: String
    package var op: String
    /// Multiply-accumulates per run (convolutions, Gemm, MatMul; 0 for other ops).
    package var multiplyAccumulates: Int
    /// The node's step is its operator's reference (scalar) kernel.
    package var runsOnReference: Bool
}
