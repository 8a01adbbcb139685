import Foundation
import ONNXInference

/// `vbg check MODEL`: runs a model on the fast and the reference paths and says whether they
/// agree; when they do not, which node's value differs first, whether its kernel alone is at
/// fault, or a fusion.
let checkCommand = Command(
    name: "check",
    summary: "compare the fast path with the reference path on a model (exit 1 if they differ)",
    usage: """
        usage: vbg check MODEL [--input NAME=X.npy ...] [--shape NAME=DIMS ...] [--seed N] [--range LO,HI]
                         [--path fast|unfused] [--threads 1|2] [--rtol R] [--atol A]

        Runs MODEL (general, landscape or a path to an .onnx file) on the fast path and on the
        reference path (the scalar kernels written from the ONNX spec) on the same inputs, and
        prints each graph output's relative error, max|fast - reference| / max|reference|. They
        agree when max|fast - reference| <= atol + rtol * max|reference| for every output (NaN
        and infinities must be in the same places).

        When they differ, it runs the fast kernels node by node (no fusion, every intermediate
        kept) and names the first node whose value differs (node, op, value, shape, error), then
        runs each node's fast kernel alone on the reference path's values of its inputs, to tell a
        kernel that is wrong from a difference built up over earlier nodes, and lists the kernels
        that are wrong alone. When every value agrees node by node but the fused run does not, a
        fusion is at fault: each fusion is then run alone and the ones that change the outputs are
        named with the nodes they span.

          --input   NAME=X.npy (or X.npy for a one-input model): the value of a graph input; its
                    shape binds the input's symbolic dims. Inputs not given get random values:
                    float inputs uniform in [LO, HI) (--range, default 0,1) from --seed; an integer
                    or bool input (indices, shapes, counts, masks) cannot be made up and must be
                    given. An input a node needs at plan time (a Reshape's shape) is fixed from it.
          --shape   NAME=DIMS (e.g. input=1x3x64x64): binds the symbolic or unknown dims of an
                    input that gets random values; an unbound leading dim is 1
          --seed    the seed of the random inputs (default 1)
          --range   LO,HI: the range of the random float inputs (default 0,1)
          --path    the run checked against the reference path: fast (default), the fast path as
                    the SDK and vbg run it, fusions and all; or unfused, its kernels node by node
                    (what vbg infer --dump runs)
          --threads threads of the fast kernels (default 1)
          --rtol    relative tolerance (default 1e-4: the fast path's documented bound on whole models)
          --atol    absolute tolerance (default 0)

        Exit status: 0 when the paths agree, 1 when they differ (or the model cannot run),
        2 on a usage error.
        """,
    run: { arguments in
        let modelArgument = try arguments.positionals("MODEL")[0]
        let inputSpecs = try arguments.values("input").map(TensorFile.init)
        let shapes = try ModelArgument.shapes(&arguments)
        let seed = try arguments.integer("seed", default: 1, in: 0...Int.max)
        let range = try parseRange(try arguments.value("range") ?? "0,1")
        let candidate = try PathCheck.Candidate(rawValue: arguments.choice("path", PathCheck.Candidate.allCases.map(\.rawValue), default: "fast"))!
        let threads = try arguments.integer("threads", default: 1, in: 1...64)
        let relative = try tolerance(arguments.value("rtol"), name: "rtol", default: 1e-4)
        let absolute = try tolerance(arguments.value("atol"), name: "atol", default: 0)
        try arguments.finish()

        let bytes: [UInt8]
        do { bytes = try PlannedModel.readFile(ModelArgument.path(for: modelArgument)) } catch { throw CLIError.input(String(describing: error)) }
        let declarations: ModelDeclarations
        do { declarations = try ModelDeclarations(modelData: bytes) } catch { throw CLIError.input(String(describing: error)) }
        let declared = declarations.inputs.map(\.name)
        let feedable = declarations.inputNamesIncludingInitializers
        var given: [String: Tensor] = [:]
        for spec in inputSpecs {
            let name = try spec.name ?? {
                guard inputSpecs.count == 1, declared.count == 1 else {
                    throw CLIError.usage("the model has \(declared.count) inputs (\(declared.joined(separator: ", "))); name each as --input NAME=FILE")
                }
                return declared[0]
            }()
            guard given[name] == nil else { throw CLIError.usage("input '\(name)' is given twice") }
            guard feedable.contains(name) else {
                throw CLIError.usage("the model has no input '\(name)' (inputs: \(declared.joined(separator: ", ")))")
            }
            guard shapes[name] == nil else { throw CLIError.usage("input '\(name)' has both --input and --shape; its file gives its shape") }
            given[name] = try TensorFile.read(spec.file)
        }
        let model: PlannedModel
        do {
            model = try declarations.planned(inputShapes: shapes.merging(given.mapValues(\.shape)) { $1 }, planTimeInputs: given)
        } catch {
            let message = String(describing: error)
            let needsShape = message.contains("give the input's shape") || message.contains("give its shape")
            let needsValue = message.contains("must be a constant")
            throw CLIError.input(message + (needsShape ? " (vbg check: give it with --shape NAME=DIMS or --input NAME=X.npy)" : "")
                                 + (needsValue ? " (vbg check: give a graph input that a node needs at plan time with --input NAME=X.npy)" : ""))
        }
        try ModelArgument.checkShapesNameInputs(shapes, inputNames: model.inputs.map(\.name))

        var random = SplitMix64(seed: UInt64(seed))
        var feeds: [String: Tensor] = [:]
        var described: [String] = []
        for input in model.inputs {
            if let tensor = given[input.name] {
                feeds[input.name] = tensor
                described.append("\(input) from \(inputSpecs.first { ($0.name ?? input.name) == input.name }!.file)")
                continue
            }
            guard input.elementType.isFloatingPoint else {
                throw CLIError.usage("input '\(input.name)' is \(input.elementType.rawValue) \(input.shape): vbg check cannot make up integer or bool values "
                                     + "(indices, shapes, counts, masks must be valid for the model); give them with --input \(input.name)=FILE.npy")
            }
            let values = (0..<input.elementCount).map { _ in range.lower + (range.upper - range.lower) * random.nextUnit() }
            feeds[input.name] = Tensor(elementType: input.elementType, shape: input.shape, doubles: values)
            described.append("\(input) random in [\(TensorDifference.format(range.lower)), \(TensorDifference.format(range.upper))) (--seed \(seed))")
        }
        for name in model.fixedInputs.sorted() { described.append("\(name) fixed at plan time from its file") }

        let check = PathCheck(model: model, feeds: feeds, candidate: candidate, threads: threads,
                              relativeTolerance: relative, absoluteTolerance: absolute)
        let report: PathCheck.Report
        do { report = try check.run() } catch { throw CLIError.input(String(describing: error)) }
        print("model: \(modelArgument)")
        print("inputs: " + described.joined(separator: "; "))
        for line in report.lines(candidate: candidate, threads: threads) { print(line) }
        if !report.agrees {
            let differing = report.outputs.filter { !$0.agrees }.count
            throw CLIError.input("the \(candidate.title) differs from the reference path on \(differing) of \(report.outputs.count) output(s)")
        }
    })

/// `--rtol` / `--atol`: a finite, non-negative number.
private func tolerance(_ text: String?, name: String, default defaultValue: Double) throws -> Double {
    guard let text else { return defaultValue }
    guard let value = Double(text), value.isFinite, value >= 0 else {
        throw CLIError.usage("--\(name) must be a non-negative number such as 1e-4 (got '\(text)')")
    }
    return value
}

/// `--range LO,HI` with LO < HI, both finite.
private func parseRange(_ text: String) throws -> (lower: Double, upper: Double) {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard parts.count == 2, let lower = parts[0], let upper = parts[1], lower.isFinite, upper.isFinite, lower < upper else {
        throw CLIError.usage("--range takes LO,HI with LO < HI, e.g. -1,1 (got '\(text)')")
    }
    return (lower, upper)
}

/// A seeded generator (SplitMix64): the same seed gives the same inputs on every machine.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 random bits.
    mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
