/// ONNX `Add` (Add-14; float semantics unchanged since Add-7): a + b with numpy broadcasting.
enum Add { static let build = ElementwiseBinary.builder(.add) { $0 + $1 } }
