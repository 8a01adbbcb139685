// The README's library example: blur the background of frames an app captures itself, through the
// SRTC lower level (a custom video track with the virtual background processor attached).
// Run: `swift run ReadmeExample`.
// snippet.readme
import SRTC

let engine = SRTCEngine()
try engine.installVirtualBackground()              // both built-in models: ~6 ms optimised, ~150 ms in debug
engine.setVirtualBackgroundBlur(level: 5)          // or setVirtualBackgroundImage(_:)
try engine.enableVirtualBackground(true)

let track = engine.makeCustomVideoTrack()          // a track fed by the app's own capture
track.attachVirtualBackground(engine.makeVirtualBackgroundProcessor())
track.publishedVideo.observe { frame in print("frame \(frame.sequenceNumber): \(frame.width)x\(frame.height)") }
let camera = SRTCSyntheticCameraSource(width: 640, height: 360)
for _ in 0..<3 { if let frame = camera.nextFrame() { track.push(frame) } }
// snippet.end
