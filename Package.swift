// swift-tools-version:6.0
//
// swift-virtual-background: a pure-Swift virtual background engine (person segmentation,
// blur and replacement) with the SRTC / SMeeting SDK API on top.
//
// Modules, dependencies pointing only down:
//
//   TargetFeatures        the compile target's instruction-set features (FMA, AVX-512) as C constants
//   CPUSupport            build-time instruction-set requirements vs the running CPU (no arch flags)
//   Kernels               SIMD compute kernels on raw pointers; never sees ONNX
//   ONNXFormat            protobuf wire reader + ONNX messages; parses, never executes
//   HalfPrecision         IEEE 754 binary16 <-> binary32, for the float16 tensors of models and .npy files
//   CMath                 the C library's math functions (expf, tanhf…) as a header without <math.h>
//   Inference             graph validation, shape inference, static plan, reference + fast paths
//   ONNXInference         the engine's public face: InferenceSession, Tensor, comparison, onnx test data
//   NumpyFormat           .npy tensors (fixtures, `vbg infer`)
//   BuiltinModels         the two MediaPipe selfie segmentation ONNX files (Weights/), linked into the binary
//   Imaging               frames, masks, preprocessing, resampling, blur, cover-crop, compositing; never sees libpng
//   PNGCodec              PNG through the system libpng (simplified API)
//   Y4MFormat             YUV4MPEG2 streams
//   FramePipeline         per-frame policy: segmentation, inference interval, mask sync, smoothing, dropping; never sees protobuf
//   SRTC                  audio/video layer: channels, join, leave, video tracks, the device-level virtual background
//   SMeeting              meeting layer: rooms, meetings, enter, exit; re-exports what the page uses from SRTC
//   vbg                   the command-line tool
//
// Build configuration: the environment variable VBG_ARCH selects the instruction set the
// SIMD code is compiled for. Unset: the portable baseline (no unsafe flags, so the package stays
// usable as a versioned dependency). `x86-64-v3`: AVX2 + FMA. `x86-64-v4`: AVX-512. `native`: the
// build machine's CPU. A binary run on a CPU lacking what it was built for stops with a message
// (CPUSupport), never with SIGILL. VBG_ARCH works where this package is the root (it adds unsafe
// flags); an app depending on it by version passes the same level on its own command line,
// `swift build -c release -Xswiftc -Xcc -Xswiftc -march=x86-64-v3` (Docs/SDK.md), and the code
// finds FMA and AVX-512 from the compile target (TargetFeatures) either way.

import Foundation
import PackageDescription

// MARK: - Instruction set

/// What `VBG_ARCH` asks for: compiler flags for the SIMD modules, and the CPU features the
/// resulting binary requires (compiled into CPUSupport as defines, checked at start-up).
struct ArchitectureChoice {
    var flags: [String] = []
    var requiredFeatures: [String] = []

    init(_ name: String?) {
        switch name {
        case nil, "", "portable":
            break
        case "x86-64-v3":
            flags = ["-Xcc", "-march=x86-64-v3"]
            requiredFeatures = ["AVX", "AVX2", "FMA", "F16C", "BMI2"]
        case "x86-64-v4":
            flags = ["-Xcc", "-march=x86-64-v4"]
            requiredFeatures = ["AVX", "AVX2", "FMA", "F16C", "BMI2", "AVX512F", "AVX512BW", "AVX512DQ", "AVX512VL", "AVX512CD"]
        case "native":
            flags = ["-Xcc", "-march=native"]
            requiredFeatures = ArchitectureChoice.hostFeatures()
        default:
            fatalError("VBG_ARCH must be unset, x86-64-v3, x86-64-v4 or native (got \(name!))")
        }
    }

    /// The features of the build machine that `-march=native` may use, from /proc/cpuinfo.
    static func hostFeatures() -> [String] {
        #if os(Linux)
        guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return [] }
        let flags = Set(line.split(separator: " ").map(String.init))
        let known = ["avx": "AVX", "avx2": "AVX2", "fma": "FMA", "f16c": "F16C", "bmi2": "BMI2",
                     "avx512f": "AVX512F", "avx512bw": "AVX512BW", "avx512dq": "AVX512DQ",
                     "avx512vl": "AVX512VL", "avx512cd": "AVX512CD", "avx512_vnni": "AVX512_VNNI"]
        return known.filter { flags.contains($0.key) }.map(\.value).sorted()
        #else
        return []
        #endif
    }
}

let architecture = ArchitectureChoice(Context.environment["VBG_ARCH"])

