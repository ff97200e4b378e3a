#!/usr/bin/python3
"""Writes small ONNX models for the importer's lit tests: `onnx_models.py NAME OUT.onnx`.
Every model is built with onnx.helper; weights are seeded random arrays."""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(7)


def init(name, value, dtype=np.float32):
    return nh.from_array(np.asarray(value, dtype=dtype), name)


def rand(name, *shape):
    return init(name, RNG.standard_normal(shape))


def ints(name, values):
    return init(name, values, np.int64)


def model(nodes, inputs, outputs, inits=(), opset=13, name="g", ir=8):
    graph = h.make_graph(nodes, name, inputs, outputs, list(inits))
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = ir
    return m


def vi(name, shape, dtype=T.FLOAT):
    return h.make_tensor_value_info(name, dtype, shape)


def cnn():
    """Conv + BN + Relu, a Shape -> Gather -> Unsqueeze -> Concat -> Reshape chain, Gemm, Softmax."""
    nodes = [
        h.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
        h.make_node("BatchNormalization", ["c", "g", "be", "m", "v"], ["bn"], name="bn1"),
        h.make_node("Relu", ["bn"], ["relu_out"]),  # unnamed: located at its output's name
        h.make_node("Shape", ["relu_out"], ["s"], name="shape"),
        h.make_node("Gather", ["s", "i0"], ["n"], name="gather", axis=0),
        h.make_node("Unsqueeze", ["n", "ax0"], ["nu"], name="unsq"),
        h.make_node("Concat", ["nu", "minus1"], ["shp"], name="cat", axis=0),
        h.make_node("Reshape", ["relu_out", "shp"], ["flat"], name="reshape"),
        h.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["y"], name="fc", transB=1),
        h.make_node("Softmax", ["y"], ["prob"], name="softmax"),
    ]
    inits = [rand("w", 4, 3, 3, 3), rand("b", 4), init("g", np.ones(4)), init("be", np.zeros(4)),
             init("m", np.zeros(4)), init("v", np.ones(4)), ints("i0", 0), ints("ax0", [0]),
             ints("minus1", [-1]), rand("fc.weight", 10, 256), rand("fc.bias", 10)]
    return model(nodes, [vi("x", ["N", 3, 8, 8])], [vi("prob", ["N", 10])], inits)


def elementwise():
    x = "x"
    nodes = [
        h.make_node("Add", [x, "two"], ["add_c"], name="add_c"),
        h.make_node("Sub", ["two", "add_c"], ["rsub"], name="rsub"),
        h.make_node("Mul", ["rsub", "vec"], ["mul_v"], name="mul_v"),
        h.make_node("Div", ["mul_v", "two"], ["div_c"], name="div_c"),
        h.make_node("Max", ["div_c", x], ["max"], name="max"),
        h.make_node("Min", ["max", x, "add_c"], ["min3"], name="min3"),
        h.make_node("Pow", ["min3", "two"], ["pow"], name="pow"),
        h.make_node("Neg", ["pow"], ["neg"], name="neg"),
        h.make_node("Abs", ["neg"], ["abs"], name="abs"),
        h.make_node("Sqrt", ["abs"], ["sqrt"], name="sqrt"),
        h.make_node("Exp", ["sqrt"], ["exp"], name="exp"),
        h.make_node("Log", ["exp"], ["log"], name="log"),
        h.make_node("Reciprocal", ["log"], ["recip"], name="recip"),
        h.make_node("Erf", ["recip"], ["erf"], name="erf"),
        h.make_node("Sigmoid", ["erf"], ["sig"], name="sig"),
        h.make_node("Tanh", ["sig"], ["tanh"], name="tanh"),
        h.make_node("HardSigmoid", ["tanh"], ["hsig"], name="hsig", alpha=0.25),
        h.make_node("HardSwish", ["hsig"], ["hswish"], name="hswish"),
        h.make_node("LeakyRelu", ["hswish"], ["leaky"], name="leaky", alpha=0.1),
        h.make_node("PRelu", ["leaky", "slope"], ["prelu"], name="prelu"),
        h.make_node("PRelu", ["prelu", "slope1"], ["prelu1"], name="prelu1"),
        h.make_node("Clip", ["prelu1", "zero", "six"], ["relu6"], name="relu6"),
        h.make_node("Clip", ["relu6", "minus_one", ""], ["clip"], name="clip"),
        h.make_node("Softplus", ["clip"], ["softplus"], name="softplus"),
        h.make_node("Sum", ["softplus", x, "clip"], ["sum3"], name="sum3"),
        h.make_node("Mean", ["sum3", x], ["mean2"], name="mean2"),
        h.make_node("Less", ["mean2", x], ["less"], name="less"),
        h.make_node("Greater", ["mean2", "zero"], ["greater"], name="greater"),
        h.make_node("And", ["less", "greater"], ["and"], name="and"),
        h.make_node("Not", ["and"], ["not"], name="not"),
        h.make_node("Where", ["not", "mean2", x], ["where"], name="where"),
    ]
    inits = [init("two", 2.0), rand("vec", 8), rand("slope", 8), init("slope1", [0.2]), init("zero", 0.0),
             init("six", 6.0), init("minus_one", -1.0)]
    return model(nodes, [vi(x, [1, 4, 8])], [vi("where", [1, 4, 8])], inits, opset=14)


