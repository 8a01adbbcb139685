import Testing
@testable import vbg

/// An installed `vbg` is one file, far from this repository: its help must stand on its own.
@Suite("vbg help texts")
struct HelpTextTests {
    @Test("no command's help sends the reader into the repository's Sources/ or Docs/", arguments: commands.map(\.name))
    func helpStandsAlone(_ name: String) throws {
        let usage = try #require(commands.first { $0.name == name }).usage
        #expect(!usage.contains("Sources/") && !usage.contains("Docs/"), "\(usage)")
    }
}
