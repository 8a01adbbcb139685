import AllocationCounter
import Testing
@testable import Kernels

// Shared sweep for the element-wise, softmax, resize, pooling and copy kernels: odd channel
// counts and sizes (widths not multiples of 16), dense and padded layouts on either side, 1 and
// 2 threads.

/// Channel counts × heights × widths every such kernel is checked on.
let oddShapes: [(channels: Int, height: Int, width: Int)] = [(1, 1, 1), (3, 5, 7), (17, 33, 19), (3, 19, 33), (1, 2, 40)]

/// Input and output layouts (by pad; 0 is dense) every such kernel is checked on.
let layoutPairs: [(input: Int, output: Int)] = [(0, 0), (1, 0), (0, 2), (2, 1)]

/// Heap allocations `body` makes on this thread.
func allocations(_ body: () -> Void) -> Int {
    let before = vbg_thread_allocation_count()
    body()
    return Int(vbg_thread_allocation_count() - before)
}

/// Runs `kernel(input, output, pool)` on a 1-thread and a 2-thread pool, each time into a fresh
/// zeroed output of `outputChannels`×`outputHeight`×`outputWidth` with a border of `outputPad`;
/// checks that the results are bit-identical and the output border stayed zero, and returns the
/// 1-thread result as dense NCHW.
func runOnBothPools(_ input: FeatureMapStorage, outputChannels: Int, outputHeight: Int, outputWidth: Int, outputPad: Int,
                    _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
                    _ kernel: (FeatureMap, FeatureMap, WorkerPool) -> Void) -> [Float] {
    var results: [[Float]] = []
    for threads in [1, 2] {
        let output = FeatureMapStorage(channels: outputChannels,
                                       layout: .padded(width: outputWidth, height: outputHeight, pad: outputPad))
        kernel(input.map, output.map, WorkerPool(threads: threads))
        #expect(borderIsZero(output), "\(what): output border written", sourceLocation: sourceLocation)
        results.append(output.interior())
    }
    #expect(results[0].elementsEqual(results[1]) { $0.bitPattern == $1.bitPattern },
            "\(what): 1 and 2 threads differ", sourceLocation: sourceLocation)
    return results[0]
}