def clip_attrs():
    nodes = [h.make_node("Clip", ["x"], ["y"], name="clip6", min=0.0, max=6.0),
             h.make_node("Clip", ["y"], ["z"], name="clip_lo", min=-0.5)]
    return model(nodes, [vi("x", [2, 3])], [vi("z", [2, 3])], opset=9)


def shape_ops():
    nodes = [
        h.make_node("Transpose", ["x"], ["t"], name="transpose", perm=[0, 2, 3, 1]),
        h.make_node("Slice", ["t", "starts", "ends", "axes", "steps"], ["sl"], name="slice"),
        h.make_node("Split", ["sl", "split"], ["s0", "s1"], name="split", axis=-1),
        h.make_node("Concat", ["s1", "s0"], ["cat"], name="concat", axis=3),
        h.make_node("Pad", ["cat", "pads", "pad_val"], ["pad"], name="pad", mode="reflect"),
        h.make_node("ReduceMean", ["pad"], ["rmean"], name="rmean", axes=[1], keepdims=0),
        h.make_node("ReduceSum", ["rmean", "raxes"], ["rsum"], name="rsum", keepdims=1),
        h.make_node("ReduceMax", ["rsum"], ["rmax"], name="rmax", axes=[-1]),
        h.make_node("ReduceL2", ["rmax"], ["rl2"], name="rl2", axes=[0], keepdims=1),
        h.make_node("Unsqueeze", ["rl2", "uaxes"], ["unsq"], name="unsqueeze"),
        h.make_node("Squeeze", ["unsq", "uaxes"], ["sq"], name="squeeze"),
        h.make_node("Flatten", ["t"], ["flat"], name="flatten", axis=2),
        h.make_node("Gather", ["flat", "gidx"], ["gat"], name="gather", axis=1),
        h.make_node("Cast", ["gat"], ["cast"], name="cast", to=T.INT32),
        h.make_node("TopK", ["x2", "k"], ["vals", "idx"], name="topk", axis=1),
        h.make_node("ArgMax", ["x2"], ["amax"], name="argmax", axis=1, keepdims=0),
        h.make_node("Expand", ["x2", "eshape"], ["exp"], name="expand"),
        h.make_node("Tile", ["x2", "reps"], ["tile"], name="tile"),
        h.make_node("DepthToSpace", ["x"], ["d2s"], name="d2s", blocksize=2, mode="CRD"),
        h.make_node("SpaceToDepth", ["d2s"], ["s2d"], name="s2d", blocksize=2),
        h.make_node("Identity", ["s2d"], ["ident"], name="ident"),
        h.make_node("Dropout", ["ident"], ["drop"], name="drop"),
    ]
    inits = [ints("starts", [-3, 10]), ints("ends", [-100, -10]), ints("axes", [3, 1]), ints("steps", [-1, -2]),
             ints("split", [1, 1]), ints("pads", [0, 1, 0, 0, 0, 1, 0, 0]), init("pad_val", 0.0),
             ints("raxes", [-1]), ints("uaxes", [0, 3]), ints("gidx", [[0, 2], [1, 1]]), ints("k", [2]),
             ints("eshape", [2, 1, 5]), ints("reps", [2, 3])]
    outs = [vi("sq", None), vi("cast", None, T.INT32), vi("vals", None), vi("idx", None, T.INT64),
            vi("amax", None, T.INT64), vi("exp", None), vi("tile", None), vi("drop", None)]
    for o in outs:
        o.type.tensor_type.ClearField("shape")
        o.type.tensor_type.shape.SetInParent()
    # Output ranks are part of the model; give each its rank with unknown sizes.
    ranks = [3, 3, 2, 2, 1, 3, 2, 4]
    for o, r in zip(outs, ranks):
        for _ in range(r):
            o.type.tensor_type.shape.dim.add()
    return model(nodes, [vi("x", [1, 4, 6, 8]), vi("x2", [3, 5])], outs, inits)


def legacy_attrs():
    """Opset 9: attribute forms of Slice, Squeeze, Unsqueeze, Pad; Softmax coerced to 2-D; Upsample."""
    nodes = [
        h.make_node("Slice", ["x"], ["sl"], name="slice", starts=[1, -3], ends=[1000, -1], axes=[2, 3]),
        h.make_node("Unsqueeze", ["sl"], ["u"], name="unsqueeze", axes=[0]),
        h.make_node("Squeeze", ["u"], ["sq"], name="squeeze", axes=[0]),
        h.make_node("Pad", ["sq"], ["pad"], name="pad", pads=[0, 0, 1, 0, 0, 0, 1, 0], value=1.5),
        h.make_node("Softmax", ["pad"], ["sm"], name="softmax", axis=1),
        h.make_node("Upsample", ["sm", "scales"], ["up"], name="upsample", mode="nearest"),
        h.make_node("Split", ["up"], ["a", "b"], name="split", axis=1, split=[1, 2]),
    ]
    inits = [init("scales", [1, 1, 2, 2])]
    return model(nodes, [vi("x", [1, 3, 4, 4])], [vi("a", [1, 1, 10, 4]), vi("b", [1, 2, 10, 4])], inits, opset=9)


