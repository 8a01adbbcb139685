import Foundation
import NumpyFormat
import Testing
import TestSupport
@testable import vbg

/// `vbg infer --dump DIR` writes one file per value whatever the value names are, and an index.
@Suite("vbg infer --dump: one file per value, for any names")
struct DumpTests {
    /// 300 bytes, as tf2onnx writes names of nested scopes.
    static let longName = "model/" + String(repeating: "block/conv/", count: 26) + "Relu_1:0"
    /// Every value of the graph below, by the node computing it: a 300-byte name, two names that
    /// sanitise alike from two nodes, two from one node, two from one node that differ only in
    /// case, and one that is not ASCII.
    static let values: [(node: String, op: String, value: String)] = [
        ("first", "Relu", longName),
        ("second", "Relu", "a/b:0"),
        ("third", "Relu", "a:b/0"),
        ("split", "Split", "s/0"), ("split", "Split", "s:0"),
        ("join", "Concat", "joined"),
        ("resplit", "Split", "Case"), ("resplit", "Split", "case"),
        ("accent", "Relu", "é/ü"),
    ]
    static let model = ONNXBuilder.model(
        nodes: [
            ONNXBuilder.node("Relu", inputs: ["x"], outputs: [longName], name: "first"),
            ONNXBuilder.node("Relu", inputs: [longName], outputs: ["a/b:0"], name: "second"),
            ONNXBuilder.node("Relu", inputs: ["a/b:0"], outputs: ["a:b/0"], name: "third"),
            ONNXBuilder.node("Split", inputs: ["a:b/0"], outputs: ["s/0", "s:0"], name: "split", attributes: [.int("axis", 1)]),
            ONNXBuilder.node("Concat", inputs: ["s/0", "s:0"], outputs: ["joined"], name: "join", attributes: [.int("axis", 1)]),
            ONNXBuilder.node("Split", inputs: ["joined"], outputs: ["Case", "case"], name: "resplit", attributes: [.int("axis", 1)]),
            ONNXBuilder.node("Relu", inputs: ["case"], outputs: ["é/ü"], name: "accent"),
        ],
        inputs: [ONNXBuilder.valueInfo("x", [1, 2, 3, 3])],
        outputs: [ONNXBuilder.valueInfo("Case", [1, 1, 3, 3]), ONNXBuilder.valueInfo("é/ü", [1, 1, 3, 3])])

    @Test("a 300-byte name and names that sanitise alike: one short, safe, distinct file per value, and index.json names each")
    func anyNames() throws {
        let root = NSTemporaryDirectory() + "vbg-dump-\(getpid())-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let modelPath = root + "/model.onnx", inputPath = root + "/x.npy", dump = root + "/dump"
        try Data(Self.model).write(to: URL(fileURLWithPath: modelPath))
        let input = (0..<18).map { Float($0) - 8.5 }
        try NumpyArray(shape: [1, 2, 3, 3], floats: input).write(toFile: inputPath)
        #expect(runMain(["infer", "--model", modelPath, "--input", inputPath, "--dump", dump]) == 0)

        let files = try FileManager.default.contentsOfDirectory(atPath: dump).sorted()
        #expect(files.count == Self.values.count + 1, "\(files)")
        for file in files {
            #expect(file.utf8.count <= 120 && file.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }, "\(file)")
        }
        #expect(Set(files.map { $0.lowercased() }).count == files.count, "names that differ only in case: \(files)")

        let index = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dump + "/index.json"))) as? [String: Any])
        #expect(index["model"] as? String == modelPath && index["path"] as? String == "fast")
        let entries = try #require(index["values"] as? [String: [String: Any]])
        #expect(Set(entries.keys) == Set(files.filter { $0 != "index.json" }))
        let listed = entries.values.map { ($0["node"] as? String ?? "", $0["op"] as? String ?? "", $0["value"] as? String ?? "") }
        #expect(Set(listed.map { "\($0.0) \($0.1) \($0.2)" }) == Set(Self.values.map { "\($0.node) \($0.op) \($0.value)" }))
        for (file, entry) in entries {
            let array = try NumpyArray(contentsOfFile: dump + "/" + file)
            #expect(entry["shape"] as? [Int] == array.shape && entry["dtype"] as? String == "float32", "\(file): \(entry)")
        }
        #expect(Self.longName.utf8.count == 300)
        // The long value is Relu(x), whatever its file is called.
        let long = try #require(entries.first { $0.value["value"] as? String == Self.longName })
        #expect(long.key.hasPrefix("0_model_block_conv_block_conv_") && long.key.hasSuffix(".npy"), "\(long.key)")
        #expect(try NumpyArray(contentsOfFile: dump + "/" + long.key).floats() == input.map { max($0, 0) })
    }

    @Test("file names: as they are when safe and short, else cut with a hash; a taken name gets a number")
    func fileNames() {
        var taken: Set<String> = []
        #expect(ValueDump.fileName(node: 3, value: "conv_1.out", taken: &taken) == "3_conv_1.out")
        let slash = ValueDump.fileName(node: 4, value: "a/b:0", taken: &taken)
        let colon = ValueDump.fileName(node: 4, value: "a:b/0", taken: &taken)
        #expect(slash.hasPrefix("4_a_b_0-") && colon.hasPrefix("4_a_b_0-") && slash != colon)
        #expect(slash == "4_a_b_0-" + ValueDump.hash("a/b:0"))
        let long = ValueDump.fileName(node: 5, value: String(repeating: "x", count: 300), taken: &taken)
        #expect(long == "5_" + String(repeating: "x", count: 80) + "-" + ValueDump.hash(String(repeating: "x", count: 300)))
        #expect(ValueDump.fileName(node: 6, value: "Y", taken: &taken) == "6_Y")
        #expect(ValueDump.fileName(node: 6, value: "y", taken: &taken) == "6_y-2")
    }
}
