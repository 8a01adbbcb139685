// Three frames through the virtual background, as an app with its own capture does it, then what
// the SDK reports: the frame counts, the instruction-set features its kernels were built with, and
// the last frame's time. Given a model directory in onnx's test-data layout, it also runs that
// model's test data through the engine on its own (ONNXInference).
// Usage: VirtualBackgroundApp [WIDTH HEIGHT] [ONNX_TEST_DIR] (default 1280 720, no test data).

import ONNXInference
import SRTC

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
if let directory = CommandLine.arguments.dropFirst().first(where: { Int($0) == nil }) {
    let tests = try ModelTestDirectory(path: directory)
    let results = try tests.run(on: try InferenceSession(modelPath: tests.modelPath))
    print("onnx test data: \(results.filter(\.passed).count) of \(results.count) passed")
}
let (width, height) = arguments.count == 2 ? (arguments[0], arguments[1]) : (1280, 720)

let engine = SRTCEngine()
try await Task.detached(priority: .userInitiated) {
    try engine.installVirtualBackground()
}.value
engine.setVirtualBackgroundBlur(level: 5)
try engine.enableVirtualBackground(true)

let track = engine.makeCustomVideoTrack()
let processor = engine.makeVirtualBackgroundProcessor()
track.attachVirtualBackground(processor)
let camera = SRTCSyntheticCameraSource(width: width, height: height)
for _ in 0..<3 {
    if let frame = camera.nextFrame() { track.push(frame) }
}

let diagnostics = processor.diagnostics
let sent = track.publishedVideo.latestFrame
print("frame: \(sent.map { "\($0.width)x\($0.height)" } ?? "none"), composited: \(diagnostics.framesComposited), "
      + "inferences: \(diagnostics.inferenceCount), dropped: \(diagnostics.droppedFrameCount)")
print("simd features: \(diagnostics.simdFeatures.isEmpty ? "none" : diagnostics.simdFeatures.joined(separator: " "))")
print("last frame ms: \(Double(diagnostics.total.lastNanoseconds) / 1e6)")
