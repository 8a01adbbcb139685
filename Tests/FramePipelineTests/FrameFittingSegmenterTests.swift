import BuiltinModels
import Foundation
import Testing
import FramePipeline
import Imaging

@Suite("Both built-in models: each frame segmented with the one whose input fits it")
struct FrameFittingSegmenterTests {
    static func pair() throws -> FrameFittingSegmenter {
        FrameFittingSegmenter([try ModelSegmenter(modelBytes: BuiltinModel.general.bytes),
                               try ModelSegmenter(modelBytes: BuiltinModel.landscape.bytes)])
    }

    @Test("wider than 4:3 is landscape; 4:3, square and portrait are general", arguments: [
        (1280, 720, 1), (1920, 1080, 1), (641, 480, 1), (854, 480, 1),
        (640, 480, 0), (320, 240, 0), (512, 512, 0), (480, 640, 0), (720, 1280, 0), (639, 480, 0),
    ])
    func rule(width: Int, height: Int, index: Int) throws {
        #expect(try Self.pair().modelIndex(width: width, height: height) == index)
    }

    @Test("the mask is the chosen model's, for a wide and a square frame")
    func masksAreTheChosenModels() throws {
        let pair = try Self.pair()
        for (width, height, model) in [(160, 90, BuiltinModel.landscape), (96, 96, BuiltinModel.general)] {
            var frame = Image(width: width, height: height, filledWith: (40, 60, 80, 255))
            for y in height / 4..<(3 * height / 4) { for x in width / 3..<(2 * width / 3) { frame.bytes[y * frame.bytesPerRow + 4 * x] = 230 } }
            var expected = [Float](repeating: 0, count: width * height), actual = expected
            try expected.withUnsafeMutableBufferPointer { try ModelSegmenter(modelBytes: model.bytes).segment(frame, into: $0) }
            try actual.withUnsafeMutableBufferPointer { try pair.segment(frame, into: $0) }
            #expect(actual == expected, "\(width)x\(height) should use \(model)")
        }
    }
}
