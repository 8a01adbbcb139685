import FramePipeline
import Imaging

/// `vbg replace IN.png OUT.png --background BG.png [--model …]`: puts the person on a picture.
let replaceCommand = Command(
    name: "replace",
    summary: "replace the background of a PNG with a picture",
    usage: """
        usage: vbg replace IN.png OUT.png --background BG.png [--model auto|general|landscape|PATH]

        Segments the person, fits BG.png to the frame (scaled to cover, centre-cropped, never
        stretched) and composites with the smoothstep edge ramp. Writes an opaque RGBA PNG (alpha
        255; an input's alpha is not used). OUT is checked before the work starts.
        """,
    run: { arguments in
        guard let backgroundPath = try arguments.value("background") else { throw CLIError.usage("--background is required") }
        let model = try arguments.value("model") ?? "auto"
        let paths = try arguments.positionals("IN.png", "OUT.png")
        try arguments.finish()
        try OutputFile.check(paths[1])
        try OutputFile.checkFormat(paths[1], of: "OUT.png", format: "PNG", extensions: ["png"])
        let frame = try ImageFiles.read(paths[0])
        let picture = try ImageFiles.read(backgroundPath)
        try ImageFiles.write(try Picture.applying(.image(picture, identifier: 0), to: frame, model: model), to: paths[1])
    })
