import Inference

/// libFuzzer entry point: the bytes as an ONNX model through parse, validation, shape inference
/// and planning (`InferenceModel(bytes:)`). Any outcome but a value or a thrown `ModelError` is
/// a finding (crash, trap, sanitizer report, timeout, out-of-memory).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzONNX(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? InferenceModel(bytes: bytes)
    return 0
}
