/// ONNX `Div` (Div-7, -13, -14): a / b with numpy broadcasting. Float32 and double: IEEE division (x/0
/// is ±∞ or NaN). Two inputs of one integer type (int8–int64, uint8–uint64): the quotient truncated
/// toward zero, as onnxruntime computes it; the minimum value divided by −1 wraps to itself, and
/// x/0 is 0 (onnxruntime fails the run there; a kernel here cannot).
enum Div {
    static let build = ElementwiseBinary.arithmetic(.div, float: { $0 / $1 }, double: { $0 / $1 }, integer: { a, b in
        b == 0 ? 0 : a.dividedReportingOverflow(by: b).partialValue
    }, unsigned64: { a, b in b == 0 ? 0 : a / b })
}
