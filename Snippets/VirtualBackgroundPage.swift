// The virtual background page's five steps with `import SMeeting` alone, in a sequence that runs
// top to bottom (Docs/SDK.md walks through it): the install runs off the calling thread as the page
// asks, and step 3's switch waits for it, since before the install completes the switch throws
// `virtualBackgroundNotInstalled`. Run: `swift run VirtualBackgroundPage` (CI checks what it prints).
import SMeeting

let meeting = SMeetingEngine()

// Step 1: Install the virtual background component
// snippet.install
/// Installing loads the model and creates an inference session, taking hundreds of milliseconds—don't call it on the main thread or the capture thread
let installation = Task.detached(priority: .userInitiated) {
    do {
        try meeting.installVirtualBackground()       // Pass nil for modelPath to use the built-in model
    } catch {
        print("Failed to install virtual background:", error.localizedDescription)
    }
}
// snippet.end

// Step 2: Set the background effect (remembered even while the install is still running)
// snippet.effect
/// Set background blur; level ranges from 1 to 10, default 5 (out-of-range values are clamped to the boundary)
meeting.setVirtualBackgroundBlur(level: 5)

/// Set background replacement, cropped to cover without stretching; pass nil to cancel replacement and go back to blur
meeting.setVirtualBackgroundImage(SRTCNativeImage(named: "background"))
// snippet.end
// Without a background.png (main bundle, else the working directory) the image is nil: blur stays.
print("effect:", meeting.virtualBackground.effect, "blur level:", meeting.virtualBackground.blurLevel)

// Step 3: Turn virtual background on or off
// snippet.enable
await installation.value                             // the switch needs the installed component

try meeting.enableVirtualBackground(true)

/// Query whether it's on
let enabled = meeting.isVirtualBackgroundEnabled
// snippet.end
print("installed:", meeting.virtualBackground.isInstalled, "enabled:", enabled)

// Step 4: Keep the frame rate up on low-end devices (optional)
// snippet.lowEnd
/// Run segmentation every N frames (compositing still runs every frame); default 1
meeting.setVirtualBackgroundInferenceInterval(2)

/// Mask sync; default false
meeting.setVirtualBackgroundMaskSync(true)
// snippet.end
print("inference interval:", meeting.virtualBackground.inferenceInterval, "mask sync:", meeting.virtualBackground.maskSync)

// Frames are dropped on errors
// snippet.dropped
print(meeting.virtualBackground.droppedFrameCount)
// snippet.end

// Step 5: Uninstall the virtual background component
// snippet.uninstall
meeting.uninstallVirtualBackground()
// snippet.end
print("installed:", meeting.virtualBackground.isInstalled, "enabled:", meeting.isVirtualBackgroundEnabled,
      "blur level:", meeting.virtualBackground.blurLevel, "inference interval:", meeting.virtualBackground.inferenceInterval)
