/// ONNX `ReduceL2` (versions 1–18; `axes` an input from 18): √(Σx²) over `axes`; see `Reduce`.
enum ReduceL2 { static let build = Reduce.builder(.l2) }