def resize():
    nodes = [
        h.make_node("Resize", ["x", "", "scales"], ["near"], name="nearest", mode="nearest",
                    coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        h.make_node("Resize", ["near", "", "", "sizes"], ["lin"], name="linear", mode="linear"),
        h.make_node("Resize", ["lin", "", "scales"], ["ac"], name="align", mode="linear",
                    coordinate_transformation_mode="align_corners"),
    ]
    inits = [init("scales", [1, 1, 2, 2]), ints("sizes", [1, 2, 6, 10])]
    return model(nodes, [vi("x", [1, 2, 3, 4])], [vi("ac", [1, 2, 12, 20])], inits)


def resize_cubic():
    """Cubic (A = -0.5, exclude_outside), a fractional constant scale (coordinates map by the scale, so it
    stays an operand), and scales fed at run time (the declared output gives the size)."""
    nodes = [h.make_node("Resize", ["x", "", "scales"], ["y"], name="cubic", mode="cubic", cubic_coeff_a=-0.5,
                         exclude_outside=1),
             h.make_node("Resize", ["y", "", "frac"], ["z"], name="fractional", mode="linear"),
             h.make_node("Resize", ["z", "", "s"], ["w"], name="runtime", mode="nearest")]
    return model(nodes, [vi("x", [1, 2, 3, 4]), vi("s", [4])], [vi("w", [1, 2, 6, 8])],
                 [init("scales", [1, 1, 2, 2]), init("frac", [1, 1, 0.6, 0.6])])


def nn():
    nodes = [
        h.make_node("ConvTranspose", ["x", "dw"], ["up"], name="deconv", strides=[2, 2], output_shape=[9, 9]),
        h.make_node("MaxPool", ["up"], ["mp"], name="maxpool", kernel_shape=[3, 3], strides=[2, 2],
                    auto_pad="SAME_UPPER"),
        h.make_node("AveragePool", ["mp"], ["ap"], name="avgpool", kernel_shape=[2, 2], pads=[1, 1, 0, 0],
                    count_include_pad=1),
        h.make_node("InstanceNormalization", ["ap", "in_s", "in_b"], ["inorm"], name="inorm", epsilon=1e-3),
        h.make_node("GlobalAveragePool", ["inorm"], ["gap"], name="gap"),
        h.make_node("GlobalMaxPool", ["inorm"], ["gmp"], name="gmp"),
        h.make_node("Add", ["gap", "gmp"], ["pooled"], name="pooled"),
        h.make_node("Flatten", ["pooled"], ["f"], name="flatten"),
        h.make_node("LayerNormalization", ["f", "ln_s", "ln_b"], ["ln", "ln_mean", "ln_inv"], name="ln",
                    epsilon=1e-4),
        h.make_node("MatMul", ["ln", "mw"], ["mm"], name="matmul"),
        h.make_node("Gemm", ["mm", "gw", "gc"], ["gemm"], name="gemm", alpha=0.5, beta=2.0),
        h.make_node("LogSoftmax", ["gemm"], ["lsm"], name="logsoftmax"),
    ]
    inits = [rand("dw", 2, 4, 3, 3), rand("in_s", 4), rand("in_b", 4), rand("ln_s", 4), rand("ln_b", 4),
             rand("mw", 4, 6), rand("gw", 6, 5), rand("gc", 1, 5)]
    return model(nodes, [vi("x", [1, 2, 4, 4])],
                 [vi("lsm", [1, 5]), vi("ln_mean", [1, 1]), vi("ln_inv", [1, 1])], inits, opset=17)


def fold():
    """Shape arithmetic the importer computes: Shape(start/end), Size, ConstantOfShape, Range, Div, Cast."""
    nodes = [
        h.make_node("Shape", ["x"], ["hw"], name="shape_hw", start=2),
        h.make_node("Div", ["hw", "two"], ["half"], name="half"),
        h.make_node("Shape", ["x"], ["nc"], name="shape_nc", end=2),
        h.make_node("ReduceProd", ["half"], ["area"], name="area", keepdims=1),
        h.make_node("Concat", ["nc", "area"], ["shp"], name="cat", axis=0),
        h.make_node("Slice", ["x", "zero", "half", "two_axes"], ["tl"], name="topleft"),
        h.make_node("Reshape", ["tl", "shp"], ["flat"], name="reshape"),
        h.make_node("Size", ["flat"], ["size"], name="size"),
        h.make_node("Cast", ["size"], ["size_f"], name="size_f", to=T.FLOAT),
        h.make_node("ConstantOfShape", ["shp"], ["ones"], name="ones",
                    value=h.make_tensor("v", T.FLOAT, [1], [1.0])),
        h.make_node("Range", ["r0", "r1", "r2"], ["rng"], name="range"),
        h.make_node("Cast", ["rng"], ["rng_f"], name="rng_f", to=T.FLOAT),
        h.make_node("Mul", ["ones", "rng_f"], ["scaled"], name="scaled"),
        h.make_node("Add", ["flat", "scaled"], ["sum"], name="sum"),
        h.make_node("Div", ["sum", "size_f"], ["y"], name="y"),
    ]
    inits = [ints("two", [2]), ints("zero", [0, 0]), ints("two_axes", [2, 3]), ints("r0", 0), ints("r1", 16),
             ints("r2", 2)]
    return model(nodes, [vi("x", [1, 2, 4, 8])], [vi("y", [1, 2, 8])], inits, opset=15)


def two_inputs():
    nodes = [h.make_node("Add", ["a", "b"], ["y"], name="add")]
    return model(nodes, [vi("a", ["N", 3]), vi("b", ["N", 3])], [vi("y", ["N", 3])])


def dead_branch():
    """The unsupported node feeds only `z`; with --output_names y it is never imported."""
    nodes = [h.make_node("Relu", ["x"], ["y"], name="relu"),
             h.make_node("RandomUniformLike", ["y"], ["z"], name="random")]
    return model(nodes, [vi("x", [2, 3])], [vi("z", [2, 3])], opset=13)


def unknown_op():
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"),
             h.make_node("FancyOp", ["r"], ["y"], name="fancy", domain="com.example")]
    m = model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])])
    m.opset_import.append(h.make_opsetid("com.example", 1))
    return m


