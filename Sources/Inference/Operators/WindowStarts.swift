/// Calls `body(front, top, left)` once per output position of a window sliding over three axes,
/// in C order (depth, then height, then width), with the window's first input index on each
/// axis (negative where the window starts in the begin padding). A 1-D or 2-D window runs with
/// `WindowAxis.unit` for the missing axes. Conv's and the pools' reference kernels walk their
/// outputs with it.
@inline(__always)
func forEachWindowStart(_ depth: WindowAxis, _ height: WindowAxis, _ width: WindowAxis,
                        _ body: (_ front: Int, _ top: Int, _ left: Int) -> Void) {
    for od in 0..<depth.output {
        let front = od * depth.stride - depth.padBegin
        for oh in 0..<height.output {
            let top = oh * height.stride - height.padBegin
            for ow in 0..<width.output { body(front, top, ow * width.stride - width.padBegin) }
        }
    }
}
