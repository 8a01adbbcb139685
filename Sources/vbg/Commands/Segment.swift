import Imaging
import NumpyFormat
import PNGCodec

/// `vbg segment IN.png [--mask OUT.png] [--mask-npy OUT.npy] [--model …]`: the person mask.
let segmentCommand = Command(
    name: "segment",
    summary: "write the full-resolution person mask of a PNG",
    usage: """
        usage: vbg segment IN.png [--mask OUT.png] [--mask-npy OUT.npy] [--model auto|general|landscape|PATH]

        The mask MediaPipe's SelfieSegmentation would give (same preprocessing and upsampling):
        --mask writes it as an 8-bit grey PNG (round(255·m)), --mask-npy as float32 [H, W].
        Without either, prints the fraction of pixels above 0.5.
        """,
    run: { arguments in
        let pngPath = try arguments.value("mask")
        let npyPath = try arguments.value("mask-npy")
        let model = try arguments.value("model") ?? "auto"
        let paths = try arguments.positionals("IN.png")
        try arguments.finish()
        for path in [pngPath, npyPath].compactMap({ $0 }) { try OutputFile.check(path) }
        if let pngPath { try OutputFile.checkFormat(pngPath, of: "--mask", format: "PNG", extensions: ["png"]) }
        if let npyPath { try OutputFile.checkFormat(npyPath, of: "--mask-npy", format: ".npy", extensions: ["npy"]) }
        let frame = try ImageFiles.read(paths[0])
        let mask = try Picture.mask(of: frame, model: model)
        if let pngPath {
            let grey = GrayImage(width: mask.width, height: mask.height,
                                 bytes: mask.values.map { UInt8((min(max($0, 0), 1) * 255).rounded()) })
            do { try PNG.write(grey, toFile: pngPath) } catch { throw CLIError.input(String(describing: error)) }
        }
        if let npyPath {
            let array = NumpyArray(shape: [mask.height, mask.width], floats: mask.values)
            try OutputFile.write(npyPath) { temporary in
                do { try array.write(toFile: temporary) } catch { throw CLIError.input(String(describing: error)) }
            }
        }
        if pngPath == nil && npyPath == nil {
            let above = mask.values.filter { $0 > 0.5 }.count
            print("person: \(String(format: "%.4f", Double(above) / Double(mask.values.count))) of \(mask.width)x\(mask.height) pixels above 0.5")
        }
    })
