// What a meeting app does with the camera, with `import SMeeting` alone: this file compiling is the
// test that the meeting layer gives an app the camera without the audio and video layer's module.
// `MeetingCameraTests` runs it.
import SMeeting

/// Chooses a camera by its kind and captures `count` frames through the virtual background.
func meetingCapturesFrames(_ meeting: SMeetingEngine, count: Int) -> Int {
    let pipeline: SRTCCapturePipeline = meeting.capturePipeline
    let camera: SRTCCameraDevice = .synthetic(name: "Desk", position: SRTCCameraPosition.front, width: 32, height: 24)
    pipeline.setCameras([camera])
    return pipeline.captureFrames(count)
}

/// A camera from a file the app names; the error is the camera's own.
func meetingOpensY4MCamera(_ meeting: SMeetingEngine, path: String) -> String? {
    do {
        try meeting.capturePipeline.setCameras([.y4mFile(name: "File", path: path)])
        return nil
    } catch let error as SRTCCameraSourceError {
        return error.description
    } catch {
        return "\(error)"
    }
}
