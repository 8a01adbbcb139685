/// ONNX `Sub` (Sub-14; float semantics unchanged since Sub-7): a − b with numpy broadcasting.
enum Sub { static let build = ElementwiseBinary.builder(.sub) { $0 - $1 } }
