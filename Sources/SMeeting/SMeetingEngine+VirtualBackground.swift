import SRTC

extension SMeetingEngine {
    /// Installs the virtual background component: loads the model and creates the inference
    /// session (about 3 ms optimised on a desktop CPU, 80 ms in a debug build, more on slow devices:
    /// don't call it on the main thread or the capture thread; it is safe from any thread). Off
    /// after installation.
    ///
    /// - Parameter modelPath: an ONNX model file; `nil` uses the built-in general model
    ///   (``SRTCVirtualBackgroundModel/landscape``'s `path` selects the landscape one).
    /// - Throws: `SRTCError.virtualBackgroundAlreadyInstalled`, `.virtualBackgroundModelNotFound(path)`,
    ///   `.virtualBackgroundSessionFailed(message)`.
    public func installVirtualBackground(modelPath: String? = nil) throws {
        try rtc.installVirtualBackground(modelPath: modelPath)
    }

    /// Releases the inference session and related buffers; effect settings are kept.
    public func uninstallVirtualBackground() { rtc.uninstallVirtualBackground() }

    /// Background blur, level 1…10 (default 5, clamped). Blur and image are mutually exclusive:
    /// the later call wins. Remembered before installation.
    public func setVirtualBackgroundBlur(level: Int) { rtc.setVirtualBackgroundBlur(level: level) }

    /// Background replacement, cover-cropped (never stretched); `nil` goes back to blur.
    /// Remembered before installation.
    public func setVirtualBackgroundImage(_ image: SRTCNativeImage?) { rtc.setVirtualBackgroundImage(image) }

    /// Turns the virtual background on or off (off clears the inter-frame state).
    ///
    /// - Throws: `SRTCError.virtualBackgroundNotInstalled` before installation.
    public func enableVirtualBackground(_ enabled: Bool) throws { try rtc.enableVirtualBackground(enabled) }

    /// Whether the virtual background is on.
    public var isVirtualBackgroundEnabled: Bool { rtc.isVirtualBackgroundEnabled }

    /// Segmentation every `interval` frames (default 1; below 1 means 1).
    public func setVirtualBackgroundInferenceInterval(_ interval: Int) {
        rtc.setVirtualBackgroundInferenceInterval(interval)
    }

    /// Mask sync (default off): frames without inference repeat the previous processed frame.
    public func setVirtualBackgroundMaskSync(_ enabled: Bool) { rtc.setVirtualBackgroundMaskSync(enabled) }

    /// The actual state: `droppedFrameCount`, `isInstalled`, `isEnabled`, `effect`, `blurLevel`.
    public var virtualBackground: SRTCVirtualBackgroundState { rtc.virtualBackground }
}
