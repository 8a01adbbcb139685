/// ONNX `PRelu` (PRelu-16): x if x ≥ 0, else slope · x, with the slope broadcast
/// unidirectionally to x's shape.
enum PRelu { static let build = ElementwiseBinary.builder(.prelu, unidirectional: true) { x, slope in x < 0 ? slope * x : x } }
