import Imaging

extension SRTCEngine {
    /// Installs the virtual background component: loads the model and creates the inference session.
    ///
    /// Takes about 3 ms per model in an optimised build on a desktop CPU (a `nil` path installs
    /// two), about 80 ms per model in a debug build, more on slow devices: call it off the main thread and the capture thread (it is
    /// safe from any thread; frames keep flowing meanwhile). After installation the virtual
    /// background is off; effect settings made before apply.
    ///
    /// - Parameter modelPath: an ONNX model file; `nil` installs both built-in models and segments
    ///   each frame with the one whose input shape fits it (landscape for frames wider than 4:3,
    ///   general otherwise). For one built-in model alone pass ``SRTCVirtualBackgroundModel``'s
    ///   `path` (`.general.path`, `.landscape.path`).
    /// - Throws: ``SRTCError/virtualBackgroundAlreadyInstalled`` (nothing changes),
    ///   ``SRTCError/virtualBackgroundModelNotFound(_:)`` with the path,
    ///   ``SRTCError/virtualBackgroundSessionFailed(_:)`` with the reason (stays uninstalled).
    public func installVirtualBackground(modelPath: String? = nil) throws {
        try capturePipeline.component.install(modelPath: modelPath)
    }

    /// Installs the virtual background component with a person-segmentation model of your own,
    /// described in code: its input (name, NCHW or NHWC, RGB or BGR, the range pixel values 0…255
    /// map to, mean and std) and its mask output (name, layout, activation, person channel).
    ///
    /// Fields the description leaves out come from a `MODEL.onnx.json` file beside the model, the
    /// model's `vbg.segmentation` metadata entry, or detection from the graph (Docs/Models.md).
    /// Masks from the model go through the same smoothing, compositing and frame policy as the
    /// built-in models'.
    ///
    /// - Throws: as ``installVirtualBackground(modelPath:)``; a bad description is
    ///   ``SRTCError/virtualBackgroundSessionFailed(_:)`` naming the field.
    public func installVirtualBackground(modelPath: String, description: SRTCVirtualBackgroundModelDescription) throws {
        try capturePipeline.component.install(modelPath: modelPath, description: description)
    }

    /// Releases the inference session and the processing buffers. Effect settings (blur level,
    /// image, inference interval, mask sync) are kept and apply after the next installation.
    public func uninstallVirtualBackground() {
        capturePipeline.component.uninstall()
    }

    /// Background blur at `level` 1…10 (default 5; values outside are clamped). Replaces an image
    /// background (the later call wins). Remembered before installation.
    public func setVirtualBackgroundBlur(level: Int) {
        capturePipeline.component.setBlur(level: level)
    }

    /// Background replacement with `image`, cover-cropped to the frame (scaled to fill and
    /// centred, never stretched); `nil` goes back to blur. Replaces blur (the later call wins).
    /// Remembered before installation.
    public func setVirtualBackgroundImage(_ image: SRTCNativeImage?) {
        capturePipeline.component.setImage(image.flatMap { Image(nativeImage: $0) })
    }

    /// Turns the virtual background on or off. Off: frames pass through untouched (no copy, no
    /// inference) and the inter-frame state is cleared, so turning it on again converges from the
    /// first frame without a stale mask.
    ///
    /// - Throws: ``SRTCError/virtualBackgroundNotInstalled`` before installation.
    public func enableVirtualBackground(_ enabled: Bool) throws {
        try capturePipeline.component.enable(enabled)
    }

    /// Whether the virtual background is on.
    public var isVirtualBackgroundEnabled: Bool { capturePipeline.component.state.isEnabled }

    /// Runs segmentation every `interval` frames (default 1; values below 1 are 1); compositing
    /// still runs every frame with the latest mask.
    public func setVirtualBackgroundInferenceInterval(_ interval: Int) {
        capturePipeline.component.setInferenceInterval(interval)
    }

    /// Mask sync (default off): when on, frames without inference are not recomposited; the
    /// previous processed frame is sent again, so video and mask always come from the same moment.
    /// No effect with an inference interval of 1.
    public func setVirtualBackgroundMaskSync(_ enabled: Bool) {
        capturePipeline.component.setMaskSync(enabled)
    }

    /// The virtual background's actual state.
    public var virtualBackground: SRTCVirtualBackgroundState { capturePipeline.component.state }

    // MARK: Lower level

    /// Clears the camera pipeline's inter-frame state (smoothed mask, inference schedule).
    public func resetVirtualBackgroundState() {
        capturePipeline.cameraProcessor.reset()
    }

    /// Diagnostics of the camera pipeline's virtual background: per-stage timings, inference
    /// count, dropped frames.
    public var virtualBackgroundDiagnostics: SRTCVirtualBackgroundDiagnostics {
        capturePipeline.cameraProcessor.diagnostics
    }

    /// Bytes held by the installed inference session (0 when uninstalled).
    public var virtualBackgroundSessionBytes: Int { capturePipeline.component.sessionBytes }

    /// A processor applying the device-level virtual background to a custom video track, with its
    /// own inter-frame state (see ``SRTCCustomVideoTrack/attachVirtualBackground(_:)``).
    public func makeVirtualBackgroundProcessor() -> SRTCVirtualBackgroundProcessor {
        SRTCVirtualBackgroundProcessor(component: capturePipeline.component)
    }
}
