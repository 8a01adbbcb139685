/// ONNX `Div` (Div-14; float semantics unchanged since Div-7): a / b with numpy broadcasting
/// (IEEE division: x/0 is ±∞ or NaN).
enum Div { static let build = ElementwiseBinary.builder(.div) { $0 / $1 } }
