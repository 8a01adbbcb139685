// What the virtual background page uses from the audio and video layer, re-exported so that
// `import SMeeting` alone is enough for it.
//
// Only these types are re-exported, not the whole SRTC module: SMeeting users get the error type,
// the image type, the state and video types the meeting API mentions, the device's camera capture
// pipeline with its camera types (the page's meetings receive the camera's frames: here nothing
// captures them unless the app, as the camera's driver, calls `captureFrames(_:)`), and nothing
// that speaks of channels (SRTCEngine, SRTCChannel), so the two layers' vocabularies stay apart.
// Apps that need the lower level (custom tracks, processors) import SRTC themselves.
import Foundation
@_exported import enum SRTC.SRTCError
@_exported import struct SRTC.SRTCVirtualBackgroundState
@_exported import enum SRTC.SRTCVirtualBackgroundEffect
@_exported import enum SRTC.SRTCVirtualBackgroundModel
@_exported import class SRTC.SRTCVideoStream
@_exported import typealias SRTC.SRTCVideoFrame
@_exported import class SRTC.SRTCCapturePipeline
@_exported import struct SRTC.SRTCCameraDevice
@_exported import enum SRTC.SRTCCameraPosition
@_exported import protocol SRTC.SRTCCameraSource
@_exported import enum SRTC.SRTCCameraSourceError
#if canImport(UIKit) || canImport(AppKit)
@_exported import typealias SRTC.SRTCNativeImage
#else
@_exported import class SRTC.SRTCNativeImage
#endif
