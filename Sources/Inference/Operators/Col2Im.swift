/// ONNX `Col2Im` (18): the inverse of im2col. `input` [N, C·∏block_shape, L] holds, for every
/// block position of a sliding window over the (padded) image, the window's values; each is
/// added back to its image position (overlapping windows sum). `image_shape` and `block_shape`
/// are constant 1-D inputs of one length d (the spatial rank); `dilations`, `pads` (begin then
/// end per axis) and `strides` as in `Conv`. L must be the number of window positions. The output
/// is [N, C, image_shape...], float32, double or float16, each sum rounded to that type as it goes
/// (tap by tap of the block, each over every window).
final class Col2Im: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs = [0]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    let channels: Int
    let image: [Int], block: [Int], positions: [Int]
    let dilations: [Int], strides: [Int], padsBegin: [Int]

    static let build: OperatorBuilder = { context throws(ModelError) in
        try context.checkArity(inputs: 3, 3)
        try context.checkAttributes(["dilations", "pads", "strides"])
        let type = try context.requireType(ofInput: 0, in: [.float32, .double, .float16])
        let x = try context.shape(ofInput: 0)
        guard let imageValues = try context.constantIntegers(1, "image_shape"),
              let blockValues = try context.constantIntegers(2, "block_shape") else {
            throw context.error(.malformed, "inputs 1 ('image_shape') and 2 ('block_shape') are required")
        }
        let d = imageValues.count
        guard d >= 1, blockValues.count == d, imageValues.allSatisfy({ $0 >= 1 && $0 <= 1 << 20 }),
              blockValues.allSatisfy({ $0 >= 1 && $0 <= 1 << 20 }) else {
            throw context.error(.invalidValue, "image_shape \(imageValues) and block_shape \(blockValues) must be positive and of one length")
        }
        let image = imageValues.map { Int($0) }, block = blockValues.map { Int($0) }
        let dilations = try context.ints("dilations", count: d, in: 1...(1 << 20)) ?? Array(repeating: 1, count: d)
        let strides = try context.ints("strides", count: d, in: 1...(1 << 20)) ?? Array(repeating: 1, count: d)
        let pads = try context.ints("pads", count: 2 * d, in: 0...(1 << 20)) ?? Array(repeating: 0, count: 2 * d)
        var positions: [Int] = []
        for axis in 0..<d {
            let span = dilations[axis] * (block[axis] - 1) + 1, padded = image[axis] + pads[axis] + pads[d + axis]
            guard padded >= span else {
                throw context.error(.invalidValue, "the block of \(span) (dilated) does not fit the padded image axis of \(padded)", attribute: "block_shape")
            }
            positions.append((padded - span) / strides[axis] + 1)
        }
        let kernel = block.reduce(1, *)
        guard x.count == 3, x[1] % kernel == 0, x[2] == positions.reduce(1, *) else {
            throw context.error(.invalidShape, "input 0 ('input') has shape \(x); it must be [N, C·\(kernel), \(positions.reduce(1, *))]")
        }
        let channels = x[1] / kernel
        guard ([x[0], channels] + image).reduce(1, *) <= Shapes.maximumElementCount else {
            throw context.error(.invalidShape, "the output image is too large")
        }
        return Col2Im(outputShapes: [[x[0], channels] + image], outputTypes: [type], channels: channels, image: image, block: block,
                      positions: positions, dilations: dilations, strides: strides, padsBegin: Array(pads.prefix(d)))
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let x = UnsafeRawPointer(inputs[0]), y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        let d = image.count, kernel = block.reduce(1, *), windows = positions.reduce(1, *), pixels = image.reduce(1, *)
        let planes = outputShapes[0][0] * channels
        for i in 0..<(planes * pixels) { TensorElements.setDouble(0, y, at: i, type) }
        for plane in 0..<planes {
            for k in 0..<kernel {
                for l in 0..<windows {
                    // The image position of tap k of window l, axis by axis (the last fastest).
                    var restK = k, restL = l, offset = 0, scale = 1, inside = true
                    for axis in (0..<d).reversed() {
                        let tap = restK % block[axis], window = restL % positions[axis]
                        restK /= block[axis]; restL /= positions[axis]
                        let at = window * strides[axis] - padsBegin[axis] + tap * dilations[axis]
                        if at < 0 || at >= image[axis] { inside = false; break }
                        offset += at * scale
                        scale *= image[axis]
                    }
                    guard inside else { continue }
                    let source = (plane * kernel + k) * windows + l, target = plane * pixels + offset
                    let sum = TensorElements.double(y, at: target, type) + TensorElements.double(x, at: source, type)
                    TensorElements.setDouble(sum, y, at: target, type)
                }
            }
        }
    }

    init(outputShapes: [[Int]], outputTypes: [ElementType], channels: Int, image: [Int], block: [Int], positions: [Int],
         dilations: [Int], strides: [Int], padsBegin: [Int]) {
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.channels = channels
        self.image = image
        self.block = block
        self.positions = positions
        self.dilations = dilations
        self.strides = strides
        self.padsBegin = padsBegin
    }
}
