/// ONNX `ReduceLogSumExp` (versions 1–18, and 28 for float32 and double; `axes` an input from 18): log(Σ exp x) over `axes`,
/// computed as max + log(Σ exp(x − max)); see `Reduce`.
enum ReduceLogSumExp { static let build = Reduce.builder(.logSumExp) }
