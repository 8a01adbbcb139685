/// ONNX `ArgMax` (versions 1–13): the index of the largest element along `axis`; see `ArgReduce`.
enum ArgMax { static let build = ArgReduce.builder(largest: true) }
