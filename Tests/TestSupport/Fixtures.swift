import Foundation

/// Locations of the repository's committed test data, independent of the working directory.
package enum Fixtures {
    /// The repository root (three levels above this file: Tests/TestSupport/Fixtures.swift).
    package static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file under `Fixtures/`.
    package static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// A file under `Weights/`.
    package static func weights(_ name: String) -> URL {
        repositoryRoot.appendingPathComponent("Weights").appendingPathComponent(name)
    }
}
