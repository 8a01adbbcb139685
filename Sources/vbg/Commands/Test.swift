import Foundation
import ONNXInference

/// `vbg test`: runs onnx's backend-test data of model directories and compares the outputs, as
/// onnx's runner does.
let testCommand = Command(
    name: "test",
    summary: "run onnx test data (model.onnx + test_data_set_N/*.pb) and compare the outputs",
    usage: """
        usage: vbg test DIR ... [--rtol R] [--atol A] [--path fast|reference] [--threads 1|2]

        Runs every test_data_set_N of each model directory in onnx's layout (model.onnx beside
        test_data_set_N/input_K.pb and output_K.pb, serialized TensorProtos, as onnx's backend
        node tests and the model zoo ship them) and compares every output with the expected one:
        an element passes when |actual - expected| <= atol + rtol * |expected| (NaN equals NaN),
        integers and bools included. Defaults: onnx's runner's rtol 1e-3 and atol 1e-7, the fast
        path.

        Prints a line per data set (pass or FAIL, and for a failure the output, how many elements
        differ, the largest error and where). Exit status: 0 when every data set passes, 1 when an
        output differs or a model cannot run, 2 on a usage error.
        """,
    run: { arguments in
        let rtol = try arguments.double("rtol", default: 1e-3)
        let atol = try arguments.double("atol", default: 1e-7)
        let path = InferenceSession.ExecutionPath(rawValue: try arguments.choice("path", ["fast", "reference"], default: "fast"))!
        let threads = try arguments.integer("threads", default: 1, in: 1...2)
        try arguments.finish()
        let directories = arguments.positionals
        guard !directories.isEmpty else { throw CLIError.usage("give at least one model directory") }
        let report = runTestData(directories, path: path, threads: threads, rtol: rtol, atol: atol)
        for line in report.lines { print(line) }
        let failures = report.failures
        guard failures.isEmpty else {
            throw CLIError.input("\(failures.count) failed: \(failures.joined(separator: ", "))")
        }
    })

/// Runs every data set of each directory: the lines `vbg test` prints (`pass  DIR/SET`, or
/// `FAIL  DIR/SET: output 'NAME': …` for each output that differs) and what failed.
func runTestData(_ directories: [String], path: InferenceSession.ExecutionPath, threads: Int,
                 rtol: Double, atol: Double) -> (lines: [String], failures: [String]) {
    var lines: [String] = [], failures: [String] = []
    for directory in directories {
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        do {
            let tests = try ModelTestDirectory(path: directory)
            let session = try InferenceSession(modelPath: tests.modelPath, options: .init(path: path, threads: threads))
            for result in try tests.run(on: session, rtol: rtol, atol: atol) {
                let label = base + "/" + result.dataSet
                if result.passed {
                    lines.append("pass  \(label)")
                    continue
                }
                for output in result.outputs where !output.comparison.isClose {
                    lines.append("FAIL  \(label): output '\(output.name)': \(output.comparison)")
                    failures.append("\(label) '\(output.name)'")
                }
            }
        } catch {
            lines.append("FAIL  \(base): \(error)")
            failures.append(base)
        }
    }
    return (lines, failures)
}

extension Arguments {
    /// A finite, non-negative number option, or `default` when absent.
    mutating func double(_ name: String, default defaultValue: Double) throws -> Double {
        guard let text = try value(name) else { return defaultValue }
        guard let number = Double(text), number.isFinite, number >= 0 else {
            throw CLIError.usage("--\(name) must be a non-negative number (got '\(text)')")
        }
        return number
    }
}