def det():
    nodes = [h.make_node("Det", ["x"], ["y"], name="det")]
    return model(nodes, [vi("x", [2, 3, 3])], [vi("y", [2])])


def conv4d():
    nodes = [h.make_node("Conv", ["x", "w"], ["y"], name="conv4d")]
    return model(nodes, [vi("x", [1, 1, 3, 3, 3, 3])], [vi("y", [1, 2, 2, 2, 2, 2])], [rand("w", 2, 1, 2, 2, 2, 2)])


def volumes():
    """3-D windows: a padded Conv (bias), a depthwise one strided in H and W, a ConvTranspose upsampling by 2
    and an overlapping one, a MaxPool and an AveragePool."""
    nodes = [h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv_a", pads=[1] * 6),
             h.make_node("Conv", ["c1", "w2"], ["c2"], name="conv_dw", group=4, pads=[1] * 6, strides=[1, 2, 2]),
             h.make_node("ConvTranspose", ["c2", "w3", "b3"], ["u1"], name="up", strides=[2, 2, 2]),
             h.make_node("ConvTranspose", ["u1", "w4"], ["u2"], name="deconv", strides=[2, 1, 1], pads=[1] * 6,
                         output_padding=[1, 0, 0]),
             h.make_node("MaxPool", ["u2"], ["p1"], name="maxpool", kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
             h.make_node("AveragePool", ["p1"], ["p2"], name="avgpool", kernel_shape=[3, 3, 3], pads=[1] * 6)]
    inits = [rand("w1", 4, 2, 3, 3, 3), rand("b1", 4), rand("w2", 4, 1, 3, 3, 3), rand("w3", 4, 3, 2, 2, 2),
             rand("b3", 3), rand("w4", 3, 2, 3, 3, 3)]
    return model(nodes, [vi("x", [1, 2, 4, 8, 8])], [vi("p2", [1, 2, 8, 4, 4])], inits)


def bad_deconv3d():
    """A 3-D ConvTranspose whose kernel_shape disagrees with its filter (found by fuzz-onnx-import: the
    filter's reorder for the 2-D lowering aborted on the element count)."""
    nodes = [h.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv", kernel_shape=[3, 2, 2])]
    return model(nodes, [vi("x", [1, 4, 2, 4, 4])], [vi("y", [1, 3, 4, 5, 5])], [rand("w", 4, 3, 2, 2, 2)])


def bad_deconv_channels():
    nodes = [h.make_node("ConvTranspose", ["x", "w"], ["y"], name="deconv")]
    return model(nodes, [vi("x", [1, 4, 2, 4, 4])], [vi("y", [1, 3, 3, 5, 5])], [rand("w", 2, 3, 2, 2, 2)])


def opset20():
    nodes = [h.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], opset=20)


def opset6():
    """Opset 6: a Relu means what it means later; an Add broadcasting along 'axis' does not."""
    nodes = [h.make_node("Relu", ["x"], ["r"], name="relu"),
             h.make_node("Add", ["r", "b"], ["y"], name="add", broadcast=1, axis=0)]
    return model(nodes, [vi("x", [2, 3]), vi("b", [2])], [vi("y", [2, 3])], opset=6, ir=3)


def opset6_relu():
    nodes = [h.make_node("Relu", ["x"], ["y"], name="relu")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], opset=6, ir=3)


def bad_reshape():
    nodes = [h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", [4, 2])], [ints("shape", [4, 2])])


def external():
    """fc weights stored in `<model>.data` next to the model (ONNX external data)."""
    nodes = [h.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    w = init("w", np.arange(12).reshape(3, 4))
    return model(nodes, [vi("x", [2, 3])], [vi("y", [2, 4])], [w])


def shape_input():
    """The Reshape's shape is a graph input: importable once that input is fixed as a constant."""
    nodes = [h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")]
    return model(nodes, [vi("x", [2, 6]), vi("shape", [2], T.INT64)], [vi("y", ["a", "b"])])


def argmin_last():
    nodes = [h.make_node("ArgMin", ["x"], ["y"], name="argmin", axis=-1, keepdims=1, select_last_index=1)]
    return model(nodes, [vi("x", [2, 5])], [vi("y", [2, 1], T.INT64)])


def dangling():
    nodes = [h.make_node("Add", ["x", "nowhere"], ["y"], name="add")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])])


