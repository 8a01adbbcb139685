/// ONNX `ReduceSumSquare` (versions 1–18; `axes` an input from 18): Σx² over `axes`; see `Reduce`.
enum ReduceSumSquare { static let build = Reduce.builder(.sumSquare) }
