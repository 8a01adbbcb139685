import FramePipeline
import Imaging

/// `vbg blur IN.png OUT.png [--level N] [--model …]`: segments the person and blurs the rest.
let blurCommand = Command(
    name: "blur",
    summary: "blur the background of a PNG (segmentation + mask-weighted blur)",
    usage: """
        usage: vbg blur IN.png OUT.png [--level 1-10] [--model general|landscape|PATH]

        Segments the person (MediaPipe selfie segmentation, default model general), blurs the
        background with the mask-weighted three-pass box blur (level 1 light … 10 strong,
        default 5; any other level is a usage error; σ is a fixed fraction of the shorter side per level, see
        Sources/Imaging/README.md) and writes an RGBA PNG. The output is opaque (alpha 255): an input's
        alpha is not used. OUT is checked before the work starts and written whole or not at all.
        """,
    run: { arguments in
        // The SDK clamps a level (the product page says so); a command line refuses it, so a typo
        // never passes as a different level.
        let level = try arguments.integer("level", default: BlurStrength.defaultLevel, in: BlurStrength.levels)
        let model = try arguments.value("model") ?? "general"
        let paths = try arguments.positionals("IN.png", "OUT.png")
        try arguments.finish()
        try OutputFile.check(paths[1])
        let frame = try ImageFiles.read(paths[0])
        try ImageFiles.write(try Picture.applying(.blur(level: level), to: frame, model: model), to: paths[1])
    })
