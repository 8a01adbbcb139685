import Inference
import NumpyFormat

/// `vbg infer`: runs a model on one `.npy` tensor and writes its output as `.npy`.
let inferCommand = Command(
    name: "infer",
    summary: "run a model on a .npy tensor, write its output as .npy",
    usage: """
        usage: vbg infer --model general|landscape|PATH --input X.npy --output Y.npy [--path reference|fast]

        Runs the graph on the model's own input layout (the built-in models take float32
        [1, H, W, 3] NHWC RGB in [0, 1]) and writes the graph's output (float32). The input's
        shape must equal the model's input shape. --path picks the kernels (default fast).
        """,
    run: { arguments in
        guard let modelArgument = try arguments.value("model") else { throw CLIError.usage("--model is required") }
        guard let inputPath = try arguments.value("input") else { throw CLIError.usage("--input is required") }
        guard let outputPath = try arguments.value("output") else { throw CLIError.usage("--output is required") }
        let path = ExecutionPath(rawValue: try arguments.choice("path", ExecutionPath.allCases.map(\.rawValue), default: "fast"))!
        _ = try arguments.positionals()
        try arguments.finish()

        let model = try ModelArgument.load(modelArgument)
        guard model.inputs.count == 1, model.outputs.count == 1 else {
            throw CLIError.input("the model has \(model.inputs.count) inputs and \(model.outputs.count) outputs; infer runs single-input, single-output models")
        }
        let input: [Float]
        do {
            let array = try NumpyArray(contentsOfFile: inputPath)
            guard array.shape == model.inputs[0].shape else {
                throw CLIError.input("\(inputPath) has shape \(array.shape), the model's input '\(model.inputs[0].name)' is \(model.inputs[0].shape)")
            }
            input = try array.floats()
        } catch let error as NumpyError {
            throw CLIError.input(error.message)
        }
        var output = [Float](repeating: 0, count: model.outputs[0].elementCount)
        do {
            let session = try InferenceSession(model: model, path: path)
            try input.withUnsafeBufferPointer { source throws(ModelError) in
                try output.withUnsafeMutableBufferPointer { destination throws(ModelError) in
                    try session.run(input: source, output: destination)
                }
            }
        } catch {
            throw CLIError.input(String(describing: error))
        }
        let result = NumpyArray(shape: model.outputs[0].shape, floats: output)
        try OutputFile.write(outputPath) { temporary in
            do { try result.write(toFile: temporary) } catch { throw CLIError.input(String(describing: error)) }
        }
    })
