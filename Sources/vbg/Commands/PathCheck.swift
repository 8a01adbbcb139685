import ONNXInference

/// The comparison behind `vbg check`: a model's fast path against its reference path on the same
/// inputs, and, when they differ, where.
///
/// 1. The reference path (every intermediate kept) and the candidate run; each graph output is
///    compared (`TensorDifference`). They agree when every output is within the tolerance.
/// 2. Otherwise the fast kernels run node by node (unfused, every intermediate kept), and every
///    value is compared with the reference path's in execution order: the first that is out of
///    tolerance is the first value that differs.
/// 3. Each node's fast step then runs alone on the reference path's values of its inputs
///    (`InferenceSession.replay(nodeAt:readingInputsFrom:)`): a kernel out of tolerance there is wrong on its own; one within
///    it only passed on a difference built up before it.
/// 4. When the fused candidate differs but every value agrees node by node, a fusion is at fault:
///    each fusion of the fused run is planned alone (`InferenceSession.Fusions.ledBy`) and those
///    whose run changes an output beyond the tolerance are named, with the nodes they span.
struct PathCheck {
    /// The run checked against the reference path.
    enum Candidate: String, CaseIterable, Sendable {
        /// The fast path as the SDK and vbg run it, fusions and all.
        case fast
        /// The fast kernels node by node, every intermediate kept.
        case unfused

        var title: String { self == .fast ? "fast path" : "unfused fast path" }
    }

    var model: PlannedModel
    var feeds: [String: Tensor]
    var candidate: Candidate
    var threads: Int
    var relativeTolerance: Double
    var absoluteTolerance: Double
    /// Makes the fused fast sessions (the candidate `.fast`, and one per fusion when step 4 runs);
    /// nil for sessions of `model`. Only their graph outputs are read, so a test can hand in
    /// sessions of a deliberately different graph with the same output names, standing in for a
    /// fusion that computes something else.
    var makeFusedSession: ((InferenceSession.Fusions) throws -> InferenceSession)? = nil

    /// One value compared: a graph output, or a node's output.
    struct Value {
        var name: String
        var type: ElementType
        var shape: [Int]
        /// nil when the candidate's value has another type or shape.
        var difference: TensorDifference?
        var agrees: Bool
        /// The node computing it, for a node's output: index in `model.runningNodes`, name, op.
        var node: (index: Int, name: String, op: String)?

        var label: String {
            let place = node.map { "node '\($0.name)' (\($0.op)), value '\(name)'" } ?? "output '\(name)'"
            return "\(place) \(type.rawValue) [\(shape.map(String.init).joined(separator: ", "))]"
        }

        var errorText: String { difference.map(\.description) ?? "type or shape differs" }
    }

    /// A fusion that, planned alone, changes an output beyond the tolerance.
    struct Fusion {
        /// The nodes it spans (its leader first): name and op.
        var nodes: [(name: String, op: String)]
        /// The output that differs most, with its difference.
        var worst: Value
    }

    struct Report {
        var outputs: [Value]
        /// Every output within the tolerance.
        var agrees: Bool
        /// Node by node (step 2; nil when the paths agree): every value compared, in execution order.
        var nodeValues: [Value]? = nil
        /// Whether the unfused run's graph outputs agree (step 2).
        var unfusedOutputsAgree: Bool? = nil
        /// The values whose node's fast kernel alone is out of tolerance (step 3), in execution
        /// order, with the difference it makes alone.
        var wrongAlone: [Value] = []
        /// The alone difference of the node computing the first value that differs.
        var firstAlone: Value? = nil
        /// The fusions of the fused run (step 4; nil when not searched) and those at fault.
        var fusionCount: Int? = nil
        var faultyFusions: [Fusion] = []
        var tolerance: String

        var firstDifference: Value? { nodeValues?.first { !$0.agrees } }
    }

