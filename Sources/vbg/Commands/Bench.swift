import Foundation

/// `vbg bench`: latency benchmarks (release builds with `VBG_ARCH=native`).
let benchCommand = Command(
    name: "bench",
    summary: "benchmark kernels (--kernels) in a release build",
    usage: """
        usage: vbg bench --kernels [--threads 1|2] [--samples N] [--filter TEXT] [--json]

          --kernels   time each SIMD kernel on the model's layer shapes (median µs, GFLOP/s)
          --threads   worker threads (default 1)
          --samples   timed samples per kernel, each ≥ 1 ms (default 31)
          --filter    only kernels whose name contains TEXT
          --json      one JSON object per line
        """,
    flags: ["kernels", "json"]
) { arguments in
    let kernels = try arguments.flag("kernels")
    let threads = try arguments.integer("threads", default: 1, in: 1...2)
    let samples = try arguments.integer("samples", default: 31, in: 1...10_000)
    let filter = try arguments.value("filter")
    let json = try arguments.flag("json")
    try arguments.finish()
    guard kernels else {
        throw CLIError.usage("the model benchmark needs the fast inference path, which is not built yet; use --kernels")
    }
    KernelBenchmark.run(threads: threads, samples: samples, filter: filter, json: json)
}
