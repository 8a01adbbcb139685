import Imaging
import PNGCodec

/// Reads PNG files for ``SRTCNativeImage`` and the PNG-sequence camera.
enum PNGLoading {
    static func load(path: String) -> Image? {
        try? PNG.read(contentsOfFile: path)
    }
}