    func run() throws -> Report {
        let reference = try InferenceSession(planned: model, options: .init(path: .reference), keepsIntermediates: true)
        let referenceOutputs = try reference.run(inputs: feeds)
        let model = model, fast = InferenceSession.Options(path: .fast, threads: threads)
        let fused = makeFusedSession ?? { fusions in try InferenceSession(planned: model, options: fast, fusions: fusions) }
        var unfused: InferenceSession? = nil
        let candidateOutputs: [String: Tensor]
        switch candidate {
        case .fast:
            candidateOutputs = try fused(.all).run(inputs: feeds)
        case .unfused:
            let session = try InferenceSession(planned: model, options: fast, keepsIntermediates: true)
            candidateOutputs = try session.run(inputs: feeds)
            unfused = session
        }
        let outputs = model.outputs.map { output in
            compare(candidateOutputs[output.name], referenceOutputs[output.name]!, name: output.name, node: nil)
        }
        let tolerance = "max|Δ| <= \(TensorDifference.format(absoluteTolerance)) + \(TensorDifference.format(relativeTolerance)) * max|reference|"
        var report = Report(outputs: outputs, agrees: outputs.allSatisfy(\.agrees), tolerance: tolerance)
        guard !report.agrees else { return report }

        // Step 2: node by node.
        let stepwise: InferenceSession, stepwiseOutputs: [String: Tensor]
        if let unfused {
            (stepwise, stepwiseOutputs) = (unfused, candidateOutputs)
        } else {
            stepwise = try InferenceSession(planned: model, options: fast, keepsIntermediates: true)
            stepwiseOutputs = try stepwise.run(inputs: feeds)
        }
        report.unfusedOutputsAgree = model.outputs.allSatisfy { output in
            compare(stepwiseOutputs[output.name], referenceOutputs[output.name]!, name: output.name, node: nil).agrees
        }
        let nodes = model.runningNodes
        var values: [Value] = []
        for (index, node) in nodes.enumerated() {
            for name in node.outputs {
                guard let expected = reference.value(named: name) else { continue }
                values.append(compare(stepwise.value(named: name), expected, name: name, node: (index, node.name, node.op)))
            }
        }
        report.nodeValues = values

        // Step 3: each kernel alone on the reference path's inputs (after step 2 read every value,
        // since a replay overwrites the node's values in `stepwise`).
        let firstIndex = report.firstDifference?.node?.index
        for (index, node) in nodes.enumerated() {
            let alone = stepwise.replay(nodeAt: index, readingInputsFrom: reference)
            for (name, tensor) in zip(node.outputs, alone) {
                guard let expected = reference.value(named: name) else { continue }
                let value = compare(tensor, expected, name: name, node: (index, node.name, node.op))
                if !value.agrees { report.wrongAlone.append(value) }
                if index == firstIndex, name == report.firstDifference?.name { report.firstAlone = value }
            }
        }

        // Step 4: a fusion, when the fused run differs and nothing differs node by node.
        guard candidate == .fast, report.firstDifference == nil, report.unfusedOutputsAgree == true else { return report }
        // Every fusion of the graph as written (a session of all fusions may run the rewritten
        // fast graph, whose nodes are not `nodes`).
        let spans = try fused(.ledBy(Set(nodes.indices))).fusionSpans
        report.fusionCount = spans.count
        for span in spans {
            let alone = try fused(.ledBy([span[0]]))
            let results = try alone.run(inputs: feeds)
            let compared = model.outputs.map { output in
                compare(results[output.name], referenceOutputs[output.name]!, name: output.name, node: nil)
            }
            guard let worst = compared.filter({ !$0.agrees }).max(by: { ($0.difference?.relative ?? .infinity) < ($1.difference?.relative ?? .infinity) }) else { continue }
            let planned = alone.fusionSpans.first ?? span
            report.faultyFusions.append(Fusion(nodes: planned.map { (nodes[$0].name, nodes[$0].op) }, worst: worst))
        }
        return report
    }

    private func compare(_ actual: Tensor?, _ expected: Tensor, name: String, node: (index: Int, name: String, op: String)?) -> Value {
        let difference = actual.flatMap { TensorDifference($0, expected) }
        let agrees = difference?.agrees(relativeTolerance: relativeTolerance, absoluteTolerance: absoluteTolerance) ?? false
        return Value(name: name, type: expected.elementType, shape: expected.shape, difference: difference, agrees: agrees, node: node)
    }
}

extension PathCheck.Report {
    /// What `vbg check` prints.
    func lines(candidate: PathCheck.Candidate, threads: Int) -> [String] {
        var lines = ["\(candidate.title) (\(threads) thread\(threads == 1 ? "" : "s")) against the reference path; agree when \(tolerance):"]
        for output in outputs {
            lines.append("  \(output.label): \(output.errorText)  \(output.agrees ? "agrees" : "DIFFERS")")
        }
        guard !agrees else {
            lines.append("result: the paths agree on every output")
            return lines
        }
        lines.append("result: the paths differ on \(outputs.filter { !$0.agrees }.count) of \(outputs.count) output(s)")
        guard let values = nodeValues else { return lines }
        let differing = values.filter { !$0.agrees }
        let unfusedOutputs = unfusedOutputsAgree == true ? "agree" : "differ"
        lines.append("node by node (the fast kernels unfused, every intermediate kept; its outputs \(unfusedOutputs)): "
                     + "\(differing.count) of \(values.count) values differ")
        if let first = firstDifference {
            lines.append("first value that differs: \(first.label): \(first.errorText)")
            if let alone = firstAlone {
                lines.append("  its fast kernel alone, on the reference path's values of its inputs: \(alone.errorText)")
                lines.append(alone.agrees
                    ? "  within the tolerance alone: the difference built up over the nodes before it"
                    : "  out of tolerance alone: this node's fast kernel is at fault")
            }
        }
        if !wrongAlone.isEmpty {
            lines.append("fast kernels that differ alone, on the reference path's values of their inputs: \(wrongAlone.count)")
            for value in wrongAlone.prefix(20) { lines.append("  \(value.label): \(value.errorText)") }
            if wrongAlone.count > 20 { lines.append("  (\(wrongAlone.count - 20) more)") }
        } else if firstDifference != nil {
            lines.append("no fast kernel differs alone: the difference is built up over many nodes")
        }
        if let fusionCount {
            lines.append("every value agrees node by node, so a fusion is at fault; each of the \(fusionCount) fusions run alone:")
            if faultyFusions.isEmpty {
                lines.append("  none changes the outputs alone: they differ only with several fusions together")
            }
            for fusion in faultyFusions {
                let nodes = fusion.nodes.map { "'\($0.name)' (\($0.op))" }.joined(separator: ", ")
                lines.append("  the fusion of \(nodes): \(fusion.worst.label): \(fusion.worst.errorText)")
            }
        }
        return lines
    }
}
