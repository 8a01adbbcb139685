import Testing
@testable import CPUSupport

@Suite("CPU support check")
struct CPUSupportTests {
    @Test("this machine can run the build it was compiled for")
    func runsHere() {
        #expect(CPUSupport.missingFeatures() == [])
        #expect(CPUSupport.unsupportedCPUMessage() == nil)
    }

    @Test("a CPU lacking a required feature gets a message naming it")
    func missingFeatureIsNamed() {
        let fake = ["VBG_CPU_FLAGS": "fpu sse sse2"]
        let missing = CPUSupport.missingFeatures(environment: fake)
        #expect(missing == CPUSupport.requiredFeatures)
        if CPUSupport.requiredFeatures.isEmpty {
            #expect(CPUSupport.unsupportedCPUMessage(environment: fake) == nil)
        } else {
            let message = CPUSupport.unsupportedCPUMessage(environment: fake)
            #expect(message?.contains(CPUSupport.requiredFeatures[0]) == true)
            #expect(message?.contains("VBG_ARCH") == true)
        }
    }

    @Test("features are read from /proc/cpuinfo on Linux")
    func readsCPUInfo() {
        #if os(Linux)
        let features = CPUSupport.runningCPUFeatures(environment: [:])
        #expect(features?.contains("SSE2") == true)
        #endif
    }
}