def losses():
    """NLL loss with class weights and ignore_index (target an initializer), SCE loss without weights,
    Trilu with k, GatherElements, CumSum and Floor."""
    nodes = [
        h.make_node("NegativeLogLikelihoodLoss", ["x", "target", "weight"], ["nll"], name="nll",
                    reduction="mean", ignore_index=2),
        h.make_node("SoftmaxCrossEntropyLoss", ["x", "target"], ["sce", "log_prob"], name="sce",
                    reduction="sum"),
        h.make_node("Trilu", ["m", "k"], ["tri"], name="tri", upper=0),
        h.make_node("GatherElements", ["m", "ids"], ["ge"], name="ge", axis=1),
        h.make_node("CumSum", ["ge", "axis"], ["cs"], name="cs", reverse=1),
        h.make_node("Floor", ["cs"], ["fl"], name="floor"),
    ]
    inits = [ints("target", [[0, 2, 1], [3, 1, 2]]), rand("weight", 4), ints("k", 1),
             ints("ids", [[0, -1], [2, 1], [3, 3]]), ints("axis", -1)]
    return model(nodes, [vi("x", [2, 4, 3]), vi("m", [3, 4])],
                 [vi("nll", []), vi("sce", []), vi("log_prob", [2, 4, 3]), vi("tri", [3, 4]), vi("fl", [3, 2])],
                 inits, opset=14)


def composites():
    """Ops composed from several Top ops: Elu, Shrink, float Mod with fmod, QuantizeLinear per axis,
    Hardmax, IsInf, ThresholdedRelu, Compress and GatherND with constant indices, EyeLike."""
    nodes = [
        h.make_node("Elu", ["x"], ["elu"], name="elu", alpha=0.5),
        h.make_node("Shrink", ["elu"], ["shrink"], name="shrink", lambd=0.25, bias=0.1),
        h.make_node("Mod", ["shrink", "x"], ["mod"], name="mod", fmod=1),
        h.make_node("QuantizeLinear", ["mod", "scale", "zp"], ["q"], name="quant", axis=1),
        h.make_node("Hardmax", ["x"], ["hard"], name="hardmax", axis=1),
        h.make_node("IsInf", ["x"], ["inf"], name="isinf", detect_negative=0),
        h.make_node("ThresholdedRelu", ["x"], ["thr"], name="thr", alpha=0.5),
        h.make_node("Compress", ["x", "cond"], ["comp"], name="compress", axis=1),
        h.make_node("GatherND", ["x", "nd"], ["gnd"], name="gathernd"),
        h.make_node("EyeLike", ["x"], ["eye"], name="eye", k=1),
    ]
    inits = [init("scale", [0.5, 0.25, 1.0]), init("zp", [128, 0, 255], np.uint8),
             init("cond", [True, False, True], np.bool_), ints("nd", [[1, 2], [0, 0]])]
    return model(nodes, [vi("x", [2, 3])],
                 [vi("q", [2, 3], T.UINT8), vi("hard", [2, 3]), vi("inf", [2, 3], T.BOOL), vi("thr", [2, 3]),
                  vi("comp", [2, 2]), vi("gnd", [2]), vi("eye", [2, 3])], inits)


def scatters():
    """ScatterElements with constant indices (last write wins), ScatterND with reduction add and a
    duplicate index (two layers)."""
    nodes = [
        h.make_node("ScatterElements", ["x", "ids", "upd"], ["se"], name="se", axis=1),
        h.make_node("ScatterND", ["se", "nd", "rows"], ["snd"], name="snd", reduction="add"),
    ]
    inits = [ints("ids", [[2, 0]]), ints("nd", [[1], [1]])]
    return model(nodes, [vi("x", [2, 3]), vi("upd", [1, 2]), vi("rows", [2, 3])], [vi("snd", [2, 3])], inits,
                 opset=16)


def einsum():
    """Einsum as a batch matmul with a transposed output, an implicit-output sum, and
    DynamicQuantizeLinear."""
    nodes = [
        h.make_node("Einsum", ["a", "b"], ["bmm"], name="bmm", equation="bij, bjk -> bki"),
        h.make_node("Einsum", ["a"], ["rows"], name="rows", equation="bij->bi"),
        h.make_node("DynamicQuantizeLinear", ["a"], ["q", "q_scale", "q_zp"], name="dq"),
    ]
    return model(nodes, [vi("a", [2, 3, 4]), vi("b", [2, 4, 5])],
                 [vi("bmm", [2, 5, 3]), vi("rows", [2, 3]), vi("q", [2, 3, 4], T.UINT8), vi("q_scale", []),
                  vi("q_zp", [], T.UINT8)])


def quantized():
    """MatMulInteger and QLinearMatMul on uint8 operands, a symmetric HannWindow of constant size, LRN."""
    nodes = [
        h.make_node("MatMulInteger", ["a", "b", "azp", "bzp"], ["mmi"], name="mmi"),
        h.make_node("QLinearMatMul", ["a", "as", "azp", "b", "bs", "bzp", "ys", "yzp"], ["qmm"], name="qmm"),
        h.make_node("HannWindow", ["n"], ["hann"], name="hann", periodic=0),
        h.make_node("LRN", ["x"], ["lrn"], name="lrn", size=3, alpha=0.2, beta=0.75, bias=1.5),
    ]
    inits = [init("a", [[1, 2, 3], [4, 5, 6]], np.uint8), init("b", [[1, 0], [2, 1], [0, 3]], np.uint8),
             init("azp", 1, np.uint8), init("bzp", [0, 1], np.uint8), init("yzp", 10, np.uint8),
             ints("n", 5)]
    return model(nodes, [vi("as", []), vi("bs", []), vi("ys", []), vi("x", [1, 4, 2, 2])],
                 [vi("mmi", [2, 2], T.INT32), vi("qmm", [2, 2], T.UINT8), vi("hann", [5]),
                  vi("lrn", [1, 4, 2, 2])], inits, opset=17)


