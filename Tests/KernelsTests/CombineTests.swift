import Testing
@testable import Kernels

@Suite("Broadcast rows of binary arithmetic")
struct CombineTests {
    @Test("combine gives the scalar operators' values for every operation, both steps, odd lengths",
          arguments: [BinaryOperation.add, .subtract, .multiply, .divide])
    func matchesScalar(operation: BinaryOperation) {
        for count in [1, 7, 16, 17, 40] {
            var random = Random(seed: UInt64(count))
            let a = random.array(count), b = random.array(count).map { $0 + 2 }
            for (aStep, bStep) in [(1, 1), (1, 0), (0, 1)] {
                var output = [Float](repeating: .nan, count: count)
                combine(a, step: aStep, b, step: bStep, operation: operation, output: &output, count: count)
                let expected = (0..<count).map { i -> Float in
                    let x = a[i * aStep], y = b[i * bStep]
                    switch operation {
                    case .add: return x + y
                    case .subtract: return x - y
                    case .multiply: return x * y
                    case .divide: return x / y
                    }
                }
                #expect(output == expected, "\(operation) count \(count) steps \(aStep), \(bStep)")
            }
        }
    }
}
