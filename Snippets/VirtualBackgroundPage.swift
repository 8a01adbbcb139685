// The virtual background page's Swift snippets, verbatim, compiled by `swift build` with
// `import SMeeting` alone (Docs/SDK.md walks through them). Run: `swift run VirtualBackgroundPage`.
import SMeeting

let meeting = SMeetingEngine()

// Step 1: Install the virtual background component
// snippet.install
/// Installing loads the model and creates an inference session, taking hundreds of milliseconds—don't call it on the main thread or the capture thread
Task.detached(priority: .userInitiated) {
    do {
        try meeting.installVirtualBackground()       // Pass nil for modelPath to use the built-in model
    } catch {
        print("Failed to install virtual background:", error.localizedDescription)
    }
}
// snippet.end

// Step 2: Set the background effect
// snippet.effect
/// Set background blur; level ranges from 1 to 10, default 5 (out-of-range values are clamped to the boundary)
meeting.setVirtualBackgroundBlur(level: 5)

/// Set background replacement, cropped to cover without stretching; pass nil to cancel replacement and go back to blur
meeting.setVirtualBackgroundImage(SRTCNativeImage(named: "background"))
// snippet.end

func step3() throws {
    // snippet.enable
    try meeting.enableVirtualBackground(true)

    /// Query whether it's on
    let enabled = meeting.isVirtualBackgroundEnabled
    // snippet.end
    print("enabled:", enabled)
}

// Step 4: Keep the frame rate up on low-end devices (optional)
// snippet.lowEnd
/// Run segmentation every N frames (compositing still runs every frame); default 1
meeting.setVirtualBackgroundInferenceInterval(2)

/// Mask sync; default false
meeting.setVirtualBackgroundMaskSync(true)
// snippet.end

// Frames are dropped on errors
// snippet.dropped
print(meeting.virtualBackground.droppedFrameCount)
// snippet.end

// Step 5: Uninstall the virtual background component
// snippet.uninstall
meeting.uninstallVirtualBackground()
// snippet.end
