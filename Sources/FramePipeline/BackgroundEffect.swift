import Imaging

/// What replaces the background.
package enum BackgroundEffect: Sendable, Equatable {
    /// Blur at a level 1…10 (clamped).
    case blur(level: Int)
    /// A picture, cover-cropped to the frame (scaled to fill, centred, never stretched).
    /// `identifier` changes whenever the picture does, so a compositor can cache its crop.
    case image(Image, identifier: Int)

    package static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case let (.blur(a), .blur(b)): a == b
        case let (.image(_, a), .image(_, b)): a == b
        default: false
        }
    }
}
