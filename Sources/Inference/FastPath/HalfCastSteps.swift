import Kernels

// Cast between float16 and float32 on the fast path: a converted float16 model's Casts at its
// inputs and outputs and around the ops its converter kept in float32 (`Kernels/HalfConversion.swift`,
// bit for bit the reference's `Half` conversions), which on the reference kernel cost more than
// the layers between them.

extension StepBuilder {
    /// Cast float16 → float32 or float32 → float16; nil for the other conversions (reference kernel).
    func halfCastStep(_ cast: Cast, _ inputs: [UnsafePointer<Float>], _ outputs: [UnsafeMutablePointer<Float>]) -> (any Step)? {
        switch (cast.source, cast.outputTypes[0]) {
        case (.float16, .float32):
            return WidenHalvesStep(source: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt16.self), target: outputs[0], count: cast.count)
        case (.float32, .float16):
            return NarrowToHalvesStep(source: inputs[0], target: UnsafeMutableRawPointer(outputs[0]).assumingMemoryBound(to: UInt16.self),
                                      count: cast.count)
        default:
            return nil
        }
    }
}

final class WidenHalvesStep: Step {
    let source: UnsafePointer<UInt16>, target: UnsafeMutablePointer<Float>, count: Int
    func run() { widenHalves(source, target, count: count) }

    init(source: UnsafePointer<UInt16>, target: UnsafeMutablePointer<Float>, count: Int) {
        self.source = source
        self.target = target
        self.count = count
    }
}

final class NarrowToHalvesStep: Step {
    let source: UnsafePointer<Float>, target: UnsafeMutablePointer<UInt16>, count: Int
    func run() { narrowToHalves(source, target, count: count) }

    init(source: UnsafePointer<Float>, target: UnsafeMutablePointer<UInt16>, count: Int) {
        self.source = source
        self.target = target
        self.count = count
    }
}
