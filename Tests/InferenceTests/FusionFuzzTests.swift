import Foundation
import Testing
import TestSupport
@testable import Inference

/// Random graphs around each fusion rule's pattern and its near misses (`FusionFuzzer`), run on
/// the fast path (fused, 1 and 2 threads, two inputs in a row) and on the reference path.
///
/// Tolerance: every output within 1e-5 · max(max|reference|, 1). 1e-5 is `Docs/Numerics.md`'s
/// bound for one node: a fused step reorders the sums of one convolution of at most a few
/// thousand products (`FuzzSize.maximumFanIn`), which moves a result by a few ulps of its
/// largest partial sum (a BatchNormalization folded into the weights, a residual added in the
/// store, a 1x1 moved before a bilinear resize change only the order). Here the inputs are in
/// [-1, 1) and every weight is scaled by its fan-in, so the partial sums are of size 1 even where
/// an output cancels to a small value (a one-pixel 9x9 convolution of -0.0079 is 5.5e-8 off, 7e-6
/// of itself): hence the floor of 1. A fusion that computes something else (another activation,
/// a missed reader, a wrong border) is off by 1e-3 to 1; the passing graphs' worst is printed per
/// family.
///
/// A failing graph is written to `$TMPDIR/vbg-fusion-fuzz/` (the path is printed with the seed);
/// `VBG_FUZZ_CASE=FAMILY:SEED` runs that one case, `VBG_FUZZ_CASES=N` draws N per family.
@Suite("Fusion fuzz: random graphs around every fusion rule and its near misses, fast path against the reference path")
struct FusionFuzzTests {
    static let seed = TestRun.seed("FusionFuzzTests", default: 23)
    static let size = TestRun.isLong ? FuzzSize.long : .quick
    static let casesPerFamily = ProcessInfo.processInfo.environment["VBG_FUZZ_CASES"].flatMap { Int($0) }
        ?? (TestRun.isLong ? 300 : 10)
    static let tolerance: Float = 1e-5

    @Test("each family's random graphs: the fast path within 1e-5 · max(max|reference|, 1), 1 and 2 threads bit-identical, and the pattern fuses in some",
          arguments: FusionFamily.allCases)
    func family(_ family: FusionFamily) throws {
        var seeds = (0..<Self.casesPerFamily).map { index in
            SeededGenerator.caseSeed(base: Self.seed, index: FusionFamily.allCases.firstIndex(of: family)! << 32 | index)
        }
        let only = ProcessInfo.processInfo.environment["VBG_FUZZ_CASE"]?.split(separator: ":")
        if let only {
            guard only.count == 2, only[0] == family.rawValue, let seed = UInt64(only[1]) else { return }
            seeds = [seed]
        }
        var fired = 0, failed = 0, nodes = 0
        var worst: Float = 0
        for seed in seeds {
            let fuzzCase = FusionFuzzer.make(family, seed: seed, size: Self.size)
            nodes += fuzzCase.graph.nodes.count
            let outcome = FusionFuzzRunner.check(fuzzCase, tolerance: Self.tolerance)
            if outcome.fired { fired += 1 }
            worst = max(worst, outcome.worst)
            if let failure = outcome.failure {
                failed += 1
                let file = FusionFuzzRunner.write(fuzzCase)
                Issue.record("""
                    \(family) case seed \(seed) (suite seed \(Self.seed); replay: VBG_FUZZ_CASE=\(family.rawValue):\(seed)\(TestRun.isLong ? " VBG_LONG_TESTS=1" : "")): \(failure)
                    graph written to \(file)
                    \(fuzzCase.graph.description)
                    """)
            }
        }
        print("FusionFuzzTests \(family): \(seeds.count) graphs (\(nodes) nodes), the pattern fused in \(fired), \(failed) failed; "
              + "worst difference of the others \(worst) of max(max|reference|, 1)")
        if only == nil { #expect(fired > 0, "no graph of \(family) fused its pattern: the generator misses the rule") }
    }
}

enum FusionFuzzRunner {
    struct Outcome {
        /// Whether a fast layer shows the family's fusion.
        var fired = false
        /// The largest difference of any output, in units of max(max|reference|, 1).
        var worst: Float = 0
        var failure: String? = nil
    }

