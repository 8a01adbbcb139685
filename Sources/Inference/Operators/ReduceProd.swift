/// ONNX `ReduceProd` (versions 1–18; `axes` an input from 18): the product over `axes`; see `Reduce`.
enum ReduceProd { static let build = Reduce.builder(.prod) }
