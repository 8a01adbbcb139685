/// ONNX `ReduceMean` (versions 1–18; `axes` an input from 18): the mean over `axes`; see `Reduce`.
enum ReduceMean { static let build = Reduce.builder(.mean) }
