import Foundation
import NumpyFormat

extension Fixtures {
    /// A fixture `.npy` (path under `Fixtures/`) as float32 values with its shape.
    ///
    /// - Throws: `NumpyError` naming the file when it is missing or malformed.
    package static func floats(_ relativePath: String) throws -> (values: [Float], shape: [Int]) {
        let array = try NumpyArray(contentsOfFile: url(relativePath).path)
        return (try array.floats(), array.shape)
    }
}
