import BuiltinModels
import FramePipeline
import Foundation
import ONNXInference

/// `vbg inspect`: what a model is and what running it costs.
let inspectCommand = Command(
    name: "inspect",
    summary: "show a model's inputs, outputs, ops, parameters, MACs and memory",
    usage: """
        usage: vbg inspect MODEL [--shape NAME=DIMS ...] [--steps] [--time-load]

        MODEL is general, landscape or a path to an .onnx file. Prints inputs and outputs with
        shapes, op counts, parameter count, multiply-accumulates by op type and peak activation
        memory, which nodes the fast path runs on reference (scalar) kernels and their share of the
        MACs, and the segmentation conventions the SDK and vbg read it with (each field with
        where it came from: code, the JSON file MODEL.json beside it, the model's metadata,
        detection from the graph, or the default).
        A model that cannot run gets every problem listed (each node that cannot run with its op,
        domain, opset and reason) and exit status 1, as does a bad description in the JSON file
        or the metadata.
        --shape      NAME=DIMS (e.g. input=1x3x64x64): binds the symbolic or unknown dims of input
                     NAME; an unbound leading dim is 1
        --steps      also list the fast path's steps in order (the lowered graph): each step's
                     kernel and the nodes whose work it does, the first the node it was built for
                     and the others the ones it absorbed; a view (a node that moves nothing) has none
        --time-load  also time reading + parsing + validating + planning (median of 20 runs).
        """,
    flags: ["steps", "time-load"],
    run: { arguments in
        let timesLoad = try arguments.flag("time-load")
        let listsSteps = try arguments.flag("steps")
        let shapes = try ModelArgument.shapes(&arguments)
        let modelArgument = try arguments.positionals("MODEL")[0]
        try arguments.finish()

        let builtin = BuiltinModel(rawValue: modelArgument)
        let path = builtin.map { "built-in model \($0.rawValue)" } ?? modelArgument
        let bytes: [UInt8]
        do { bytes = try builtin?.bytes ?? PlannedModel.readFile(modelArgument) } catch { throw CLIError.input(String(describing: error)) }
        if !shapes.isEmpty {
            let declared: [String]
            do { declared = try ModelDeclarations(modelData: bytes).inputs.map(\.name) } catch { throw CLIError.input(String(describing: error)) }
            for name in shapes.keys.sorted() where !declared.contains(name) {
                throw CLIError.usage("--shape: the model has no input '\(name)' (inputs: \(declared.joined(separator: ", ")))")
            }
        }
        // A segmentation model is planned as its description says (input.size, state, constants)
        // unless --shape binds the inputs.
        let descriptionFile = ModelConvention.descriptionFile(forModelAt: modelArgument)
        let json = builtin == nil ? FileManager.default.contents(atPath: descriptionFile) : nil
        var segmentation: SegmentationModel? = nil
        var segmentationProblem: String? = nil
        if shapes.isEmpty, let parsed = try? ModelDeclarations(modelData: bytes) {
            do throws(SegmentationModel.LoadError) {
                segmentation = try SegmentationModel(parsed: parsed, file: json)
            } catch {
                if case let .description(problem) = error { segmentationProblem = problem.description }
            }
        }
        let model: PlannedModel
        if let segmentation {
            model = segmentation.model
        } else {
            do throws(InferenceError) {
                model = try ModelDeclarations(modelData: bytes).planned(inputShapes: shapes)
            } catch {
                print("model: \(path) (\(bytes.count) bytes)")
                let problems = error.problems.isEmpty ? [error] : error.problems
                print("cannot run (\(problems.count) problem\(problems.count == 1 ? "" : "s")):")
                for line in error.detailedProblemLines { print("  " + line) }
                if error.uncheckedNodeCount > 0 {
                    print("  (\(error.uncheckedNodeCount) more node\(error.uncheckedNodeCount == 1 ? " depends" : "s depend") on \(problems.count == 1 ? "it" : "these") and \(error.uncheckedNodeCount == 1 ? "was" : "were") not checked)")
                }
                let needsShape = problems.contains { $0.message.contains("give the input's shape") || $0.message.contains("give its shape") }
                if let segmentationProblem { print("segmentation: \(segmentationProblem)") }
                throw CLIError.input("the model cannot run (\(problems.count) problem\(problems.count == 1 ? "" : "s"), listed above)"
                                     + (needsShape ? "; give input shapes with --shape NAME=DIMS" : ""))
            }
        }
        print("model: \(path) (\(bytes.count) bytes, opset \(model.opsetVersion))")
        print("inputs:")
        for input in model.inputs { print("  \(input)") }
        print("outputs:")
        for output in model.outputs { print("  \(output)") }
        print("ops (\(model.opCounts.values.reduce(0, +)) nodes):")
        for (op, count) in model.opCounts.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            print("  \(op.padding(toLength: 20, withPad: " ", startingAt: 0))\(count)")
        }
        print("parameters: \(model.parameterCount)")
        print("MACs: \(formatMillions(model.multiplyAccumulates)) per run")
        for (op, macs) in model.macsByOp.sorted(by: { $0.value > $1.value }) where macs > 0 {
            print("  \(op.padding(toLength: 20, withPad: " ", startingAt: 0))\(formatMillions(macs))")
        }
        print(String(format: "peak activation memory: %.2f MiB (%d bytes, with buffer reuse)",
                     Double(model.peakActivationBytes) / 1_048_576, model.peakActivationBytes))
        print(memorySummary(model))
        print("unsupported ops: none")
        for line in fastPathSummary(model) { print(line) }
        if listsSteps { for line in loweredGraph(model) { print(line) } }
        var conventionError: String? = nil
        do throws(SegmentationModelDescription.DescriptionError) {
            let convention: ModelConvention
            if let segmentation { convention = segmentation.convention } else { convention = try ModelConvention(model: model, file: json) }
            print("segmentation\(json == nil ? "" : " (with \(descriptionFile))"):")
            for line in convention.summary { print("  \(line)") }
        } catch {
            if json != nil || model.metadata[ModelConvention.metadataKey] != nil {
                conventionError = error.description
            } else {
                print("segmentation: not usable as is: \(error)")
            }
        }

        if timesLoad {
            var times: [Double] = []
            for _ in 0..<20 {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    let source = try builtin?.bytes ?? PlannedModel.readFile(modelArgument)
                    let loaded: PlannedModel
                    if segmentation != nil {
                        loaded = try SegmentationModel(parsed: ModelDeclarations(modelData: source), file: json).model
                    } else {
                        loaded = try ModelDeclarations(modelData: source).planned(inputShapes: shapes)
                    }
                    _ = try InferenceSession(planned: loaded, options: .init(path: .fast))
                } catch {
                    throw CLIError.input(String(describing: error))
                }
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            let median = (times[9] + times[10]) / 2
            print(String(format: "load (read + parse + validate + plan + session), 20 runs: median %.3f ms, min %.3f ms, max %.3f ms",
                         median, times[0], times[19]))
        }
        if let conventionError { throw CLIError.input(conventionError) }
    })

