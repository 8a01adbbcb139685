/// ONNX `GlobalMaxPool` (GlobalMaxPool-1): the maximum over all spatial dimensions.
enum GlobalMaxPool { static let build = GlobalPool.builder { _ in .max } }
