// Picking the built-in landscape model instead of the default general one (Docs/SDK.md, step 1).
// Run: `swift run ChoosingTheModel`.
import SMeeting

let meeting = SMeetingEngine()

// snippet.landscape
do {
    // nil (the default) is the general 256×256 model; the landscape 256×144 one is cheaper for 16:9 video.
    try meeting.installVirtualBackground(modelPath: SRTCVirtualBackgroundModel.landscape.path)
} catch SRTCError.virtualBackgroundModelNotFound(let path) {
    print("No model at", path)
} catch SRTCError.virtualBackgroundSessionFailed(let reason) {
    print("The model could not be loaded:", reason)
} catch {
    print("Failed to install virtual background:", error.localizedDescription)
}
// snippet.end

// snippet.panel
let state = meeting.virtualBackground
print("installed:", state.isInstalled, "on:", state.isEnabled, "effect:", state.effect,
      "blur level:", state.blurLevel, "dropped:", state.droppedFrameCount)
// snippet.end
