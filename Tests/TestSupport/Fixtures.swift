import Foundation

/// Locations of the repository's committed test data, independent of the working directory.
public enum Fixtures {
    /// The repository root (three levels above this file: Tests/TestSupport/Fixtures.swift).
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file under `Fixtures/`.
    public static func url(_ relativePath: String) -> URL {
        repositoryRoot.appendingPathComponent("Fixtures").appendingPathComponent(relativePath)
    }

    /// A file under `Weights/`.
    public static func weights(_ name: String) -> URL {
        repositoryRoot.appendingPathComponent("Weights").appendingPathComponent(name)
    }
}