def recurrent():
    """Conv1d and MaxPool1d (run as 2-D over a height of 1), a bidirectional LSTM over two steps with
    sequence lengths fed at run time, a GRU with linear_before_reset."""
    nodes = [
        h.make_node("Conv", ["x", "cw"], ["c"], name="conv1d", pads=[1, 1]),
        h.make_node("MaxPool", ["c"], ["p"], name="pool1d", kernel_shape=[2], strides=[1]),
        h.make_node("Transpose", ["p"], ["seq"], name="to_time_major", perm=[2, 0, 1]),
        h.make_node("LSTM", ["seq", "W", "R", "B", "lens"], ["Y", "Y_h"], name="lstm", hidden_size=2,
                    direction="bidirectional"),
        h.make_node("Reshape", ["Y", "flat_shape"], ["Yflat"], name="flat"),
        h.make_node("GRU", ["Yflat", "GW", "GR", "GB"], ["", "G_h"], name="gru", hidden_size=2,
                    linear_before_reset=1),
    ]
    inits = [rand("cw", 3, 2, 3), rand("W", 2, 8, 3), rand("R", 2, 8, 2), rand("B", 2, 16),
             ints("flat_shape", [2, 1, 4]), rand("GW", 1, 6, 4), rand("GR", 1, 6, 2), rand("GB", 1, 12)]
    return model(nodes, [vi("x", [1, 2, 3]), vi("lens", [1], T.INT32)], [vi("Y_h", [2, 1, 2]), vi("G_h", [1, 1, 2])],
                 inits)


def bad_activation():
    nodes = [h.make_node("RNN", ["x", "W", "R"], ["", "h"], name="rnn", hidden_size=2, activations=["Softplus"])]
    return model(nodes, [vi("x", [3, 1, 2])], [vi("h", [1, 1, 2])], [rand("W", 1, 2, 2), rand("R", 1, 2, 2)])


def runtime_params():
    """Parameters fed at run time: Slice bounds (top.dynamic_slice with the declared shape), GatherND
    indices (positions computed by Top ops), a CumSum axis (a choice among the sums along every axis),
    BitShift of unsigned inputs (f32 arithmetic), and Softsign."""
    nodes = [
        h.make_node("Slice", ["x", "starts", "ends", "axes"], ["sl"], name="slice"),
        h.make_node("GatherND", ["x", "nd"], ["gnd"], name="gathernd"),
        h.make_node("CumSum", ["x", "axis"], ["cs"], name="cumsum"),
        h.make_node("BitShift", ["a", "b"], ["sh"], name="shift", direction="LEFT"),
        h.make_node("Softsign", ["x"], ["ss"], name="softsign"),
    ]
    return model(nodes, [vi("x", [4, 5]), vi("starts", [1], T.INT64), vi("ends", [1], T.INT64),
                         vi("axes", [1], T.INT64), vi("nd", [3, 2], T.INT64), vi("axis", [], T.INT32),
                         vi("a", [3], T.UINT8), vi("b", [3], T.UINT8)],
                 [vi("sl", [2, 5]), vi("gnd", [3]), vi("cs", [4, 5]), vi("sh", [3], T.UINT8), vi("ss", [4, 5])])


def runtime_if():
    """An If on a condition fed at run time whose branches agree on shape (a top.if), and
    one whose branches do not (reported)."""
    then_g = h.make_graph([h.make_node("Relu", ["x"], ["t"], name="then_relu")], "then", [], [vi("t", [2, 3])])
    else_g = h.make_graph([h.make_node("Neg", ["x"], ["e"], name="else_neg")], "else", [], [vi("e", [2, 3])])
    other_g = h.make_graph([h.make_node("ReduceSum", ["x"], ["r"], name="else_sum", keepdims=0)], "other", [],
                           [vi("r", [])])
    nodes = [h.make_node("If", ["c"], ["y"], name="branch", then_branch=then_g, else_branch=else_g)]
    good = model(nodes, [vi("c", [1], T.BOOL), vi("x", [2, 3])], [vi("y", [2, 3])])
    return good, model([h.make_node("If", ["c"], ["z"], name="mismatch", then_branch=then_g, else_branch=other_g)],
                       [vi("c", [1], T.BOOL), vi("x", [2, 3])], [vi("z", [2, 3])])


def runtime_if_ok():
    return runtime_if()[0]


def runtime_if_mismatch():
    return runtime_if()[1]


def runtime_if_chain():
    """Five run-time Ifs one after another, each on the last one's result: the planner puts their results at
    one DDR address in turn, so a model-file dump must tell them apart by the marker, not the address."""
    nodes = [h.make_node("Relu", ["x"], ["a0"], name="pre")]
    for i in range(1, 6):
        then_g = h.make_graph([h.make_node("Sigmoid", [f"a{i - 1}"], [f"t{i}"], name=f"then{i}")], f"then{i}", [],
                              [vi(f"t{i}", [2, 3])])
        else_g = h.make_graph([h.make_node("Tanh", [f"a{i - 1}"], [f"e{i}"], name=f"else{i}")], f"else{i}", [],
                              [vi(f"e{i}", [2, 3])])
        nodes += [h.make_node("If", ["c"], [f"y{i}"], name=f"if{i}", then_branch=then_g, else_branch=else_g),
                  h.make_node("Exp", [f"y{i}"], [f"a{i}"], name=f"exp{i}")]
    return model(nodes, [vi("c", [1], T.BOOL), vi("x", [2, 3])], [vi("a5", [2, 3])])