/// Settings shared by every Swift target.
let commonSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// Settings for modules whose hot loops are SIMD: the instruction-set flags. The code reads what
/// they enable (FMA, AVX-512) from the compile target through the TargetFeatures header, so the
/// same fast paths come from a top-level `-Xswiftc -Xcc -Xswiftc -march=…` when this package is a
/// versioned dependency (where `unsafeFlags` are refused).
let simdSettings: [SwiftSetting] = commonSettings
    + (architecture.flags.isEmpty ? [] : [.unsafeFlags(architecture.flags)])

/// CPUSupport is compiled without instruction-set flags so its check can run on any x86-64 CPU; the
/// features the other modules are built with reach it as defines.
let cpuSupportSettings: [SwiftSetting] = commonSettings
    + architecture.requiredFeatures.map { .define("VBG_REQUIRES_\($0)") }

let package = Package(
    name: "swift-virtual-background",
    platforms: [.iOS(.v16), .macOS(.v14)],
    products: [
        // MARK: - Public API
        .library(name: "SRTC", targets: ["SRTC"]),
        .library(name: "SMeeting", targets: ["SMeeting"]),
        // The inference engine on its own: any ONNX model, fast or reference kernels, tensors of
        // every stored type, comparison helpers and onnx's test-data format.
        .library(name: "ONNXInference", targets: ["ONNXInference"]),
        .executable(name: "vbg", targets: ["vbg"]),
    ],
    targets: [
        // MARK: - Public API
        .target(name: "SMeeting", dependencies: ["SRTC"], swiftSettings: commonSettings),
        .target(name: "ONNXInference", dependencies: ["Inference", "ONNXFormat", "HalfPrecision"], swiftSettings: commonSettings),
        .target(
            name: "SRTC",
            // libpng only where the system has it: Apple platforms decode with ImageIO instead, so an
            // app's SDK products never link libpng there (`vbg` still uses it on every platform).
            dependencies: ["FramePipeline", "Imaging", "Kernels", "Y4MFormat", "CPUSupport", "BuiltinModels",
                           .target(name: "PNGCodec", condition: .when(platforms: [.linux]))],
            swiftSettings: simdSettings),
        .executableTarget(
            name: "vbg",
            dependencies: ["SRTC", "FramePipeline", "ONNXInference", "NumpyFormat", "Imaging", "PNGCodec", "Y4MFormat",
                           "CPUSupport", "Kernels", "BuiltinModels", "TargetFeatures"],
            swiftSettings: simdSettings),

        // MARK: - Implementation details
        .target(name: "FramePipeline", dependencies: ["Imaging", "ONNXInference", "Kernels"], swiftSettings: simdSettings),
        .target(name: "Inference", dependencies: ["ONNXFormat", "Kernels", "HalfPrecision", "CMath"], swiftSettings: simdSettings),
        .target(name: "ONNXFormat", swiftSettings: commonSettings),
        .target(name: "HalfPrecision", swiftSettings: commonSettings),
        .target(name: "Kernels", dependencies: ["CPUSupport", "TargetFeatures"], exclude: ["README.md"], swiftSettings: simdSettings),
        .target(name: "CPUSupport", dependencies: ["TargetFeatures"], swiftSettings: cpuSupportSettings),
        // The compile target's instruction-set features as constants Swift can read (a C header).
        .target(name: "TargetFeatures"),
        // The C library's math functions (expf, tanhf, pow…) the operators call, declared without
        // <math.h> so Inference needs no Foundation or Glibc/Darwin module (also in Embedded Swift).
        .target(name: "CMath", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "Imaging", dependencies: ["TargetFeatures"], exclude: ["README.md"], swiftSettings: simdSettings),
        .target(name: "PNGCodec", dependencies: ["CLibPNG", "PNGWriter", "Imaging"], swiftSettings: commonSettings),
        // PNG writing with a chosen filter and zlib level through libpng's full API, whose errors
        // longjmp: kept in C so no jump crosses Swift frames.
        .target(name: "PNGWriter", dependencies: ["CLibPNG"]),
        .target(name: "Y4MFormat", dependencies: ["Imaging"], swiftSettings: simdSettings),
        .target(name: "NumpyFormat", dependencies: ["HalfPrecision"], swiftSettings: commonSettings),
        .target(name: "BuiltinModels", dependencies: ["BuiltinModelData"], swiftSettings: commonSettings),
        // The ONNX files linked in with the assembler's `.incbin` (found through the header search
        // path), so no resource bundle is needed at run time.
        .target(
            name: "BuiltinModelData",
            path: "Weights",
            exclude: ["README.md", "LICENSE", "selfie_segmentation.onnx", "selfie_segmentation_landscape.onnx"],
            sources: ["BuiltinModelData.S"],
            cSettings: [.headerSearchPath(".")]),
        .systemLibrary(
            name: "CLibPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),

        // MARK: - Tests
        .target(name: "TestSupport", dependencies: ["NumpyFormat"], path: "Tests/TestSupport", swiftSettings: commonSettings),
        // Counts this thread's heap allocations (malloc interposition) for the no-allocation tests.
        // The test executable must export its malloc so that calls from shared libraries (the Swift
        // runtime) bind to it; test-only, so the unsafe flag never reaches a package client.
        .target(
            name: "AllocationCounter", path: "Tests/AllocationCounter",
            linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"], .when(platforms: [.linux]))]),
        .testTarget(name: "CPUSupportTests", dependencies: ["CPUSupport"], swiftSettings: commonSettings),
        // Injected segmenters and compositors for the pipeline and SDK tests (fault injection, determinism).
        .target(name: "PipelineFakes", dependencies: ["FramePipeline", "Imaging"], path: "Tests/PipelineFakes",
                swiftSettings: commonSettings),
        .target(
            name: "SDKTestSupport", dependencies: ["SRTC", "FramePipeline", "Imaging", "PipelineFakes", "AllocationCounter", "BuiltinModels"],
            path: "Tests/SDKTestSupport", swiftSettings: commonSettings),
        .testTarget(
            name: "FramePipelineTests", dependencies: ["FramePipeline", "Imaging", "ONNXInference", "PipelineFakes", "AllocationCounter", "BuiltinModels", "TestSupport"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "SRTCTests", dependencies: ["SRTC", "FramePipeline", "Imaging", "PipelineFakes", "AllocationCounter", "BuiltinModels", "SDKTestSupport", "PNGCodec", "Y4MFormat"],
            swiftSettings: commonSettings),
        .testTarget(
            name: "SMeetingTests", dependencies: ["SMeeting", "SRTC", "FramePipeline", "Imaging", "PipelineFakes", "SDKTestSupport"],
            swiftSettings: commonSettings),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "TestSupport", "AllocationCounter"], swiftSettings: commonSettings),
        .testTarget(name: "PNGCodecTests", dependencies: ["PNGCodec", "Imaging", "TestSupport"], swiftSettings: commonSettings),
        .testTarget(name: "Y4MFormatTests", dependencies: ["Y4MFormat", "Imaging"], swiftSettings: commonSettings),
        // Full-resolution masks against MediaPipe's own (needs the models, so it sits above Imaging).
        .testTarget(
            name: "SegmentationParityTests",
            dependencies: ["Imaging", "PNGCodec", "ONNXInference", "BuiltinModels", "NumpyFormat", "TestSupport"],
            swiftSettings: commonSettings),
        .testTarget(name: "KernelsTests", dependencies: ["Kernels", "TestSupport", "AllocationCounter"], swiftSettings: commonSettings),
        .testTarget(name: "NumpyFormatTests", dependencies: ["NumpyFormat", "TestSupport"], swiftSettings: commonSettings),
        .testTarget(name: "ONNXFormatTests", dependencies: ["ONNXFormat", "TestSupport"], swiftSettings: commonSettings),
        .testTarget(
            name: "InferenceTests",
            dependencies: ["Inference", "ONNXFormat", "NumpyFormat", "TestSupport", "AllocationCounter"],
            swiftSettings: commonSettings),
        .testTarget(name: "vbgTests", dependencies: ["vbg", "SRTC", "ONNXInference", "NumpyFormat", "PNGCodec", "Imaging", "TestSupport", "Y4MFormat"], swiftSettings: commonSettings),
        // The x86-64 results the arm64 runner (.ci/arm64.sh) compares with: Arm64Cases.swift is
        // compiled into the runner too.
        .testTarget(
            name: "Arm64FixtureTests", dependencies: ["Inference", "Imaging", "FramePipeline", "PNGCodec", "TestSupport"],
            swiftSettings: commonSettings),
        .testTarget(name: "ONNXInferenceTests", dependencies: ["ONNXInference", "TestSupport"], swiftSettings: commonSettings),
        .testTarget(name: "BuiltinModelsTests", dependencies: ["BuiltinModels"], swiftSettings: commonSettings),
        // Bad-input tables at the API level and for the vbg binary (run as a subprocess).
        .testTarget(
            name: "RobustnessTests", dependencies: ["vbg", "Inference", "NumpyFormat", "PNGCodec", "Y4MFormat", "Imaging", "TestSupport"],
            swiftSettings: commonSettings),
    ],
    swiftLanguageModes: [.v6]
)
