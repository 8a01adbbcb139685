/// ONNX `Einsum` (12): a sum of products over the labels of `equation` (numpy's notation:
/// `"bij,bjk->bik"`; spaces ignored; `...` for broadcast leading dims, aligned from the right;
/// a label repeated in one operand takes its diagonal). Without `->` the output has the
/// ellipsis dims, then the labels that appear once, in alphabetical order. Every operand one type,
/// float32, double or float16; the products are summed in double over every combination of the
/// summed labels, then rounded once.
final class Einsum: Operator {
    var checksInputTypes: Bool { true }

    let dataInputs: [Int]
    let outputShapes: [[Int]]
    let outputTypes: [ElementType]
    /// Sizes of the output labels, then of the summed labels.
    let sizes: [Int]
    let outputLabels: Int
    /// Per operand, its element stride along each label of `sizes` (0 where it does not vary).
    let strides: [[Int]]

    static let build: OperatorBuilder = { context throws(ModelError) in
        let count = context.node.inputs.count
        try context.checkArity(inputs: max(1, count), max(1, count))
        try context.checkAttributes(["equation"])
        guard context.attribute("equation") != nil else {
            throw context.error(.malformed, "the attribute is required", attribute: "equation")
        }
        let equation = try context.string("equation", default: "")
        let type = try context.commonType(ofInputs: Array(0..<count), in: [.float32, .double, .float16])
        var shapes: [[Int]] = []
        for index in 0..<count { shapes.append(try context.shape(ofInput: index)) }
        func invalid(_ reason: String) -> ModelError { context.error(.invalidValue, "'\(equation)': \(reason)", attribute: "equation") }

        let text = equation.filter { $0 != " " }
        // The text between "->" arrows (Foundation's components(separatedBy:), which this module does not import).
        var sides = [""]
        var rest = Substring(text)
        while let c = rest.first {
            if rest.hasPrefix("->") { sides.append(""); rest = rest.dropFirst(2) } else { sides[sides.count - 1].append(c); rest = rest.dropFirst() }
        }
        guard sides.count <= 2 else { throw invalid("more than one '->'") }
        let terms = sides[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard terms.count == count else { throw invalid("\(terms.count) operands for \(count) inputs") }

        /// A term's labels: letters as their characters, "." for each ellipsis dim.
        func parse(_ term: String, rank: Int?) throws(ModelError) -> (letters: [Character], ellipsisAt: Int?) {
            var letters: [Character] = [], ellipsisAt: Int? = nil
            var rest = Substring(term)
            while let c = rest.first {
                if rest.hasPrefix("...") {
                    guard ellipsisAt == nil else { throw invalid("two ellipses in '\(term)'") }
                    ellipsisAt = letters.count
                    rest = rest.dropFirst(3)
                } else if c.isLetter && c.isASCII {
                    letters.append(c)
                    rest = rest.dropFirst()
                } else {
                    throw invalid("'\(c)' is not a label")
                }
            }
            if let rank, ellipsisAt == nil ? letters.count != rank : letters.count > rank {
                throw invalid("'\(term)' does not match an input of rank \(rank)")
            }
            return (letters, ellipsisAt)
        }
        var parsed: [(letters: [Character], ellipsisAt: Int?)] = []
        for (term, shape) in zip(terms, shapes) { parsed.append(try parse(term, rank: shape.count)) }
        let ellipsisRank = zip(parsed, shapes).map { $0.0.ellipsisAt == nil ? 0 : $0.1.count - $0.0.letters.count }.max() ?? 0

        // Label sizes: letters by character, ellipsis dims by position (broadcast: 1 or one size).
        var letterSize: [Character: Int] = [:], ellipsisSize = [Int](repeating: 1, count: ellipsisRank)
        var occurrences: [Character: Int] = [:]
        for ((letters, ellipsisAt), shape) in zip(parsed, shapes) {
            let e = ellipsisAt == nil ? 0 : shape.count - letters.count
            for (position, size) in shape.enumerated() {
                if let at = ellipsisAt, position >= at, position < at + e {
                    let slot = ellipsisRank - e + (position - at)
                    guard ellipsisSize[slot] == 1 || size == 1 || ellipsisSize[slot] == size else {
                        throw invalid("the ellipsis dims \(shape) do not broadcast")
                    }
                    if size != 1 { ellipsisSize[slot] = size }
                    continue
                }
                let letter = letters[ellipsisAt.map { position >= $0 + e ? position - e : position } ?? position]
                guard letterSize[letter] == nil || letterSize[letter] == size else {
                    throw invalid("label '\(letter)' has sizes \(letterSize[letter]!) and \(size)")
                }
                letterSize[letter] = size
            }
            for letter in letters { occurrences[letter, default: 0] += 1 }
        }
        // The output's labels: letters, and nil for each ellipsis dim in order.
        var output: [Character?] = []
        if sides.count == 2 {
            let (letters, ellipsisAt) = try parse(sides[1], rank: nil)
            guard Set(letters).count == letters.count else { throw invalid("a label repeats in the output") }
            for letter in letters where letterSize[letter] == nil { throw invalid("output label '\(letter)' is in no operand") }
            guard ellipsisAt != nil || ellipsisRank == 0 || ellipsisSize.allSatisfy({ $0 == 1 }) else {
                throw invalid("the output drops the ellipsis dims")
            }
            let at = ellipsisAt ?? letters.count
            output = letters[..<at].map { $0 } + (ellipsisAt == nil ? [] : Array(repeating: nil, count: ellipsisRank)) + letters[at...].map { $0 }
        } else {
            output = Array(repeating: nil, count: ellipsisRank) + occurrences.filter { $0.value == 1 }.keys.sorted().map { $0 }
        }
        let summed = letterSize.keys.filter { !output.contains($0) }.sorted()
        var sizes: [Int] = [], ellipsisSlot = 0
        for label in output {
            if let label { sizes.append(letterSize[label]!) } else { sizes.append(ellipsisSize[ellipsisSlot]); ellipsisSlot += 1 }
        }
        let outputShape = sizes
        sizes += summed.map { letterSize[$0]! }
        guard sizes.reduce(1, *) <= 1 << 28 else { throw context.error(.unsupported, "'\(equation)' needs \(sizes.reduce(1, *)) products; at most 2^28 are supported") }

        // Each operand's stride along every label (summed over repeats: the diagonal).
        var strides: [[Int]] = []
        for ((letters, ellipsisAt), shape) in zip(parsed, shapes) {
            let e = ellipsisAt == nil ? 0 : shape.count - letters.count
            let elementStrides = Shapes.strides(shape)
            var perLabel = [Int](repeating: 0, count: sizes.count)
            for (position, size) in shape.enumerated() {
                let label: Int
                if let at = ellipsisAt, position >= at, position < at + e {
                    guard size != 1 else { continue }
                    label = ellipsisRank - e + (position - at)   // the output's ellipsis dims, in order
                    let outputSlot = output.indices.filter { output[$0] == nil }[label]
                    perLabel[outputSlot] += elementStrides[position]
                    continue
                }
                let letter = letters[ellipsisAt.map { position >= $0 + e ? position - e : position } ?? position]
                label = output.firstIndex(of: letter) ?? (output.count + summed.firstIndex(of: letter)!)
                perLabel[label] += elementStrides[position]
            }
            strides.append(perLabel)
        }
        return Einsum(dataInputs: Array(0..<count), outputShapes: [outputShape], outputTypes: [type], sizes: sizes,
                      outputLabels: output.count, strides: strides)
    }

    func run(inputs: [UnsafePointer<Float>], outputs: [UnsafeMutablePointer<Float>]) {
        let y = UnsafeMutableRawPointer(outputs[0]), type = outputTypes[0]
        let outputCount = sizes[..<outputLabels].reduce(1, *), summedCount = sizes[outputLabels...].reduce(1, *)
        let operands = inputs.count, labels = sizes.count
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, labels)) { counter in
            for out in 0..<outputCount {
                // The output labels' values, the last fastest.
                var rest = out
                for label in (0..<outputLabels).reversed() { counter[label] = rest % sizes[label]; rest /= sizes[label] }
                var sum = 0.0
                for s in 0..<summedCount {
                    var restS = s
                    for label in (outputLabels..<labels).reversed() { counter[label] = restS % sizes[label]; restS /= sizes[label] }
                    var product = 1.0
                    for operand in 0..<operands {
                        var offset = 0
                        for label in 0..<labels { offset += counter[label] * strides[operand][label] }
                        product *= TensorElements.double(UnsafeRawPointer(inputs[operand]), at: offset, type)
                    }
                    sum += product
                }
                TensorElements.setDouble(sum, y, at: out, type)
            }
        }
    }

    init(dataInputs: [Int], outputShapes: [[Int]], outputTypes: [ElementType], sizes: [Int], outputLabels: Int,
         strides: [[Int]]) {
        self.dataInputs = dataInputs
        self.outputShapes = outputShapes
        self.outputTypes = outputTypes
        self.sizes = sizes
        self.outputLabels = outputLabels
        self.strides = strides
    }
}
