/// ONNX `ReduceMax` (versions 1–20; `axes` an input from 18, bool from 20): the maximum over `axes`; see `Reduce`.
enum ReduceMax { static let build = Reduce.builder(.max) }
