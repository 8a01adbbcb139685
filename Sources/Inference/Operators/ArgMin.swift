/// ONNX `ArgMin` (versions 1–13): the index of the smallest element along `axis`; see `ArgReduce`.
enum ArgMin { static let build = ArgReduce.builder(largest: false) }