def expand_negative():
    """An Expand whose target shape is fed at run time and whose declared output has a negative extent."""
    nodes = [h.make_node("Expand", ["x", "shape"], ["y"], name="expand")]
    return model(nodes, [vi("x", [2, 1]), vi("shape", [2], T.INT64)], [vi("y", [2, -3])])


def unique():
    """Unique of a run-time tensor along axis 0, in order of first occurrence; the outputs declared for 3
    distinct rows."""
    nodes = [h.make_node("Unique", ["x"], ["y", "first", "inverse", "counts"], name="uniq", axis=0, sorted=0)]
    return model(nodes, [vi("x", [5, 2])], [vi("y", [3, 2]), vi("first", [3], T.INT64), vi("inverse", [5], T.INT64),
                                             vi("counts", [3], T.INT64)])


def roi_pools():
    """RoiAlign (adaptive sampling, half_pixel), MaxRoiPool and a MaxPool whose Indices output is used, all on
    run-time boxes and batch indices."""
    nodes = [h.make_node("RoiAlign", ["x", "rois", "idx"], ["ra"], name="align", output_height=3, output_width=4,
                         sampling_ratio=0, spatial_scale=0.5, coordinate_transformation_mode="half_pixel"),
             h.make_node("MaxRoiPool", ["x", "boxes"], ["rp"], name="roipool", pooled_shape=[2, 3], spatial_scale=0.5),
             h.make_node("MaxPool", ["x"], ["mp", "mi"], name="pool", kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1])]
    return model(nodes, [vi("x", [2, 3, 12, 12]), vi("rois", [4, 4]), vi("idx", [4], T.INT64), vi("boxes", [3, 5])],
                 [vi("ra", [4, 3, 3, 4]), vi("rp", [3, 3, 2, 3]), vi("mp", [2, 3, 6, 6]), vi("mi", [2, 3, 6, 6], T.INT64)],
                 opset=16)


