/// ONNX `ReduceL1` (versions 1–18; `axes` an input from 18): Σ|x| over `axes`; see `Reduce`.
enum ReduceL1 { static let build = Reduce.builder(.l1) }
