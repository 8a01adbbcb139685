import FramePipeline
import Imaging

/// `vbg blur IN.png OUT.png [--level N] [--model …]`: segments the person and blurs the rest.
let blurCommand = Command(
    name: "blur",
    summary: "blur the background of a PNG (segmentation + mask-weighted blur)",
    usage: """
        usage: vbg blur IN.png OUT.png [--level 1-10] [--model auto|general|landscape|PATH]

        Segments the person (MediaPipe selfie segmentation: by default the built-in model that fits
        the picture, landscape when it is wider than 4:3, general otherwise) and blurs the
        background with a mask-weighted three-pass box blur close to a Gaussian of
        σ = level × 0.0045 × the shorter side (1080p: 4.9 px at level 1, 24.3 at 5, 48.6 at 10).
        --level is 1 (light) to 10 (strong), default 5; any other value is a usage error. Writes an
        RGBA PNG; the output is opaque (alpha 255): an input's alpha is not used. OUT is checked
        before the work starts and written whole or not at all.
        """,
    run: { arguments in
        // The SDK clamps a level (the product page says so); a command line refuses it, so a typo
        // never passes as a different level.
        let level = try arguments.integer("level", default: BlurStrength.defaultLevel, in: BlurStrength.levels)
        let model = try arguments.value("model") ?? "auto"
        let paths = try arguments.positionals("IN.png", "OUT.png")
        try arguments.finish()
        try OutputFile.check(paths[1])
        try OutputFile.checkFormat(paths[1], of: "OUT.png", format: "PNG", extensions: ["png"])
        let frame = try ImageFiles.read(paths[0])
        try ImageFiles.write(try Picture.applying(.blur(level: level), to: frame, model: model), to: paths[1])
    })
