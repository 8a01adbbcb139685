import Foundation
import Imaging
import NumpyFormat
import PNGCodec
import TestSupport
import Testing
@testable import vbg

private func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "vbg-image-tests-\(getpid())-\(UUID().uuidString)-\(name)"
}

@Suite("vbg segment, blur and replace on a PNG")
struct ImageCommandTests {
    static let frame = Fixtures.url("images/astronaut_on_coffee_320x240.png").path

    @Test("segment writes MediaPipe's mask as .npy (mean|Δ| ≤ 1e-4) and as a grey PNG")
    func segment() throws {
        let npy = temporaryPath("mask.npy"), png = temporaryPath("mask.png")
        defer { unlink(npy); unlink(png) }
        #expect(runMain(["segment", Self.frame, "--mask-npy", npy, "--mask", png, "--model", "landscape"]) == 0)
        let mask = try NumpyArray(contentsOfFile: npy)
        #expect(mask.shape == [240, 320])
        let reference = try NumpyArray(contentsOfFile: Fixtures.url("mediapipe/astronaut_on_coffee_320x240_landscape.npy").path)
        #expect(Difference(try mask.floats(), try reference.floats()).meanAbsolute <= 1e-4)
        let grey = try PNG.readGray(contentsOfFile: png)
        #expect(grey.width == 320 && grey.height == 240)
    }

    @Test("blur keeps the person and changes the background; replace shows the picture around the person")
    func blurAndReplace() throws {
        let blurred = temporaryPath("blur.png"), replaced = temporaryPath("replace.png"), npy = temporaryPath("m.npy")
        defer { unlink(blurred); unlink(replaced); unlink(npy) }
        #expect(runMain(["blur", Self.frame, blurred, "--level", "9"]) == 0)
        #expect(runMain(["replace", Self.frame, replaced, "--background", Fixtures.url("images/astronaut.png").path]) == 0)
        #expect(runMain(["segment", Self.frame, "--mask-npy", npy]) == 0)
        let original = try PNG.read(contentsOfFile: Self.frame)
        let mask = try NumpyArray(contentsOfFile: npy).floats()
        for path in [blurred, replaced] {
            let out = try PNG.read(contentsOfFile: path)
            #expect(out.width == 320 && out.height == 240)
            var person = 0, personSame = 0, background = 0, backgroundChanged = 0
            for i in 0..<(320 * 240) {
                let same = (0..<3).allSatisfy { out.bytes[4 * i + $0] == original.bytes[4 * i + $0] }
                if mask[i] > 0.9 { person += 1; if same { personSame += 1 } }
                if mask[i] < 0.1 { background += 1; if !same { backgroundChanged += 1 } }
                #expect(out.bytes[4 * i + 3] == 255)
            }
            #expect(Double(personSame) / Double(person) > 0.99, "\(path): person kept \(personSame)/\(person)")
            #expect(Double(backgroundChanged) / Double(background) > 0.5, "\(path): background changed \(backgroundChanged)/\(background)")
        }
    }

    @Test("bad input exits 1 and writes nothing; a missing --background is a usage error (2)")
    func errors() {
        let out = temporaryPath("out.png")
        #expect(runMain(["blur", "/no/such.png", out]) == 1)
        #expect(runMain(["replace", Self.frame, out]) == 2)
        #expect(runMain(["replace", Self.frame, out, "--background", Fixtures.url("imaging/png/truncated.png").path]) == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
