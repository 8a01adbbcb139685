/// ONNX `LogSoftmax` (versions 1–13, with the axis rules of `Softmax`): x − max − log Σ exp(x − max).
enum LogSoftmax { static let build = Softmax.builder(.logSoftmax) }