private func formatMillions(_ value: Int) -> String {
    String(format: "%.2f M", Double(value) / 1e6)
}

/// The fast path's steps for `model` in order, one line each: `  index kernel: node (Op) + node (Op)`,
/// `        view: node (Op)` for a node that moves nothing, after a count of steps, absorbed nodes and views.
func loweredGraph(_ model: PlannedModel) -> [String] {
    let steps: [LoweredStep]
    do { steps = try InferenceSession(planned: model, options: .init(path: .fast)).loweredSteps } catch { return ["steps: \(error)"] }
    let working = steps.filter { $0.kernel != nil }
    let nodeCount = steps.reduce(0) { $0 + $1.nodes.count }
    let absorbed = working.reduce(0) { $0 + $1.nodes.count - 1 }
    var lines = ["steps (fast path, 1 thread): \(working.count) for \(nodeCount) nodes; \(absorbed) absorbed by a fused step, \(steps.count - working.count) view\(steps.count - working.count == 1 ? "" : "s")"]
    var index = 0
    for step in steps {
        let nodes = zip(step.nodes, step.operators).map { "\($0) (\($1))" }.joined(separator: " + ")
        if let kernel = step.kernel {
            let name = kernel.hasSuffix("Step") ? String(kernel.dropLast(4)) : kernel
            lines.append(String(format: "%5d ", index) + "\(name): \(nodes)")
            index += 1
        } else {
            lines.append("      view: \(nodes)")
        }
    }
    return lines
}

