// Reads `swift package dump-package` on standard input and fails unless, on every Apple platform,
// the targets the SDK products (SRTC, SMeeting) reach exclude PNGCodec and CLibPNG (libpng).
// Run: swift package dump-package | swift .ci/apple-no-libpng.swift
import Foundation

let manifest = try JSONSerialization.jsonObject(with: FileHandle.standardInput.readDataToEndOfFile()) as! [String: Any]
let targets = Dictionary(uniqueKeysWithValues: (manifest["targets"] as! [[String: Any]]).map { ($0["name"] as! String, $0) })

/// The target dependencies of `name` that apply on `platform`.
func dependencies(of name: String, on platform: String) -> [String] {
    (targets[name]?["dependencies"] as? [[String: Any]] ?? []).compactMap { dependency in
        guard let (kind, value) = dependency.first, kind == "target" || kind == "byName",
              let fields = value as? [Any], let target = fields.first as? String else { return nil }
        if let condition = fields.last as? [String: Any], let platforms = condition["platformNames"] as? [String],
           !platforms.contains(platform) {
            return nil
        }
        return target
    }
}

var failed = false
for platform in ["ios", "macos", "maccatalyst", "tvos", "watchos", "visionos"] {
    var reached: Set<String> = [], stack = ["SRTC", "SMeeting"]
    while let name = stack.popLast() {
        guard reached.insert(name).inserted else { continue }
        stack += dependencies(of: name, on: platform)
    }
    let libpng = reached.intersection(["PNGCodec", "CLibPNG", "PNGWriter"])
    print("\(platform): the SDK products reach \(reached.count) targets\(libpng.isEmpty ? ", none with libpng" : ", with libpng: \(libpng.sorted())")")
    if !libpng.isEmpty { failed = true }
}
exit(failed ? 1 : 0)
