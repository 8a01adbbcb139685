// This module is compiled without instruction-set flags, so everything in it runs on any CPU of
// the target architecture. It must stay free of SIMD code.

import TargetFeatures
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The instruction-set features this binary was compiled to require, and a check of the running
/// CPU against them.
///
/// `VBG_ARCH` (read by `Package.swift`) decides the features; they reach this module as
/// `VBG_REQUIRES_<FEATURE>` defines. Call ``verify()`` before running any SIMD code: a binary
/// built for AVX-512 on a CPU without it then stops with a message naming the missing
/// features, instead of dying from SIGILL somewhere inside a kernel.
package enum CPUSupport {
    /// The features the build requires, upper-case names as in `VBG_ARCH`'s documentation
    /// (for example `AVX2`, `FMA`, `AVX512F`). Empty for the portable build.
    ///
    /// Two sources, either of which sets them: `VBG_REQUIRES_<FEATURE>` defines (this package's
    /// manifest, from `VBG_ARCH`, while this module itself is compiled without arch flags), and
    /// the compile target as the TargetFeatures header sees it (an app's top-level
    /// `-Xswiftc -Xcc -Xswiftc -march=…`, which reaches every module).
    package static let requiredFeatures: [String] = {
        var defined: Set<String> = []
        #if VBG_REQUIRES_AVX
        defined.insert("AVX")
        #endif
        #if VBG_REQUIRES_AVX2
        defined.insert("AVX2")
        #endif
        #if VBG_REQUIRES_FMA
        defined.insert("FMA")
        #endif
        #if VBG_REQUIRES_F16C
        defined.insert("F16C")
        #endif
        #if VBG_REQUIRES_BMI2
        defined.insert("BMI2")
        #endif
        #if VBG_REQUIRES_AVX512F
        defined.insert("AVX512F")
        #endif
        #if VBG_REQUIRES_AVX512BW
        defined.insert("AVX512BW")
        #endif
        #if VBG_REQUIRES_AVX512DQ
        defined.insert("AVX512DQ")
        #endif
        #if VBG_REQUIRES_AVX512VL
        defined.insert("AVX512VL")
        #endif
        #if VBG_REQUIRES_AVX512CD
        defined.insert("AVX512CD")
        #endif
        #if VBG_REQUIRES_AVX512_VNNI
        defined.insert("AVX512_VNNI")
        #endif
        return compileTargetFeatures.map { name, inTarget in (name, inTarget || defined.contains(name)) }
            .filter(\.1).map(\.0)
    }()

    /// Each feature this module knows, in order, with whether this module's compile target has it.
    package static var compileTargetFeatures: [(name: String, inTarget: Bool)] {
        #if arch(x86_64)
        [("AVX", VBG_TARGET_AVX != 0), ("AVX2", VBG_TARGET_AVX2 != 0), ("FMA", VBG_TARGET_FMA != 0),
         ("F16C", VBG_TARGET_F16C != 0), ("BMI2", VBG_TARGET_BMI2 != 0), ("AVX512F", VBG_TARGET_AVX512F != 0),
         ("AVX512BW", VBG_TARGET_AVX512BW != 0), ("AVX512DQ", VBG_TARGET_AVX512DQ != 0),
         ("AVX512VL", VBG_TARGET_AVX512VL != 0), ("AVX512CD", VBG_TARGET_AVX512CD != 0),
         ("AVX512_VNNI", VBG_TARGET_AVX512VNNI != 0)]
        #else
        []
        #endif
    }

    /// A short name of the build's instruction-set level, for banners and benchmark output.
    package static var buildDescription: String {
        if requiredFeatures.contains("AVX512F") { return "avx512" }
        if requiredFeatures.contains("AVX2") { return "avx2" }
        return "portable"
    }

    /// The features of the running CPU, upper-case, or `nil` where they cannot be read
    /// (non-Linux systems: Apple builds are only ever portable or native to the machine).
    ///
    /// The environment variable `VBG_CPU_FLAGS` replaces the CPU's own list (space-separated,
    /// `/proc/cpuinfo` spelling), so tests can show what a CPU without AVX-512 would get.
    package static func runningCPUFeatures(
        environment: [String: String] = currentEnvironment()
    ) -> Set<String>? {
        if let override = environment["VBG_CPU_FLAGS"] {
            return Set(override.split(separator: " ").map { $0.uppercased() })
        }
        #if os(Linux)
        guard let text = readFile("/proc/cpuinfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("flags") {
            return Set(line.split(separator: " ").map { $0.uppercased() })
        }
        return nil
        #else
        return nil
        #endif
    }

    /// The required features the running CPU lacks; empty when the binary can run here.
    package static func missingFeatures(
        environment: [String: String] = currentEnvironment()
    ) -> [String] {
        guard let available = runningCPUFeatures(environment: environment) else { return [] }
        return requiredFeatures.filter { !available.contains($0) }
    }

    /// A message for users when ``missingFeatures(environment:)`` is not empty, else `nil`.
    package static func unsupportedCPUMessage(
        environment: [String: String] = currentEnvironment()
    ) -> String? {
        let missing = missingFeatures(environment: environment)
        guard !missing.isEmpty else { return nil }
        return "this build needs CPU features this machine lacks (\(missing.joined(separator: ", "))); "
            + "rebuild with a lower VBG_ARCH (unset for the portable build)"
    }

    /// Stops the process with ``unsupportedCPUMessage(environment:)`` on standard error and exit
    /// code 1 when the CPU cannot run this build. Command-line tools call it first thing.
    package static func verify() {
        guard let message = unsupportedCPUMessage() else { return }
        let line = Array("error: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(1)
    }

    /// The process environment as a dictionary (Foundation-free).
    package static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
