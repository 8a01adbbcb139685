import Foundation
import Testing
import TestSupport
@testable import vbg

@Suite("vbg test")
struct TestCommandTests {
    static let tests = ["test_abs", "test_add_bcast", "test_cast_FLOAT_to_DOUBLE", "test_gather_0",
                        "test_argmax_default_axis_example"]

    @Test("onnx's own test data passes on both paths")
    func passes() {
        let directories = Self.tests.map { Fixtures.url("onnxtestdata/\($0)").path }
        #expect(runMain(["test"] + directories) == 0)
        #expect(runMain(["test", "--path", "reference"] + directories) == 0)
    }

    @Test("one expected output off: exit 1, and the line names the data set and the output")
    func oneOutputOff() throws {
        let copy = NSTemporaryDirectory() + "vbg-test-command-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: Fixtures.url("onnxtestdata/test_abs").path, toPath: copy)
        // output_0.pb of test_abs holds its floats as raw_data: flip one float's sign bit.
        let file = copy + "/test_data_set_0/output_0.pb"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 1] ^= 0x80
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(runMain(["test", copy]) == 1)
        let report = runTestData([copy], path: .fast, threads: 1, rtol: 1e-3, atol: 1e-7)
        #expect(report.failures == ["\(copy)/test_data_set_0 'y'"])
        #expect(report.lines.count == 1)
        #expect(report.lines[0].hasPrefix("FAIL  \(copy)/test_data_set_0: output 'y': 1 of 60 elements differ"), "\(report.lines)")
    }

    @Test("usage errors exit 2")
    func usage() {
        #expect(runMain(["test"]) == 2)
        #expect(runMain(["test", "--rtol", "-1", Fixtures.url("onnxtestdata/test_abs").path]) == 2)
        #expect(runMain(["test", "--path", "gpu", Fixtures.url("onnxtestdata/test_abs").path]) == 2)
    }

    @Test("a directory without model.onnx fails with exit 1")
    func missingModel() {
        #expect(runMain(["test", NSTemporaryDirectory()]) == 1)
    }
}
