import Kernels

// The matrix-product rule (a MatMul with the bias Add and the activation or GELU after it) and
// the GELU rule, both built in `MatrixProducts.swift`.

extension FusionRules {
    /// A MatMul by a constant [K, N] matrix that runs on the fast path (`runsAsOneProduct`), and what its step
    /// absorbs: an Add of a constant row of N values broadcast over the rows (the bias, either
    /// operand order), then an activation node (`kernelActivation(of:)`) or a GELU (`gelu(of:)`).
    /// Each absorbed node is the only reader of the value before it; none of the values in
    /// between is a graph output.
    func matchMatrixProduct(_ product: MatMul, _ node: PlannedNode) -> MatrixProductFusion? {
        guard hasConstantWeights(node),
              Self.runsAsOneProduct(product, a: graph.values[node.inputs[0]].shape, b: graph.values[node.inputs[1]].shape)
        else { return nil }
        let shape = product.outputShapes[0]
        var fusion = MatrixProductFusion(output: node.outputs[0])
        if let add = soleConsumer(of: fusion.output), let binary = add.operation as? ElementwiseBinary, binary.kind == .add,
           add.inputs.count == 2, add.inputs.filter({ $0 == fusion.output }).count == 1,
           graph.values[add.outputs[0]].shape == shape {
            let operand = add.inputs[0] == fusion.output ? add.inputs[1] : add.inputs[0]
            let rowShape = graph.values[operand].shape
            if constants.contains(operand), rowShape.last == product.columns, rowShape.dropLast().allSatisfy({ $0 == 1 }),
               rowShape.count <= shape.count {
                fusion.bias = operand
                fusion.output = add.outputs[0]
                fusion.absorbed.append(fusion.output)
            }
        }
        if let next = soleConsumer(of: fusion.output), let activation = Self.kernelActivation(of: next) {
            fusion.function = .activation(activation)
            fusion.output = next.outputs[0]
            fusion.absorbed.append(fusion.output)
        } else if !graph.outputIDs.contains(fusion.output), let chain = gelu(of: fusion.output) {
            fusion.function = .gelu(chain.argument)
            fusion.output = chain.output
            fusion.absorbed += chain.absorbed
        }
        return fusion.absorbed.isEmpty ? nil : fusion
    }

    /// The GELU whose first node (in the graph's order) is node `index`: `gelu(of:)` of a value
    /// that node reads, the leader's own output taken out of what it absorbs.
    func matchGelu(at index: Int) -> GeluChain? {
        for x in Set(graph.nodes[index].inputs) {
            guard var chain = gelu(of: x), chain.absorbed.map({ nodeIndex[$0]! }).min() == index else { continue }
            chain.absorbed.removeAll { graph.nodes[index].outputs.contains($0) }
            return chain
        }
        return nil
    }

    /// x · ½ · (1 + erf(x / √2)) of `value` (x), as exporters spell GELU: a Div of x by √2 (or a
    /// Mul by 1/√2), an Erf, an Add of 1, and two Muls combining x, that sum and ½ in any of the
    /// orders (x · s) · ½, (x · ½) · s or x · (s · ½). Every constant is one float32 value, exactly
    /// √2 (1.41421354), 1/√2 (0.707106769), 1 or ½; x has no readers outside the chain and no
    /// value inside it has a reader outside it or is a graph output; no node broadcasts.
    func gelu(of value: Int) -> GeluChain? {
        let shape = graph.values[value].shape
        guard consumers[value].count == 2, graph.values[value].type == .float32 else { return nil }
        let readers = consumers[value].map { graph.nodes[$0] }
        /// The binary node's operand other than `known`, if it is one of the two and the node
        /// keeps the shape.
        func other(_ node: PlannedNode, _ kind: ElementwiseBinary.Kind, _ known: Int) -> Int? {
            guard let binary = node.operation as? ElementwiseBinary, binary.kind == kind, node.inputs.count == 2,
                  node.inputs.filter({ $0 == known }).count == 1, graph.values[node.outputs[0]].shape == shape else { return nil }
            return node.inputs[0] == known ? node.inputs[1] : node.inputs[0]
        }
        func isConstant(_ v: Int, _ expected: Float) -> Bool {
            constants.contains(v) && graph.values[v].elementCount == 1 && constantFloats(v, count: 1) == [expected]
        }
        for (scaleNode, productNode) in [(readers[0], readers[1]), (readers[1], readers[0])] {
            let argument: GeluArgument
            if let divisor = other(scaleNode, .div, value), scaleNode.inputs[0] == value, isConstant(divisor, 1.414_213_54) {
                argument = .dividedBySqrt2
            } else if let factor = other(scaleNode, .mul, value), isConstant(factor, 0.707_106_769) {
                argument = .timesInverseSqrt2
            } else {
                continue
            }
            guard let erfNode = soleConsumer(of: scaleNode.outputs[0]), let erf = erfNode.operation as? ElementwiseUnary,
                  erf.kind == .erf, let addNode = soleConsumer(of: erfNode.outputs[0]),
                  let one = other(addNode, .add, erfNode.outputs[0]), isConstant(one, 1) else { continue }
            let sum = addNode.outputs[0]
            let front = [scaleNode.outputs[0], erfNode.outputs[0], sum]
            // (x · s) · ½ or (x · ½) · s: the product node reads x first.
            if let operand = other(productNode, .mul, value), let last = soleConsumer(of: productNode.outputs[0]) {
                let chain = GeluChain(input: value, argument: argument, output: last.outputs[0],
                                      absorbed: front + [productNode.outputs[0], last.outputs[0]])
                if operand == sum, soleConsumer(of: sum)?.outputs == productNode.outputs,
                   let half = other(last, .mul, productNode.outputs[0]), isConstant(half, 0.5) {
                    return chain
                }
                if isConstant(operand, 0.5), soleConsumer(of: sum)?.outputs == last.outputs,
                   other(last, .mul, productNode.outputs[0]) == sum {
                    return chain
                }
            }
            // x · (s · ½): the sum is halved first.
            if let halving = soleConsumer(of: sum), let half = other(halving, .mul, sum), isConstant(half, 0.5),
               other(productNode, .mul, value) == halving.outputs[0],
               soleConsumer(of: halving.outputs[0])?.outputs == productNode.outputs {
                return GeluChain(input: value, argument: argument, output: productNode.outputs[0],
                                 absorbed: front + [halving.outputs[0], productNode.outputs[0]])
            }
        }
        return nil
    }
}

/// A MatMul by a constant matrix with the bias Add and the element-wise function after it.
struct MatrixProductFusion {
    /// The bias row (a constant of N values), if an Add of it is absorbed.
    var bias: Int? = nil
    var function: VectorFunction? = nil
    /// The value the step writes.
    var output: Int
    var absorbed: [Int] = []
}

/// A GELU spelled as nodes (`FusionRules.gelu(of:)`).
struct GeluChain {
    /// x.
    let input: Int
    let argument: GeluArgument
    /// The last node's output: the value the step writes.
    let output: Int
    /// The outputs of the chain's nodes that its step does, the last one included.
    var absorbed: [Int]
}
