/// ONNX `Hardmax` (versions 1–13, with the axis rules of `Softmax`): 1 at the first maximum along the axis, 0 elsewhere.
enum Hardmax { static let build = Softmax.builder(.hardmax) }
