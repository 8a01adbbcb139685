/// ONNX `ReduceLogSum` (versions 1–18, and 28 for float32 and double; `axes` an input from 18): log(Σx) over `axes`; see `Reduce`.
enum ReduceLogSum { static let build = Reduce.builder(.logSum) }
