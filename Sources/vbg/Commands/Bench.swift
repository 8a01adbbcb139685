import Foundation

/// `vbg bench`: latency benchmarks (release builds with `VBG_ARCH=native`).
///
/// One command, one mode per flag: `--kernels` (Commands/BenchKernels.swift), `--imaging`
/// (Commands/BenchImaging.swift), `--pipeline` (Commands/BenchPipeline.swift). Without a mode flag
/// it is the model benchmark, which needs the fast inference path.
let benchCommand = Command(
    name: "bench",
    summary: "benchmarks in a release build: --pipeline, --imaging, --kernels",
    usage: """
        usage: vbg bench --pipeline [--json] [--frames N] [--sizes WxH,...] [--intervals 1,3] [--threads 1,2] [--effect blur|replace|both]
               vbg bench --imaging [--json] [--repeat N] [--sizes WxH,...] [--ops a,b,...]
               vbg bench --kernels [--threads 1|2] [--samples N] [--filter TEXT] [--json]

          --pipeline  whole frames through the SDK pipeline (preprocess, inference, upsample,
                      blur level 5 or replacement, composite): median/p10/p90 ms per frame
          --imaging   the imaging operations alone on synthetic frames
          --kernels   time each SIMD kernel on the model's layer shapes (median µs, GFLOP/s)
          --json      one JSON object per line
        """,
    flags: ["kernels", "imaging", "pipeline", "json"]
) { arguments in
    var probe = arguments
    let modes = try ["kernels", "imaging", "pipeline"].filter { try probe.flag($0) }
    guard modes.count <= 1 else {
        throw CLIError.usage("choose one of --kernels, --imaging, --pipeline (got \(modes.map { "--" + $0 }.joined(separator: ", ")))")
    }
    switch modes.first {
    case "imaging": try runImagingBench(&arguments)
    case "pipeline": try runPipelineBench(&arguments)
    case "kernels": try runKernelBench(&arguments)
    default:
        throw CLIError.usage("the model benchmark needs the fast inference path, which is not in this build yet; use --pipeline, --imaging or --kernels")
    }
}

/// `vbg bench --kernels`.
func runKernelBench(_ arguments: inout Arguments) throws {
    _ = try arguments.flag("kernels")
    let threads = try arguments.integer("threads", default: 1, in: 1...2)
    let samples = try arguments.integer("samples", default: 31, in: 1...10_000)
    let filter = try arguments.value("filter")
    let json = try arguments.flag("json")
    try arguments.finish()
    KernelBenchmark.run(threads: threads, samples: samples, filter: filter, json: json)
}