    /// Runs the case on the reference path and on the fused fast path with 1 and 2 threads, on
    /// two inputs one after the other (a step that leaves state behind shows on the second).
    static func check(_ fuzzCase: FuzzCase, tolerance: Float) -> Outcome {
        let graph = fuzzCase.graph
        var outcome = Outcome()
        let model: InferenceModel
        do { model = try InferenceModel(bytes: graph.bytes) } catch {
            outcome.failure = "the model does not load: \(error)"
            return outcome
        }
        var random = SeededGenerator(seed: fuzzCase.seed ^ 0x1234_5678_9ABC_DEF0)
        let feeds = (0..<2).map { _ in
            Dictionary(uniqueKeysWithValues: graph.inputs.map { name in
                (name, (0..<graph.shapes[name]!.reduce(1, *)).map { _ in random.float(-1, 1) })
            })
        }
        do {
            let reference = try InferenceSession(model: model, path: .reference)
            let expected = try feeds.map { try reference.run(inputs: $0) }
            var byThreads: [[[Float]]] = []
            for threads in [1, 2] {
                let fast = try InferenceSession(model: model, path: .fast, threads: threads)
                var results: [[Float]] = []
                for (run, feed) in feeds.enumerated() {
                    let actual = try outputs(of: fast, feed, graph)
                    for (name, values) in zip(graph.outputs, actual) {
                        let difference = Difference(values, expected[run][name]!)
                        let error = difference.maxAbsolute / max(difference.referenceScale, 1)
                        if !(error <= tolerance) {
                            outcome.failure = "output \(name) \(graph.shapes[name]!), \(threads) thread(s), run \(run + 1): \(difference)"
                            return outcome
                        }
                        outcome.worst = max(outcome.worst, error)
                        results.append(values)
                    }
                }
                byThreads.append(results)
                if threads == 1 { outcome.fired = fuzzCase.family.fired(layers(of: fast)) }
            }
            if !zip(byThreads[0], byThreads[1]).allSatisfy({ $0.elementsEqual($1) { $0.bitPattern == $1.bitPattern } }) {
                outcome.failure = "1 and 2 threads give different outputs"
            }
        } catch {
            outcome.failure = "a session fails: \(error)"
        }
        return outcome
    }

    /// The operators of each layer of a fast session (the graph it runs, rewritten or not): a
    /// step's node and the nodes after it that have no step because it did their work (as
    /// `profileLayers` groups them). A layer on a reference kernel names its operator
    /// "reference Op", which no family's fusion matches.
    static func layers(of session: InferenceSession) -> [[String]] {
        session.layers.map { layer in
            let onReference = layer.step.map { session.steps[$0] is ReferenceStep } ?? false
            return layer.nodes.map { (onReference ? "reference " : "") + session.graph.nodes[$0].opType }
        }
    }

    /// Every graph output, in order: through `run(input:output:outputAt:)` (the entry point that
    /// may read the caller's buffer) when the graph has one input, else `run(inputs:)`.
    static func outputs(of session: InferenceSession, _ feed: [String: [Float]], _ graph: FuzzGraph) throws -> [[Float]] {
        guard graph.inputs.count == 1 else {
            let results = try session.run(inputs: feed)
            return graph.outputs.map { results[$0]! }
        }
        let input = feed[graph.inputs[0]]!
        return try graph.outputs.indices.map { index in
            var output = [Float](repeating: .nan, count: graph.shapes[graph.outputs[index]]!.reduce(1, *))
            try input.withUnsafeBufferPointer { source in
                try output.withUnsafeMutableBufferPointer { try session.run(input: source, output: $0, outputAt: index) }
            }
            return output
        }
    }

    /// Writes the case's model to `$TMPDIR/vbg-fusion-fuzz/FAMILY-SEED.onnx` and returns the path.
    static func write(_ fuzzCase: FuzzCase) -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vbg-fusion-fuzz")
        let file = folder.appendingPathComponent("\(fuzzCase.family.rawValue)-\(fuzzCase.seed).onnx")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(fuzzCase.graph.bytes).write(to: file)
        } catch {
            return "(not written: \(error))"
        }
        return file.path
    }
}
