/// ONNX `ReduceMin` (versions 1–20; `axes` an input from 18, bool from 20): the minimum over `axes`; see `Reduce`.
enum ReduceMin { static let build = Reduce.builder(.min) }
