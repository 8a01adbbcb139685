import CPUSupport
import Dispatch
import Foundation
import ONNXInference

/// `vbg bench`: latency benchmarks (release builds with `VBG_ARCH=native`).
///
/// One command, one mode per flag: `--pipeline` (Commands/BenchPipeline.swift), `--imaging`
/// (Commands/BenchImaging.swift), `--kernels` (Commands/BenchKernels.swift). Without a mode flag it
/// times the forward pass of a model (``runModelBench(_:)``).
let benchCommand = Command(
    name: "bench",
    summary: "benchmarks in a release build: the forward pass, --pipeline, --imaging, --kernels",
    usage: """
        usage: vbg bench [--model general|landscape|PATH] [--shape NAME=DIMS ...] [--threads 1|2] [--iterations N]
                         [--path fast|reference] [--per-layer] [--json]
               vbg bench --pipeline [--json] [--frames N] [--warmup N] [--sizes WxH,...] [--intervals 1,3]
                         [--threads 1,2] [--effects blur,replace] [--level N] [--model M] [--image PNG] [--background PNG]
               vbg bench --imaging [--json] [--repeat N] [--sizes WxH,...] [--ops a,b,...]
               vbg bench --kernels [--threads 1|2] [--samples N] [--filter TEXT] [--json]

        The forward pass (no mode flag):
          --model       the model to run (default general): any model that loads. Every graph input
                        gets noise of its shape, uniform in [0, 1) (float inputs) or zeros (integer
                        and bool inputs); the outputs are discarded
          --shape       NAME=DIMS (e.g. input=1x3x64x64): binds the symbolic or unknown dims of input
                        NAME, as vbg infer binds them from its .npy files; an unbound leading dim is 1
          --threads     kernel threads (default 1)
          --iterations  timed forward passes after 20 warm-up runs (default 300)
          --path        fast (SIMD kernels, default) or reference (scalar)
          --per-layer   also time each layer (a fused step and the ONNX nodes it covers): median
                        time, GFLOP/s and share of the summed layer times, slowest first (models
                        with one float32 input and one float32 output)
          --json        one JSON object per line: model, threads, median_ms, p10_ms, p90_ms, ...
          Wall-clock times; with 1 thread the thread's CPU time is reported too (cpu_median_ms), which
          leaves out time the process was descheduled on a busy machine.

        --pipeline  whole frames through the SDK pipeline `vbg video` uses (preprocessing, inference,
                    upsampling, smoothing, blur level 5 or replacement, compositing), every
                    combination of size x effect x interval x threads (defaults 1280x720,1920x1080;
                    blur,replace; 1,3; 1,2): median, p10, p90 and mean ms per frame. The frame is
                    --image cover-fitted to each size, the replacement --background. Without them,
                    the repository's pictures when run from its root (Fixtures/images/
                    astronaut_on_coffee_1280x720.png, Fixtures/backgrounds/rocket.png), else
                    pictures drawn by vbg ("synthetic" in the output)
        --imaging   the imaging operations alone on synthetic frames
        --kernels   each SIMD kernel on the model's layer shapes (median µs, GFLOP/s)
        """,
    flags: ["kernels", "imaging", "pipeline", "json", "per-layer"]
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
    default: try runModelBench(&arguments)
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

/// `vbg bench` without a mode flag: the forward pass of one model on noise.
///
/// Any model that loads: every graph input gets noise of its shape (dims that are symbolic or
/// unknown bound as `vbg infer` binds them: from `--shape NAME=DIMS`, the leading one otherwise 1),
/// uniform in [0, 1) for float inputs and zeros for integer and bool ones (a valid index, count or
/// flag for any op); the outputs are discarded. A model with one float32 input and a float32
/// first output runs through the session's allocation-free call, any other through `run(_:)`.
func runModelBench(_ arguments: inout Arguments) throws {
    let threads = try arguments.integer("threads", default: 1, in: 1...2)
    let json = try arguments.flag("json")
    let modelArgument = try arguments.value("model") ?? "general"
    let iterations = try arguments.integer("iterations", default: 300, in: 1...1_000_000)
    let pathName = try arguments.choice("path", ["fast", "reference"], default: "fast")
    let perLayer = try arguments.flag("per-layer")
    let inputShapes = try ModelArgument.shapes(&arguments)
    try arguments.finish()
    let model = try ModelArgument.load(modelArgument, inputShapes: inputShapes, shapeHint: "vbg bench: give it with --shape NAME=DIMS")
    try ModelArgument.checkShapesNameInputs(inputShapes, inputNames: model.inputs.map(\.name))
    guard !model.inputs.isEmpty, !model.outputs.isEmpty else {
        throw CLIError.input("the model has no graph input to feed (all its values are constants)")
    }
    let session: ONNXInference.InferenceSession
    do {
        session = try ONNXInference.InferenceSession(planned: model, options: .init(path: pathName == "fast" ? .fast : .reference, threads: threads))
    } catch {
        throw CLIError.input(error.description)
    }
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func noise(_ count: Int) -> [Float] {
        (0..<count).map { _ -> Float in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
    }
    let feeds = Dictionary(uniqueKeysWithValues: model.inputs.map { input in
        (input.name, benchTensor(input, noise: noise(isInteger(input.elementType) ? 0 : input.elementCount)))
    })
    let direct = model.inputs.count == 1 && model.inputs[0].elementType == .float32 && model.outputs[0].elementType == .float32
    guard !perLayer || (direct && model.outputs.count == 1) else {
        throw CLIError.usage("--per-layer needs a model with one float32 input and one float32 output")
    }
    let input = direct ? try feeds[model.inputs[0].name]!.scalars(as: Float.self) : []
    var output = [Float](repeating: 0, count: direct ? model.outputs[0].elementCount : 0)
    var wall: [Double] = [], cpu: [Double] = []
    try input.withUnsafeBufferPointer { source in
        try output.withUnsafeMutableBufferPointer { destination in
            func run() throws {
                if direct { try session.run(input: source, output: destination, outputAt: 0) } else { _ = try session.run(inputs: feeds) }
            }
            for _ in 0..<20 { try run() }
            wall.reserveCapacity(iterations)
            cpu.reserveCapacity(iterations)
            for _ in 0..<iterations {
                let cpuStart = KernelBenchmark.threadCPUTime()
                let start = DispatchTime.now().uptimeNanoseconds
                try run()
                wall.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                cpu.append(Double(KernelBenchmark.threadCPUTime() - cpuStart) / 1e6)
            }
        }
    }
    var layers: [LayerProfile] = []
    if perLayer {
        try input.withUnsafeBufferPointer { source in
            try output.withUnsafeMutableBufferPointer { destination in
                layers = try session.profileLayers(input: source, output: destination, runs: iterations)
            }
        }
    }
    wall.sort()
    cpu.sort()
    func percentile(_ values: [Double], _ p: Double) -> Double { values[min(values.count - 1, Int(Double(values.count) * p))] }
    let name = BuiltinModelName(modelArgument)
    let gflops = 2 * Double(model.multiplyAccumulates) / (percentile(wall, 0.5) * 1e6)
    if json {
        print("{\"model\":\"\(name)\",\"path\":\"\(pathName)\",\"threads\":\(session.options.threads),"
              + "\"iterations\":\(iterations),\"median_ms\":\(fmt(percentile(wall, 0.5))),"
              + "\"p10_ms\":\(fmt(percentile(wall, 0.1))),\"p90_ms\":\(fmt(percentile(wall, 0.9))),"
              + "\"cpu_median_ms\":\(fmt(percentile(cpu, 0.5))),\"gflops\":\(String(format: "%.1f", gflops)),"
              + "\"build\":\"\(CPUSupport.buildDescription)\"}")
    } else {
        print("\(name), \(pathName) path, \(session.options.threads) thread(s), build \(CPUSupport.buildDescription), \(iterations) runs")
        print("inputs: " + model.inputs.map { "\($0) \(isInteger($0.elementType) ? "zeros" : "noise in [0, 1)")" }.joined(separator: "; ")
              + (direct ? "" : " (through run(inputs:), which copies the inputs in and every output out)"))
        print("median \(fmt(percentile(wall, 0.5))) ms (p10 \(fmt(percentile(wall, 0.1))), p90 \(fmt(percentile(wall, 0.9)))), "
              + "thread CPU median \(fmt(percentile(cpu, 0.5))) ms, \(String(format: "%.1f", gflops)) GFLOP/s (convolution MACs)")
    }
    if perLayer { printLayers(layers, model: name, threads: session.options.threads, json: json) }
}

/// The tensor a benchmark feeds `input`: `noise` (its element count of values in [0, 1)) for a
/// float input, zeros for an integer or bool one.
private func benchTensor(_ input: PlannedTensor, noise: [Float]) -> ONNXInference.Tensor {
    switch input.elementType {
    case .float32:
        return ONNXInference.Tensor(shape: input.shape, scalars: noise)
    case .float64:
        return ONNXInference.Tensor(shape: input.shape, elementType: .float64, bytes: noise.flatMap { value in
            withUnsafeBytes(of: Double(value).bitPattern.littleEndian) { Array($0) }
        })
    case .float16:
        // x in [0, 1) as binary16: 2^-24 resolution is far below the noise's; truncation is fine.
        return ONNXInference.Tensor(shape: input.shape, elementType: .float16, bytes: noise.flatMap { value in
            let bits = value.bitPattern, exponent = Int((bits >> 23) & 0xFF) - 127
            let half: UInt16 = exponent < -14 ? 0 : UInt16(exponent + 15) << 10 | UInt16((bits >> 13) & 0x3FF)
            return [UInt8(half & 0xFF), UInt8(half >> 8)]
        })
    default:
        return ONNXInference.Tensor(zeros: input.elementType, shape: input.shape)
    }
}

/// Whether `type` holds integers or booleans (a benchmark feeds those zeros).
private func isInteger(_ type: ONNXInference.ElementType) -> Bool { ![.float32, .float16, .float64].contains(type) }

/// `--per-layer`: one line per layer, slowest first, with its share of the summed layer times.
private func printLayers(_ layers: [LayerProfile], model: String, threads: Int, json: Bool) {
    let total = layers.reduce(0) { $0 + $1.seconds }
    func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    }
    if !json {
        print("per layer (median of each layer over the runs; sum \(fmt(total * 1e3)) ms):")
        print("   index      µs  GFLOP/s  share  operators (reference: no fast kernel took it) / ONNX nodes")
    }
    for (index, layer) in layers.enumerated().sorted(by: { $0.element.seconds > $1.element.seconds }) {
        let gflops = layer.seconds > 0 ? 2 * Double(layer.multiplyAccumulates) / layer.seconds / 1e9 : 0
        let share = total > 0 ? layer.seconds / total : 0
        if json {
            let nodes = layer.nodes.map { "\"\(escaped($0))\"" }.joined(separator: ",")
            let ops = layer.operators.map { "\"\($0)\"" }.joined(separator: ",")
            print("{\"model\":\"\(model)\",\"threads\":\(threads),\"layer\":\(index),\"operators\":[\(ops)],"
                  + "\"nodes\":[\(nodes)],\"us\":\(String(format: "%.2f", layer.seconds * 1e6)),"
                  + "\"gflops\":\(String(format: "%.1f", gflops)),\"share\":\(String(format: "%.4f", share)),"
                  + "\"reference\":\(layer.runsOnReference)}")
        } else {
            print(String(format: "%8d %7.1f %8.1f %5.1f%%  ", index, layer.seconds * 1e6, gflops, share * 100)
                  + layer.operators.joined(separator: "+") + (layer.runsOnReference ? " (reference)" : "") + "  "
                  + layer.nodes.joined(separator: ", "))
        }
    }
}

private func fmt(_ value: Double) -> String { String(format: "%.4f", value) }

/// The name printed for a model argument: the built-in name, or the file name.
private func BuiltinModelName(_ argument: String) -> String {
    ["general", "landscape"].contains(argument) ? argument : (argument as NSString).lastPathComponent
}
