"""RNN, GRU and LSTM cases (opsets 7, 14 and 22): each op forward, reverse and bidirectional, with
and without B, sequence_lens (shorter than the sequence, int32 graph
input), initial_h (and initial_c and the peepholes P for LSTM); non-default activations with
activation_alpha / activation_beta consumed in order, clip, GRU's linear_before_reset, LSTM's
input_forget. Odd sizes throughout: hidden 5, input 3, batch 2, sequence 4.

onnx.reference's recurrent kernels ignore sequence_lens, clip, input_forget and (but RNN's Tanh and
Affine) the activations attributes; the cases using them skip its cross-check and rest on
onnxruntime alone (`reference_is_wrong` says which attribute).

No case has `layout` 1: onnxruntime 1.32's CPU kernels refuse it ("Batchwise recurrent operations
(layout == 1) are not supported"). The batch-major layout is checked by onnx's node tests
(test_*_batchwise, against onnx's own expected outputs) and by RecurrentOperatorTests (layout 1
on transposed data equals layout 0)."""

import numpy as np

HIDDEN, INPUT, BATCH, SEQ = 5, 3, 2, 4
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def build_cases(rng, Case):
    def x(*shape, scale=1.0):
        return (scale * rng.standard_normal(shape)).astype(np.float32)

    def data(name, value):
        return (name, "data", value)

    def param(name, value):
        return (name, "param", value)

    empty = ("", "empty", None)
    cases = []

    def rnn(name, op, direction="forward", layout=0, bias=False, lengths=None, initial_h=False, initial_c=False,
            peepholes=False, n_outputs=None, opset=14, what="", ignored=None, **attrs):
        dirs = 2 if direction == "bidirectional" else 1
        gates = GATES[op]
        xs = (BATCH, SEQ, INPUT) if layout else (SEQ, BATCH, INPUT)
        state = (BATCH, dirs, HIDDEN) if layout else (dirs, BATCH, HIDDEN)
        ins = [data("X", x(*xs)), param("W", x(dirs, gates * HIDDEN, INPUT, scale=0.6)),
               param("R", x(dirs, gates * HIDDEN, HIDDEN, scale=0.6))]
        optional = [("B", bias and param("B", x(dirs, 2 * gates * HIDDEN, scale=0.5))),
                    ("sequence_lens", lengths is not None and data("sequence_lens", np.array(lengths, dtype=np.int32))),
                    ("initial_h", initial_h and data("initial_h", x(*state)))]
        if op == "LSTM":
            optional += [("initial_c", initial_c and data("initial_c", x(*state))),
                         ("P", peepholes and param("P", x(dirs, 3 * HIDDEN, scale=0.5)))]
        ins += [value if value else empty for _, value in optional]
        attrs = {"hidden_size": HIDDEN, **({"direction": direction} if direction != "forward" else {}),
                 **({"layout": layout} if layout else {}), **attrs}
        outputs = n_outputs or (3 if op == "LSTM" else 2)
        case = Case(name, op, ins, attrs, n_outputs=outputs, opset=opset, what=what)
        if ignored:
            case.reference_is_wrong = f"onnx.reference's {op} ignores {ignored}"
        cases.append(case)

    for op in ("RNN", "GRU", "LSTM"):
        low = op.lower()
        rnn(f"{low}_forward_defaults_opset7", op, opset=7, what="X, W, R only: no bias, zero initial state")
        rnn(f"{low}_forward_y_only", op, bias=True, n_outputs=1, what="only Y")
        rnn(f"{low}_reverse_bias_initial_h", op, direction="reverse", bias=True, initial_h=True, initial_c=True)
        rnn(f"{low}_bidirectional_bias_initial_h", op, direction="bidirectional", bias=True, initial_h=True, initial_c=True)
        rnn(f"{low}_forward_sequence_lens", op, bias=True, lengths=[3, 1], initial_h=True,
            what="lengths 3 and 1 of 4: Y zero past them, Y_h the last valid step", ignored="sequence_lens")
        rnn(f"{low}_bidirectional_sequence_lens", op, direction="bidirectional", bias=True, lengths=[2, 4], initial_h=True,
            initial_c=True, what="the reverse direction starts at each entry's last valid step", ignored="sequence_lens")
        rnn(f"{low}_reverse_opset22", op, direction="reverse", bias=True, initial_h=True, opset=22,
            what="RNN/GRU/LSTM-22 only added bfloat16")
        rnn(f"{low}_clip", op, bias=True, initial_h=True, clip=0.4, what="gate inputs bounded to [-0.4, 0.4]",
            ignored="clip")

    # Non-default activations, each direction its own, alpha and beta consumed in order by the
    # functions that take them.
    rnn("rnn_activations_bidirectional", "RNN", direction="bidirectional", bias=True, initial_h=True,
        activations=["LeakyRelu", "HardSigmoid"], activation_alpha=[0.2, 0.3], activation_beta=[0.6],
        what="LeakyRelu(0.2) forward, HardSigmoid(0.3, 0.6) reverse", ignored="activations")
    rnn("rnn_activations_relu_softsign", "RNN", direction="bidirectional", bias=True,
        activations=["Relu", "Softsign"], ignored="activations")
    rnn("rnn_activations_scaledtanh_elu", "RNN", direction="bidirectional", bias=True, initial_h=True,
        activations=["ScaledTanh", "Elu"], activation_alpha=[1.5, 0.7], activation_beta=[0.8],
        what="ScaledTanh(1.5, 0.8), Elu(0.7)", ignored="activations")
    rnn("rnn_activations_thresholded_softplus", "RNN", direction="bidirectional", bias=True,
        activations=["ThresholdedRelu", "Softplus"], activation_alpha=[0.1], ignored="activations")
    rnn("rnn_activation_affine", "RNN", bias=True, activations=["Affine"], activation_alpha=[0.5],
        activation_beta=[-0.25], what="a linear cell (onnx.reference implements Affine)")
    rnn("gru_activations_bidirectional", "GRU", direction="bidirectional", bias=True, initial_h=True,
        activations=["HardSigmoid", "Softsign", "Sigmoid", "LeakyRelu"], activation_alpha=[0.25, 0.05],
        activation_beta=[0.45], what="HardSigmoid(0.25, 0.45), Softsign; Sigmoid, LeakyRelu(0.05)", ignored="activations")
    rnn("gru_activations_sigmoid_elu", "GRU", bias=True, activations=["Sigmoid", "Elu"], ignored="activations",
        what="Elu with its default alpha 1")
    rnn("lstm_activations_bidirectional", "LSTM", direction="bidirectional", bias=True, initial_h=True, initial_c=True,
        activations=["HardSigmoid", "LeakyRelu", "Softsign", "Sigmoid", "Tanh", "ScaledTanh"],
        activation_alpha=[0.3, 0.1, 1.2], activation_beta=[0.4, 0.9],
        what="HardSigmoid(0.3, 0.4), LeakyRelu(0.1), Softsign; Sigmoid, Tanh, ScaledTanh(1.2, 0.9)", ignored="activations")
    rnn("lstm_activations_softplus_affine", "LSTM", bias=True, activations=["Sigmoid", "Softplus", "Affine"],
        activation_alpha=[0.8], activation_beta=[0.1], ignored="activations")

    # GRU: linear_before_reset applies the reset gate after the product with Rh and its bias.
    rnn("gru_linear_before_reset", "GRU", bias=True, initial_h=True, linear_before_reset=1)
    rnn("gru_linear_before_reset_bidirectional", "GRU", direction="bidirectional", bias=True,
        initial_h=True, linear_before_reset=1)
    rnn("gru_linear_before_reset_sequence_lens_clip", "GRU", direction="reverse", bias=True, lengths=[1, 3],
        initial_h=True, linear_before_reset=1, clip=0.5, ignored="sequence_lens and clip")

    # LSTM: peepholes, input_forget, initial_c alone.
    rnn("lstm_peepholes", "LSTM", bias=True, initial_h=True, initial_c=True, peepholes=True)
    rnn("lstm_peepholes_bidirectional", "LSTM", direction="bidirectional", bias=True,
        initial_h=True, initial_c=True, peepholes=True)
    rnn("lstm_peepholes_sequence_lens_reverse", "LSTM", direction="reverse", bias=True, lengths=[2, 3],
        initial_c=True, peepholes=True, what="initial_c without initial_h", ignored="sequence_lens")
    rnn("lstm_input_forget", "LSTM", bias=True, initial_h=True, initial_c=True, peepholes=True, input_forget=1,
        what="ft = 1 - it", ignored="input_forget")
    rnn("lstm_clip_cell_beyond", "LSTM", bias=True, initial_h=True, initial_c=True, clip=0.3,
        what="a cell state beyond the clip threshold (Ct itself is not clipped)", ignored="clip")
    return cases
