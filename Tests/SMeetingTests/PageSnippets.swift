// The virtual background page's Swift snippets, verbatim, with `import SMeeting` alone: this file
// compiling is the test that the page's code compiles against the SDK. `PageSnippetTests` runs them.
import SMeeting

/// Step 1, verbatim.
func pageStep1(meeting: SMeetingEngine) -> Task<Void, Never> {
    /// Installing loads the model and creates an inference session, taking hundreds of milliseconds—don't call it on the main thread or the capture thread
    Task.detached(priority: .userInitiated) {
        do {
            try meeting.installVirtualBackground()       // Pass nil for modelPath to use the built-in model
        } catch {
            print("Failed to install virtual background:", error.localizedDescription)
        }
    }
}

/// Step 2, verbatim.
func pageStep2(meeting: SMeetingEngine) {
    /// Set background blur; level ranges from 1 to 10, default 5 (out-of-range values are clamped to the boundary)
    meeting.setVirtualBackgroundBlur(level: 5)

    /// Set background replacement, cropped to cover without stretching; pass nil to cancel replacement and go back to blur
    meeting.setVirtualBackgroundImage(SRTCNativeImage(named: "background"))
}

/// Step 3, verbatim.
func pageStep3(meeting: SMeetingEngine) throws -> Bool {
    try meeting.enableVirtualBackground(true)

    /// Query whether it's on
    let enabled = meeting.isVirtualBackgroundEnabled
    return enabled
}

/// Step 4, verbatim.
func pageStep4(meeting: SMeetingEngine) {
    /// Run segmentation every N frames (compositing still runs every frame); default 1
    meeting.setVirtualBackgroundInferenceInterval(2)

    /// Mask sync; default false
    meeting.setVirtualBackgroundMaskSync(true)
}

/// Step 5, verbatim.
func pageStep5(meeting: SMeetingEngine) {
    meeting.uninstallVirtualBackground()
}

/// "Frames are dropped on errors", verbatim.
func pageDroppedFrames(meeting: SMeetingEngine) {
    print(meeting.virtualBackground.droppedFrameCount)
}

/// The state the page lists on `meeting.virtualBackground`, and the errors it names.
func pageState(meeting: SMeetingEngine) -> (Int, Bool, Bool, SRTCVirtualBackgroundEffect, Int) {
    let state = meeting.virtualBackground
    return (state.droppedFrameCount, state.isInstalled, state.isEnabled, state.effect, state.blurLevel)
}

func pageErrors() -> [SRTCError] {
    [.virtualBackgroundAlreadyInstalled, .virtualBackgroundModelNotFound("path"),
     .virtualBackgroundSessionFailed("message"), .virtualBackgroundNotInstalled]
}
