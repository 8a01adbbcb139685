// What the virtual background page uses from the audio and video layer, re-exported so that
// `import SMeeting` alone is enough for it.
//
// Only these types are re-exported, not the whole SRTC module: SMeeting users get the error type,
// the image type, the state and video types the meeting API mentions, and nothing that speaks of
// channels (SRTCEngine, SRTCChannel), so the two layers' vocabularies stay apart. Apps that need
// the lower level (custom tracks, the capture pipeline) import SRTC themselves.
import Foundation
@_exported import enum SRTC.SRTCError
@_exported import struct SRTC.SRTCVirtualBackgroundState
@_exported import enum SRTC.SRTCVirtualBackgroundEffect
@_exported import enum SRTC.SRTCVirtualBackgroundModel
@_exported import class SRTC.SRTCVideoStream
@_exported import typealias SRTC.SRTCVideoFrame
#if canImport(UIKit) || canImport(AppKit)
@_exported import typealias SRTC.SRTCNativeImage
#else
@_exported import class SRTC.SRTCNativeImage
#endif
