/// ONNX `Scatter` (9, 11; deprecated for `ScatterElements`): the same op without `reduction`,
/// `axis` and all; ScatterElements' builder reads the version and refuses `reduction` below 16.
enum Scatter {
    static let build = ScatterElements.build
}
