import CPUSupport
import Testing
import Kernels

@Suite("Compiled instruction-set features")
struct CompiledFeaturesTests {
    @Test("the start-up CPU check covers every feature the kernels were compiled to use")
    func checkCoversKernels() {
        #expect(Set(CompiledFeatures.names).isSubset(of: CPUSupport.requiredFeatures))
    }

    @Test("the kernels' features are named in the documented order, AVX-512 only with AVX2 and FMA")
    func namesAreKnown() {
        let known = ["AVX", "AVX2", "FMA", "F16C", "BMI2", "AVX512F", "AVX512BW", "AVX512DQ", "AVX512VL", "AVX512CD", "AVX512_VNNI"]
        #expect(CompiledFeatures.names == known.filter(CompiledFeatures.names.contains))
        if CompiledFeatures.names.contains("AVX512F") {
            #expect(CompiledFeatures.names.contains("AVX2") && CompiledFeatures.names.contains("FMA"))
        }
    }
}
