/// ONNX `ReduceSum` (versions 1–13; `axes` an input from 13): the sum over `axes`; see `Reduce`.
enum ReduceSum { static let build = Reduce.builder(.sum, axesInputSince: 13) }
