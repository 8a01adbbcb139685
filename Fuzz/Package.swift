// swift-tools-version:5.4
//
// libFuzzer targets for the readers that take untrusted bytes. Not part of the main package:
// build and run one with `Fuzz/run.sh <target> <seconds>` (see Docs/Reliability.md).
//
// Why this package looks the way it does:
// - Tools version 5.4: from 5.5 on SwiftPM renames an executable's `main` (testable executables)
//   and links with `--defsym main=<Module>_main`, which collides with libFuzzer's own `main`
//   (linked whole-archive by `-sanitize=fuzzer`). Below 5.5 there is no renaming, so each fuzz
//   target is compiled with `-parse-as-library`, defines only `LLVMFuzzerTestOneInput`, and
//   libFuzzer supplies `main`.
// - The library modules are the root package's own sources through symlinks
//   (Sources/<Module> -> ../../Sources/<Module>), because the root package deliberately exports
//   only SRTC, SMeeting and vbg as products. The module graph below mirrors the root
//   Package.swift (keep them in step) and compiles everything in Swift 6 mode, as the root does.
// - `-sanitize=fuzzer,address` is passed on the command line (run.sh), so every module — not
//   only the fuzz target — gets coverage instrumentation and AddressSanitizer.

import PackageDescription

// `-package-name`: tools version 5.4 predates `package` access, which the modules use for everything
// an app does not call, so the name SwiftPM 5.9+ would pass is passed here.
let swift6: [SwiftSetting] = [.unsafeFlags(["-swift-version", "6", "-enable-upcoming-feature", "ExistentialAny",
                                            "-package-name", "vbg_fuzz"])]

let package = Package(
    name: "vbg-fuzz",
    targets: [
        // The root package's modules (symlinked sources).
        .target(name: "TargetFeatures"),
        .target(name: "CPUSupport", dependencies: ["TargetFeatures"], swiftSettings: swift6),
        .target(name: "Kernels", dependencies: ["CPUSupport", "TargetFeatures"], swiftSettings: swift6),
        .target(name: "ONNXFormat", swiftSettings: swift6),
        .target(name: "HalfPrecision", swiftSettings: swift6),
        .target(name: "CMath", linkerSettings: [.linkedLibrary("m", .when(platforms: [.linux]))]),
        .target(name: "Inference", dependencies: ["ONNXFormat", "Kernels", "HalfPrecision", "CMath"], swiftSettings: swift6),
        .target(name: "NumpyFormat", dependencies: ["HalfPrecision"], swiftSettings: swift6),
        .target(name: "Imaging", dependencies: ["TargetFeatures"], swiftSettings: swift6),
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .target(name: "PNGWriter", dependencies: ["CLibPNG"]),
        .target(name: "PNGCodec", dependencies: ["CLibPNG", "PNGWriter", "Imaging"], swiftSettings: swift6),
        .target(name: "Y4MFormat", dependencies: ["Imaging"], swiftSettings: swift6),

        // One executable per reader: bytes in, a value or a thrown error out, never a crash.
        .executableTarget(name: "FuzzONNX", dependencies: ["Inference"], swiftSettings: swift6),
        .executableTarget(name: "FuzzNumpy", dependencies: ["NumpyFormat"], swiftSettings: swift6),
        .executableTarget(name: "FuzzPNG", dependencies: ["PNGCodec", "Imaging"], swiftSettings: swift6),
        .executableTarget(name: "FuzzY4M", dependencies: ["Y4MFormat", "Imaging"], swiftSettings: swift6),
    ]
)