def opset19():
    """DeformConv (opset 19): v2 with a mask, bias, 2 groups, 2 offset groups, stride 2 and pads; v1 dilated;
    MaxPool's Indices into MaxUnpool, with a constant output_shape (the indices count over the window's 6 x 6,
    padded to 7 x 8) and with the default one (9 = (5 - 1) * 2 - 2 + 3)."""
    g = np.random.default_rng(19)
    nodes = [h.make_node("DeformConv", ["x", "w", "off", "b", "mask"], ["dc"], name="deform", group=2, offset_group=2,
                         kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
             h.make_node("DeformConv", ["x", "w2", "off2"], ["dc2"], name="deform_dilated", dilations=[2, 2]),
             h.make_node("MaxPool", ["x3"], ["mp", "mi"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
             h.make_node("MaxUnpool", ["mp", "mi", "unpool_shape"], ["up"], name="unpool", kernel_shape=[2, 2],
                         strides=[2, 2]),
             h.make_node("MaxPool", ["x2"], ["mp2", "mi2"], name="pool2", kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
             h.make_node("Relu", ["mp2"], ["mpr"], name="relu"),
             h.make_node("MaxUnpool", ["mpr", "mi2"], ["up2"], name="unpool_default", kernel_shape=[3, 3],
                         strides=[2, 2], pads=[1, 1, 1, 1])]
    inits = [init("w", g.standard_normal((6, 2, 3, 3)) * 0.3), init("b", g.standard_normal(6)),
             init("w2", g.standard_normal((3, 4, 3, 3)) * 0.3), ints("unpool_shape", [1, 2, 7, 8])]
    return model(nodes, [vi("x", [1, 4, 11, 10]), vi("off", [1, 36, 6, 5]), vi("mask", [1, 18, 6, 5]),
                         vi("off2", [1, 18, 7, 6]), vi("x2", [2, 3, 9, 9]), vi("x3", [1, 2, 6, 6])],
                 [vi("dc", [1, 6, 6, 5]), vi("dc2", [1, 3, 7, 6]), vi("up", [1, 2, 7, 8]), vi("up2", [2, 3, 9, 9])],
                 inits, opset=19)


def opset18_forms():
    """The forms opset 18 changed or added: ReduceMean's axes as an input, Split into num_outputs uneven parts,
    Pad of listed axes, GroupNormalization with per-group scale and bias, Mish."""
    g = np.random.default_rng(18)
    nodes = [h.make_node("ReduceMean", ["x", "rm_axes"], ["rm"], name="mean", keepdims=1),
             h.make_node("Split", ["x"], ["s0", "s1", "s2"], name="split", axis=2, num_outputs=3),
             h.make_node("Pad", ["x", "pads", "", "pad_axes"], ["pd"], name="pad", mode="edge"),
             h.make_node("GroupNormalization", ["x", "gn_scale", "gn_bias"], ["gn"], name="gnorm", num_groups=2,
                         epsilon=1e-3),
             h.make_node("Mish", ["x"], ["mish"], name="mish")]
    inits = [ints("rm_axes", [1, 3]), ints("pads", [1, 2]), ints("pad_axes", [-1]),
             init("gn_scale", g.standard_normal(2)), init("gn_bias", g.standard_normal(2))]
    return model(nodes, [vi("x", [2, 4, 10, 6])],
                 [vi("rm", [2, 1, 10, 1]), vi("s0", [2, 4, 4, 6]), vi("s1", [2, 4, 4, 6]), vi("s2", [2, 4, 2, 6]),
                  vi("pd", [2, 4, 10, 9]), vi("gn", [2, 4, 10, 6]), vi("mish", [2, 4, 10, 6])], inits, opset=18)


def masked_bias():
    """Swin-style attention pieces: a [1, heads, 49, 49] position bias added to [windows, heads, 49, 49] scores,
    and a boolean mask negated with Not (imported as compare(m == false) on i1) selecting them."""
    g = np.random.default_rng(49)
    nodes = [h.make_node("Add", ["x", "bias"], ["biased"], name="add_bias"),
             h.make_node("Less", ["x", "zero"], ["negative"], name="less"),
             h.make_node("Not", ["negative"], ["kept"], name="not"),
             h.make_node("Where", ["kept", "biased", "zero"], ["y"], name="where")]
    inits = [init("bias", g.standard_normal((1, 6, 49, 49))), init("zero", 0.0)]
    return model(nodes, [vi("x", [4, 6, 49, 49])], [vi("y", [4, 6, 49, 49])], inits)


def maxpool_indices_1d():
    """A 1-D MaxPool whose Indices output is used (refused: 2-D only)."""
    nodes = [h.make_node("MaxPool", ["x"], ["y", "i"], name="pool1d", kernel_shape=[2], strides=[2])]
    return model(nodes, [vi("x", [1, 2, 8])], [vi("y", [1, 2, 4]), vi("i", [1, 2, 4], T.INT64)])


def loops():
    """A Loop with a constant trip count (a tanh recurrence on outer-scope x and W, a scan output per step) and a
    Scan over a sequence input (a running sum, its outputs stacked in reverse)."""
    w = h.make_tensor("W", T.FLOAT, [4, 4], [0.5 if i == j else 0.125 * ((i + j) % 3 - 1) for i in range(4)
                                             for j in range(4)])
    body = h.make_graph(
        [h.make_node("MatMul", ["h_in", "W"], ["hw"], name="step_matmul"),
         h.make_node("Add", ["hw", "x"], ["pre"], name="step_add"),
         h.make_node("Tanh", ["pre"], ["h_out"], name="step_tanh"),
         h.make_node("ReduceSum", ["h_out"], ["s"], name="step_sum", axes=[1], keepdims=0),
         h.make_node("Identity", ["cond_in"], ["cond_out"], name="step_cond")],
        "loop_body", [vi("i", [], T.INT64), vi("cond_in", [], T.BOOL), vi("h_in", [2, 4])],
        [vi("cond_out", [], T.BOOL), vi("h_out", [2, 4]), vi("s", [2])])
    scan_body = h.make_graph(
        [h.make_node("Add", ["acc_in", "x_t"], ["acc_out"], name="scan_add"),
         h.make_node("Mul", ["x_t", "acc_out"], ["y_t"], name="scan_mul")],
        "scan_body", [vi("acc_in", [3]), vi("x_t", [3])], [vi("acc_out", [3]), vi("y_t", [3])])
    nodes = [h.make_node("Loop", ["trips", "go", "h0"], ["h", "hs"], name="recur", body=body),
             h.make_node("Scan", ["acc0", "seq"], ["acc", "ys"], name="running", body=scan_body, num_scan_inputs=1,
                         scan_output_directions=[1])]
    inits = [w, h.make_tensor("trips", T.INT64, [], [3]), h.make_tensor("go", T.BOOL, [], [1]),
             h.make_tensor("h0", T.FLOAT, [2, 4], [0.0] * 8), h.make_tensor("acc0", T.FLOAT, [3], [0.0] * 3)]
    return model(nodes, [vi("x", [2, 4]), vi("seq", [5, 3])],
                 [vi("h", [2, 4]), vi("hs", [3, 2]), vi("acc", [3]), vi("ys", [5, 3])], inits, opset=11)


def loops_runtime_trips():
    """loops() with the Loop's trip count a graph input."""
    m = loops()
    m.graph.initializer.remove(next(t for t in m.graph.initializer if t.name == "trips"))
    m.graph.input.append(vi("trips", [], T.INT64))
    return m


MODELS = {f.__name__: f for f in [roi_pools, masked_bias, maxpool_indices_1d, expand_negative, unique, loops, loops_runtime_trips, quantized, einsum, scatters, composites, losses, shape_input, argmin_last, dangling, cnn, elementwise, clip_attrs, shape_ops, legacy_attrs, resize, resize_cubic, nn,
                                  fold, two_inputs, dead_branch, unknown_op, det, conv4d, volumes, bad_deconv3d, bad_deconv_channels, opset20, opset6, opset19, opset18_forms, opset6_relu,
                                  bad_reshape, external, recurrent, bad_activation,
                                  runtime_params, runtime_if_ok, runtime_if_mismatch, runtime_if_chain]}


def main(name, path):
    m = MODELS[name]()
    if name == "external":
        import os
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=os.path.basename(path) + ".data", size_threshold=0)
    else:
        onnx.save(m, path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
