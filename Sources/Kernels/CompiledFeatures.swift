import TargetFeatures

/// The instruction-set features the kernels were compiled to use, read from this module's own
/// compile target (the TargetFeatures header): empty for the portable baseline; `AVX2` and `FMA`
/// (among others) from `VBG_ARCH=x86-64-v3` or an app's top-level
/// `-Xswiftc -Xcc -Xswiftc -march=x86-64-v3`; `AVX512F` and the rest from x86-64-v4.
package enum CompiledFeatures {
    package static let names: [String] = {
        #if arch(x86_64)
        let all: [(String, Bool)] = [
            ("AVX", VBG_TARGET_AVX != 0), ("AVX2", VBG_TARGET_AVX2 != 0), ("FMA", VBG_TARGET_FMA != 0),
            ("F16C", VBG_TARGET_F16C != 0), ("BMI2", VBG_TARGET_BMI2 != 0), ("AVX512F", VBG_TARGET_AVX512F != 0),
            ("AVX512BW", VBG_TARGET_AVX512BW != 0), ("AVX512DQ", VBG_TARGET_AVX512DQ != 0),
            ("AVX512VL", VBG_TARGET_AVX512VL != 0), ("AVX512CD", VBG_TARGET_AVX512CD != 0),
            ("AVX512_VNNI", VBG_TARGET_AVX512VNNI != 0)]
        return all.filter(\.1).map(\.0)
        #else
        return VBG_TARGET_FMA != 0 ? ["FMA"] : []
        #endif
    }()
}
