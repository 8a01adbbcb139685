// swift-tools-version:6.0
//
// A program that uses the engine on its own, as another project's tests do: it depends on this
// repository by path and imports only ONNXInference. CI builds it and runs it on a model
// (`.ci/library-client.sh`).

import PackageDescription

let package = Package(
    name: "LibraryClient",
    platforms: [.iOS(.v16), .macOS(.v14)],
    dependencies: [
        // By path, the package's name is the directory's name: `swift-virtual-background` in a
        // clone named so (the repository's root is two levels up).
        .package(name: "swift-virtual-background", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "LibraryClient",
            dependencies: [.product(name: "ONNXInference", package: "swift-virtual-background")]),
    ],
    swiftLanguageModes: [.v6]
)
