import AllocationCounter
import BuiltinModels
import FramePipeline
import Imaging
import Inference
import PipelineFakes
import Testing

@Test("scratch allocation breakdown") func scratch() throws {
    func count(_ name: String, _ body: () throws -> Void) rethrows {
        try body()
        let before = vbg_thread_allocation_count()
        try body()
        print("ALLOC \(name): \(vbg_thread_allocation_count() - before)")
    }
    let frame = makePersonFrame(width: 64, height: 48).image
    var mask = Mask(width: 64, height: 48, repeating: 0.5)
    let blur = BackgroundBlur()
    var out = frame
    out.bytes[0] = 1
    count("blurBackground") { blur.blurBackground(of: &out, mask: mask, strength: BlurStrength(level: 4)) }
    count("radii") { _ = BlurStrength(level: 4).radii(width: 64, height: 48) }
    let bg = Image(width: 64, height: 48)
    count("composite") { Compositor.composite(person: frame, background: bg, mask: mask, into: &out) }
    let sampler = ModelInputSampler(sourceWidth: 64, sourceHeight: 48, tensorWidth: 256, tensorHeight: 144)
    let tensor = UnsafeMutableBufferPointer<Float>.allocate(capacity: sampler.tensorCount)
    count("sample") { sampler.sample(frame, into: tensor) }
    let up = MaskUpsampler(sourceWidth: 256, sourceHeight: 144, targetWidth: 64, targetHeight: 48)
    let small = UnsafeMutableBufferPointer<Float>.allocate(capacity: 256 * 144)
    small.initialize(repeating: 0)
    try mask.values.withUnsafeMutableBufferPointer { m in
        count("upsample") { up.upsample(UnsafeBufferPointer(small), into: m) }
        let session = try InferenceSession(model: try InferenceModel(contentsOfFile: BuiltinModel.landscape.url.path))
        try count("run") { try session.run(input: UnsafeBufferPointer(tensor), output: small) }
    }
}
