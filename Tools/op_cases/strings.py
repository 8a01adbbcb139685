"""StringNormalizer, StringConcat, StringSplit and Equal on string tensors (numpy's <U dtype in the .npy files, which needs no pickle).

onnxruntime builds its case mappings from the node's `locale`, and this machine has no en_US locale
(the default), so the cases that change case name `C.UTF-8`."""

import numpy as np


def build_cases(rng, Case):
    def words(*values, shape=None):
        array = np.array(values)
        return array.reshape(shape) if shape else array

    def data(name, value):
        return (name, "data", value)

    from onnx import TensorProto
    STRING = TensorProto.STRING
    utf8 = "C.UTF-8"
    cases = [
        Case("string_normalizer_stopwords_upper", "StringNormalizer",
             [data("X", words("monday", "Tuesday", "wednesday", "MONDAY", "friday"))],
             {"case_change_action": "UPPER", "stopwords": ["Monday"], "locale": utf8}, output_type=STRING,
             what="case-insensitive stopwords removed, the rest upper-cased"),
        Case("string_normalizer_case_sensitive_lower_2d", "StringNormalizer",
             [data("X", words("Monday", "monday", "TUESDAY", "Wednesday", shape=(1, 4)))],
             {"case_change_action": "LOWER", "is_case_sensitive": 1, "stopwords": ["Monday"], "locale": utf8},
             output_type=STRING, what="[1, C]: only the exact stopword removed, the rest lower-cased"),
        Case("string_normalizer_all_removed", "StringNormalizer", [data("X", words("a", "A", "a"))],
             {"stopwords": ["a"], "locale": utf8}, output_type=STRING,
             what="every element a stopword: one empty string"),
        Case("string_normalizer_default", "StringNormalizer", [data("X", words("Mixed Case", "", "x y"))],
             output_type=STRING, what="no attributes: unchanged, the empty string kept"),
    ]
    cases += [
        Case("equal_strings_broadcast", "Equal",
             [data("A", words("a", "bc", "", "é", "d", "bc", shape=(2, 3))), data("B", words("bc", "", "é"))],
             opset=19, output_type=TensorProto.BOOL, what="strings compared element-wise, B broadcast over A's rows"),
        Case("string_concat_broadcast", "StringConcat",
             [data("A", words("a", "", "é", "xy", shape=(2, 2, 1))), data("B", words("-1", "ü", shape=(1, 2)))],
             opset=20, output_type=STRING, what="each A element followed by B's, broadcast both ways"),
    ]
    cases[-1].output_shapes = [[2, 2, 2]]  # onnx infers no shape for StringConcat
    cases += [
        Case("string_split_delimiter_maxsplit", "StringSplit", [data("X", words("a,b,,c", "x", "x,y", ",", shape=(2, 2)))],
             {"delimiter": ",", "maxsplit": 2}, n_outputs=2, opset=20, output_type=[STRING, TensorProto.INT64],
             what="at most 2 splits at ',', empty pieces kept, rows padded with empty strings"),
        Case("string_split_whitespace", "StringSplit", [data("X", words("  one two  three ", "", "solo", "a  b"))],
             n_outputs=2, opset=20, output_type=[STRING, TensorProto.INT64],
             what="no delimiter: runs of whitespace separate, none at either end"),
    ]
    cases[-2].output_shapes = [[2, 2, 3], [2, 2]]
    cases[-1].output_shapes = [[4, 3], [4]]
    cases[2].reference_is_wrong = ("onnx.reference compares the stopwords case-sensitively unless the case is changed; "
                                   "is_case_sensitive 0 (the default) asks for a case-insensitive comparison (onnxruntime's)")
    cases[3].reference_is_wrong = "onnx.reference drops empty strings from every output; the spec removes only stopwords"
    return cases