/// The fast path's kernels for `model`: the share of the MACs on fast kernels, then each node on
/// a reference kernel with MACs (largest first, with its share), then the others by op.
func fastPathSummary(_ model: PlannedModel) -> [String] {
    let nodes: [NodeKernel]
    do { nodes = try InferenceSession(planned: model, options: .init(path: .fast)).nodeKernels } catch { return ["fast path: \(error)"] }
    let reference = nodes.filter(\.runsOnReference)
    let total = nodes.reduce(0) { $0 + $1.multiplyAccumulates }
    let onReference = reference.reduce(0) { $0 + $1.multiplyAccumulates }
    /// One decimal, without rounding a share that is not 0 or 100 % to one that is.
    func percent(_ macs: Int) -> String {
        let share = total > 0 ? 100 * Double(macs) / Double(total) : 0
        if share > 0, share < 0.05 { return "<0.1%" }
        if share < 100, share >= 99.95 { return ">99.9%" }
        return String(format: "%.1f%%", share)
    }
    var lines = [total > 0
        ? "fast path: \(percent(total - onReference)) of MACs on fast kernels; \(reference.count) of \(nodes.count) nodes on reference kernels"
        : "fast path: no MACs; \(reference.count) of \(nodes.count) nodes on reference kernels"]
    for node in reference.filter({ $0.multiplyAccumulates > 0 }).sorted(by: { $0.multiplyAccumulates > $1.multiplyAccumulates }) {
        lines.append("  \(node.name) (\(node.op)) \(percent(node.multiplyAccumulates)) of MACs")
    }
    let withoutMACs = Dictionary(grouping: reference.filter { $0.multiplyAccumulates == 0 }, by: \.op).mapValues(\.count)
    if !withoutMACs.isEmpty {
        let ops = withoutMACs.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
        lines.append("  without MACs: " + ops.joined(separator: ", "))
    }
    return lines
}

/// What the model and one fast session of it hold in memory, as a segmenter holds them (what
/// `Segmenter.byteCount` counts besides its frame buffers): the model's constants, packed weights
/// and tables (the weights once: the session is the model's only one, which frees the copy its
/// steps packed from), the session's arena, and what its steps own (some workspaces) with the
/// worker pool's scratch (band buffers and zero-bordered copies among them). Later fast sessions of `model` take its packed weights.
func memorySummary(_ model: PlannedModel) -> String {
    let session: InferenceSession
    do { session = try InferenceSession(planned: model, options: .init(path: .fast), isOnlySession: true) } catch { return "memory: \(error)" }
    let mebibytes = { (bytes: Int) in String(format: "%.2f MiB", Double(bytes) / 1_048_576) }
    let (modelBytes, sessionBytes) = (session.modelHeldBytes, session.heldBytes)
    return "memory of the model and one fast session: \(mebibytes(modelBytes + sessionBytes)) (model \(mebibytes(modelBytes)); "
        + "session \(mebibytes(sessionBytes)): arena \(mebibytes(session.arenaBytes)), copies and scratch "
        + "\(mebibytes(sessionBytes - session.arenaBytes)))"
}
