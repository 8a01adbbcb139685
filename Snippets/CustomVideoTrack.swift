// The audio and video layer's lower level: an app that takes over capture attaches the virtual
// background to its own video track, resets the inter-frame state when its camera changes, and
// reads diagnostics. Run: `swift run CustomVideoTrack`.
import SRTC

let engine = SRTCEngine()

// snippet.customTrack
let channel = engine.joinChannel("demo-channel")
let track = engine.makeCustomVideoTrack()
channel.publish(track)

let processor = engine.makeVirtualBackgroundProcessor()
track.attachVirtualBackground(processor)

try engine.installVirtualBackground()
engine.setVirtualBackgroundBlur(level: 7)
try engine.enableVirtualBackground(true)

// The app's own capture loop pushes frames; here, a synthetic camera.
let camera = SRTCSyntheticCameraSource(width: 160, height: 90)
for _ in 0..<5 {
    if let frame = camera.nextFrame() { track.push(frame) }
}
// snippet.end

// snippet.reset
// The app switched its own camera: start the smoothed mask over.
processor.reset()
// snippet.end

// snippet.diagnostics
let diagnostics = processor.diagnostics
print("inferences:", diagnostics.inferenceCount, "dropped:", diagnostics.droppedFrameCount,
      "segmentation ms:", Double(diagnostics.segmentation.meanNanoseconds) / 1e6,
      "compositing ms:", Double(diagnostics.compositing.meanNanoseconds) / 1e6)
print("frames sent:", track.publishedVideo.frameCount)
// snippet.end

// snippet.cameraPipeline
// The device camera (shared by every engine): frames are processed as they are captured.
engine.capturePipeline.captureFrames(3)
print("camera inferences:", engine.virtualBackgroundDiagnostics.inferenceCount,
      "preview frames:", engine.localPreview.frameCount)
// snippet.end
