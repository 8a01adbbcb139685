/// Which kernels a session runs.
package enum ExecutionPath: String, Sendable, CaseIterable {
    /// Scalar kernels written from the ONNX spec: the oracle.
    case reference
    /// SIMD kernels where available, the reference kernels elsewhere (per node).
    case fast
}
