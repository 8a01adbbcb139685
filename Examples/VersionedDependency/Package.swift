// swift-tools-version:6.0
//
// An app that depends on swift-virtual-background by version, as app developers do. CI builds it
// against a tagged clone of this repository (`.ci/versioned-dependency.sh`): once with the
// documented switch, `swift build -c release -Xswiftc -Xcc -Xswiftc -march=x86-64-v3`, and once
// without, and checks what it prints.
//
// VBG_PACKAGE_URL is the package's git URL (CI: `file://` of the tagged clone).

import Foundation
import PackageDescription

guard let packageURL = Context.environment["VBG_PACKAGE_URL"] else {
    fatalError("set VBG_PACKAGE_URL to the swift-virtual-background git URL (for example file:///path/to/clone)")
}

let package = Package(
    name: "VirtualBackgroundApp",
    platforms: [.iOS(.v16), .macOS(.v14)],
    dependencies: [
        .package(url: packageURL, from: "1.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "VirtualBackgroundApp",
            dependencies: [.product(name: "SRTC", package: "swift-virtual-background"),
                           .product(name: "ONNXInference", package: "swift-virtual-background")]),
    ],
    swiftLanguageModes: [.v6]
)
