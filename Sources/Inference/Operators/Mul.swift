/// ONNX `Mul` (Mul-14; float semantics unchanged since Mul-7): a · b with numpy broadcasting.
enum Mul { static let build = ElementwiseBinary.builder(.mul) { $0 * $1 } }
