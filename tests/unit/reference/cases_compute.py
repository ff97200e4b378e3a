"""Reference-kernel test cases for the compute ops (conv, deconv, matmul, pools, norms, element-wise,
logic), each checked against refops.py."""
import numpy as np

import refops as R
from casebuilder import F32, Case, case, fattr, iarr, rand, rng, ttype, unary_case


# --- conv --------------------------------------------------------------------------------------------

def conv_case(name, x, w, b, strides, pads, dil, group, relu=None):
    c = Case(name, atol=1e-4)
    xv, wv = c.input(x), c.weight(w)
    bv = c.weight(b) if b is not None else c.none()
    out = R.conv(x, w, b, strides, pads, dil, group)
    attrs = (f"kernel_shape = {iarr(w.shape[2:])}, strides = {iarr(strides)}, pads = {iarr(pads)}, "
             f"dilations = {iarr(dil)}, group = {group} : i64")
    if relu is not None:
        attrs += f", do_relu = true, relu_limit = {fattr(relu)}"
        out = np.maximum(out, 0)
        if relu > 0:
            out = np.minimum(out, relu)
    c.ret(c.op("conv", [xv, wv, bv], attrs, [ttype(out.shape)]), out)
    return c


@case
def convs():
    return [
        conv_case("conv_basic", rand(1, 3, 8, 8), rand(4, 3, 3, 3), rand(4), [1, 1], [1, 1, 1, 1], [1, 1], 1),
        conv_case("conv_strided_asym_pads", rand(2, 4, 9, 7), rand(6, 4, 3, 2), rand(6), [2, 3],
                  [1, 0, 2, 1], [1, 1], 1),
        conv_case("conv_groups_dilated_relu", rand(1, 6, 10, 10), rand(4, 3, 3, 3), rand(4), [1, 1],
                  [2, 1, 2, 1], [2, 1], 2, relu=-1.0),
        conv_case("conv_depthwise", rand(1, 8, 9, 9), rand(8, 1, 3, 3), rand(8), [2, 2], [1, 1, 1, 1],
                  [1, 1], 8),
        conv_case("conv_depthwise_multiplier_relu6", rand(1, 4, 7, 7), 3 * rand(8, 1, 3, 3), None, [1, 1],
                  [2, 2, 2, 2], [2, 2], 4, relu=6.0),
        conv_case("conv_pointwise", rand(2, 8, 5, 5), rand(16, 8, 1, 1), None, [1, 1], [0, 0, 0, 0],
                  [1, 1], 1),
        conv_case("conv_pointwise_strided", rand(1, 8, 6, 6), rand(4, 8, 1, 1), rand(4), [2, 2],
                  [0, 0, 0, 0], [1, 1], 1),
        conv_case("conv1d_groups", rand(1, 4, 16), rand(6, 2, 5), rand(6), [2], [2, 1], [1], 2),
        conv_case("conv1d_dilated", rand(2, 3, 12), rand(2, 3, 3), None, [1], [0, 3], [3], 1),
    ]


def deconv_case(name, x, w, b, strides, pads, dil, out_pad, group):
    c = Case(name, atol=1e-4)
    xv, wv = c.input(x), c.weight(w)
    bv = c.weight(b) if b is not None else c.none()
    out = R.deconv(x, w, b, strides, pads, dil, out_pad, group)
    attrs = (f"kernel_shape = {iarr(w.shape[2:])}, strides = {iarr(strides)}, pads = {iarr(pads)}, "
             f"dilations = {iarr(dil)}, output_padding = {iarr(out_pad)}, group = {group} : i64")
    c.ret(c.op("deconv", [xv, wv, bv], attrs, [ttype(out.shape)]), out)
    return c


@case
def deconvs():
    return [
        deconv_case("deconv_stride2_outpad", rand(1, 4, 5, 5), rand(4, 3, 3, 3), rand(3), [2, 2],
                    [1, 1, 1, 1], [1, 1], [1, 1], 1),
        deconv_case("deconv_groups_dilated", rand(1, 6, 4, 3), rand(6, 2, 3, 2), rand(6), [1, 2],
                    [1, 0, 0, 1], [2, 1], [0, 1], 3),
        deconv_case("deconv_upsample2x", rand(2, 8, 4, 4), rand(8, 4, 2, 2), None, [2, 2], [0, 0, 0, 0],
                    [1, 1], [0, 0], 1),
        deconv_case("deconv1d", rand(1, 2, 6), rand(2, 3, 4), rand(3), [3], [1, 2], [1], [0], 1),
    ]


# --- matmul --------------------------------------------------------------------------------------------

def matmul_case(name, a, b, bias=None, lt=False, rt=False, relu=False):
    c = Case(name, atol=1e-4)
    av, bv = c.input(a), c.input(b)
    biasv = c.weight(bias) if bias is not None else c.none()
    a2 = np.swapaxes(a, -1, -2) if lt and a.ndim > 1 else a
    b2 = np.swapaxes(b, -1, -2) if rt and b.ndim > 1 else b
    out = np.matmul(a2.astype(np.float64), b2.astype(np.float64))
    if bias is not None:
        out = out + bias.astype(np.float64)
    if relu:
        out = np.maximum(out, 0)
    attrs = ", ".join(a for a in ["left_transpose = true" if lt else "", "right_transpose = true" if rt else "",
                                  "do_relu = true" if relu else ""] if a)
    c.ret(c.op("matmul", [av, bv, biasv], attrs, [ttype(out.shape)]), out)
    return c


@case
def matmuls():
    return [
        matmul_case("matmul_bias_relu", rand(5, 7), rand(7, 3), bias=rand(3), relu=True),
        matmul_case("matmul_batch_broadcast", rand(2, 1, 4, 6), rand(3, 6, 5)),
        matmul_case("matmul_transposes", rand(2, 6, 4), rand(2, 5, 6), lt=True, rt=True),
        matmul_case("matmul_vector_left", rand(6), rand(3, 6, 5)),
        matmul_case("matmul_vector_right", rand(2, 4, 6), rand(6)),
        matmul_case("matmul_shared_weight_scalar_bias", rand(2, 3, 8), rand(4, 8), bias=rand(1), rt=True),
    ]


def a16_case(name, bits, sym, group=16, n=16, k=64):
    c = Case(name, atol=1e-4)
    x = rand(1, 3, k)
    groups = k // group
    scale = rand(n, groups, lo=0.01, hi=0.05)
    if bits == 8:
        q = rng.integers(-128, 128, size=(n, k)).astype(np.int8) if sym else \
            rng.integers(0, 256, size=(n, k)).astype(np.uint8)
        et = "i8" if sym else "ui8"
        zp = None if sym else rng.integers(100, 156, size=(n, groups)).astype(F32)
    else:
        q = rng.integers(0, 256, size=(n, k // 2)).astype(np.uint8)
        et = "ui8"
        zp = None if sym else rng.integers(0, 16, size=(n, groups)).astype(F32)
    xv, qv, sv = c.input(x), c.weight(q, et), c.weight(scale)
    zv = c.none() if zp is None else c.weight(zp)
    bias = rand(n)
    bv = c.weight(bias)
    w = R.dequant(q, scale, zp, bits, group, sym, k)
    out = x.astype(np.float64) @ w.T + bias
    attrs = f"weight_bits = {bits} : i64, q_group_size = {group} : i64, sym = {'true' if sym else 'false'}"
    c.ret(c.op("a16matmul", [xv, qv, sv, zv, bv], attrs, [ttype(out.shape)]), out)
    return c


@case
def a16():
    return [a16_case("a16matmul_int8_sym", 8, True), a16_case("a16matmul_int8_asym", 8, False),
            a16_case("a16matmul_int4_sym", 4, True), a16_case("a16matmul_int4_asym", 4, False, group=32)]


# --- pools ----------------------------------------------------------------------------------------------

def pool_case(name, kind, x, k, s, p, ceil=False, include=False):
    c = Case(name)
    out = R.pool(x, kind, k, s, p, ceil, include)
    attrs = f"kernel_shape = {iarr(k)}, strides = {iarr(s)}, pads = {iarr(p)}"
    if ceil:
        attrs += ", ceil_mode = true"
    if include:
        attrs += ", count_include_pad = true"
    c.ret(c.op(kind + "pool", [c.input(x)], attrs, [ttype(out.shape)]), out)
    return c


@case
def pools():
    cases = [
        pool_case("maxpool_3x3s2p1", "max", rand(1, 3, 8, 8), [3, 3], [2, 2], [1, 1, 1, 1]),
        pool_case("maxpool_ceil", "max", rand(1, 2, 8, 8), [3, 3], [2, 2], [0, 0, 0, 0], ceil=True),
        pool_case("maxpool1d_ceil_pads", "max", rand(2, 2, 10), [3], [2], [1, 0], ceil=True),
        pool_case("avgpool_ceil_include_pad", "avg", rand(1, 2, 8, 8), [3, 3], [2, 2], [1, 1, 1, 1],
                  ceil=True, include=True),
        pool_case("avgpool_ceil_exclude_pad", "avg", rand(1, 2, 8, 8), [3, 3], [2, 2], [1, 1, 1, 1], ceil=True),
        pool_case("avgpool_asym_pads", "avg", rand(1, 3, 7, 6), [3, 2], [2, 2], [1, 0, 1, 1]),
        pool_case("avgpool_asym_pads_include", "avg", rand(1, 3, 7, 6), [3, 2], [2, 2], [1, 0, 1, 1],
                  include=True),
        pool_case("avgpool1d_ceil", "avg", rand(1, 2, 9), [3], [2], [1, 1], ceil=True),
    ]
    for name, x, size in [("adaptive_avgpool_3x2", rand(1, 3, 7, 5), [3, 2]),
                          ("adaptive_avgpool_global", rand(2, 4, 5, 6), [1, 1])]:
        c = Case(name)
        out = R.adaptive_avg(x, size)
        c.ret(c.op("adaptive_avgpool", [c.input(x)], f"output_size = {iarr(size)}", [ttype(out.shape)]), out)
        cases.append(c)
    return cases


# --- norms and softmax -------------------------------------------------------------------------------------

@case
def norms():
    cases = []
    x = rand(2, 3, 4, 5, lo=-3, hi=3)
    mean, var, gamma, beta = rand(3), rand(3, lo=0.5, hi=1.5), rand(3, lo=0.5, hi=1.5), rand(3)
    c = Case("batchnorm_relu")
    ref = (x - mean[:, None, None]) / np.sqrt(var[:, None, None].astype(np.float64) + 1e-3)
    ref = np.maximum(ref * gamma[:, None, None] + beta[:, None, None], 0)
    c.ret(c.op("batchnorm", [c.input(x), c.weight(mean), c.weight(var), c.weight(gamma), c.weight(beta)],
               f"epsilon = {fattr(1e-3)}, do_relu = true", [ttype(x.shape)]), ref)
    cases.append(c)
    c = Case("batchnorm_no_affine_rank2")
    x2 = rand(4, 3)
    ref = (x2 - mean) / np.sqrt(var.astype(np.float64) + 1e-5)
    c.ret(c.op("batchnorm", [c.input(x2), c.weight(mean), c.weight(var), c.none(), c.none()], "",
               [ttype(x2.shape)]), ref)
    cases.append(c)
    x = rand(2, 5, 8, lo=-2, hi=2)
    w, b = rand(8), rand(8)
    c = Case("layernorm_last_axis")
    c.ret(c.op("layernorm", [c.input(x), c.weight(w), c.weight(b)], f"axis = -1 : i64, eps = {fattr(1e-5)}",
               [ttype(x.shape)]), R.layernorm(x, 2, w, b, 1e-5))
    cases.append(c)
    c = Case("layernorm_two_axes_no_affine")
    c.ret(c.op("layernorm", [c.input(x), c.none(), c.none()], "axis = 1 : i64", [ttype(x.shape)]),
          R.layernorm(x, 1, None, None, 1e-5))
    cases.append(c)
    x, g = rand(2, 3, 16, lo=-2, hi=2), rand(16)
    c = Case("rmsnorm")
    ref = x / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-6) * g
    c.ret(c.op("rmsnorm", [c.input(x), c.weight(g)], "", [ttype(x.shape)]), ref)
    cases.append(c)
    x, w, b = rand(2, 6, 4, 4), rand(6), rand(6)
    c = Case("groupnorm")
    c.ret(c.op("groupnorm", [c.input(x), c.weight(w), c.weight(b)], "num_groups = 3 : i64",
               [ttype(x.shape)]), R.groupnorm(x, 3, w, b, 1e-5))
    cases.append(c)
    x, w, b = rand(2, 3, 5, 5), rand(3), rand(3)
    c = Case("instancenorm")
    c.ret(c.op("instancenorm", [c.input(x), c.weight(w), c.weight(b)], "", [ttype(x.shape)]),
          R.groupnorm(x, 3, w, b, 1e-5))
    cases.append(c)
    x = rand(2, 5, 3, lo=-4, hi=4)
    for name, axis, log in [("softmax_inner_axis", 1, False), ("softmax_last_axis", -1, False),
                            ("log_softmax", 1, True)]:
        attrs = f"axis = {axis} : i64" + (", log = true" if log else "")
        cases.append(unary_case(name, "softmax", x, R.softmax(x, axis, log), attrs))
    return cases


# --- element-wise --------------------------------------------------------------------------------------------

@case
def activations():
    x = rand(2, 3, 17, lo=-4, hi=4)
    pos = rand(2, 3, 17, lo=0.1, hi=4)
    d = x.astype(np.float64)
    sig = 1 / (1 + np.exp(-d))
    unit = rand(2, 3, 17, lo=-0.9, hi=0.9)
    u = unit.astype(np.float64)
    # Exact halves check that round() breaks ties to even, as ONNX Round does.
    halves = (np.arange(-8, 9, dtype=np.float32) * 0.5).reshape(1, 17)
    specs = [
        ("relu", x, np.maximum(d, 0), ""),
        ("relu", x, np.clip(d, 0, 3.0), f"relu_limit = {fattr(3.0)}"),
        ("leaky_relu", x, np.where(d >= 0, d, 0.1 * d), f"alpha = {fattr(0.1)}"),
        ("clip", x, np.clip(d, -1, 2), f"min = {fattr(-1.0)}, max = {fattr(2.0)}"),
        ("hard_sigmoid", x, np.clip(0.2 * d + 0.5, 0, 1), ""),
        ("gelu", x, 0.5 * d * (1 + R.erf(d / np.sqrt(2))), ""),
        ("gelu", x, 0.5 * d * (1 + np.tanh(np.sqrt(2 / np.pi) * (d + 0.044715 * d ** 3))),
         "gelu_approx = #top.gelu_approx<tanh>"),
        ("pow", x, d ** 2, f"exponent = {fattr(2.0)}"),
        ("pow", x, d ** 3, f"exponent = {fattr(3.0)}"),
        ("pow", pos, pos.astype(np.float64) ** 0.5, f"exponent = {fattr(0.5)}"),
        ("sigmoid", x, sig, ""), ("tanh", x, np.tanh(d), ""), ("silu", x, d * sig, ""),
        ("hard_swish", x, d * np.clip(d / 6 + 0.5, 0, 1), ""), ("exp", x, np.exp(d), ""),
        ("log", pos, np.log(pos.astype(np.float64)), ""), ("sqrt", pos, np.sqrt(pos.astype(np.float64)), ""),
        ("rsqrt", pos, 1 / np.sqrt(pos.astype(np.float64)), ""), ("abs", x, np.abs(d), ""),
        ("erf", x, R.erf(d), ""), ("reciprocal", pos, 1 / pos.astype(np.float64), ""),
        ("floor", x, np.floor(d), ""), ("ceil", x, np.ceil(d), ""), ("sign", x, np.sign(d), ""),
        ("round", halves, np.round(halves.astype(np.float64)), ""),
        ("sin", x, np.sin(d), ""), ("cos", x, np.cos(d), ""), ("tan", unit, np.tan(u), ""),
        ("asin", unit, np.arcsin(u), ""), ("acos", unit, np.arccos(u), ""), ("atan", x, np.arctan(d), ""),
        ("sinh", x, np.sinh(d), ""), ("cosh", x, np.cosh(d), ""), ("asinh", x, np.arcsinh(d), ""),
        ("acosh", pos + 1, np.arccosh(pos.astype(np.float64) + 1), ""), ("atanh", unit, np.arctanh(u), ""),
    ]
    cases = []
    for i, (op, inp, ref, attrs) in enumerate(specs):
        cases.append(unary_case(f"act_{i:02d}_{op}", op, inp, ref, attrs))
    return cases


@case
def binaries():
    fns = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "max": np.maximum, "min": np.minimum}
    shapes = [((2, 3, 4), (3, 1)), ((4,), (2, 3, 4)), ((2, 3, 4), (2, 3, 4)), ((2, 1, 4), (1, 3, 1)),
              ((2, 3, 4), (1,))]
    cases = []
    for op, fn in fns.items():
        for i, (sa, sb) in enumerate(shapes):
            a, b = rand(*sa), rand(*sb)
            if op == "div":
                b = np.where(np.abs(b) < 0.2, 0.5, b).astype(F32)
            relu = op in ("add", "sub") and i == 0
            ref = fn(a.astype(np.float64), b.astype(np.float64))
            if relu:
                ref = np.maximum(ref, 0)
            c = Case(f"{op}_broadcast{i}")
            c.ret(c.op(op, [c.input(a), c.input(b)], "do_relu = true" if relu else "", [ttype(ref.shape)]), ref)
            cases.append(c)
    x = rand(3, 5, lo=0.5, hi=2)
    d = x.astype(np.float64)
    consts = [("add_const", 1.5, False, d + 1.5), ("sub_const", 1.5, True, 1.5 - d),
              ("sub_const", 0.25, False, d - 0.25), ("mul_const", -2.0, False, -2 * d),
              ("div_const", 4.0, True, 4 / d), ("div_const", 4.0, False, d / 4),
              ("max_const", 1.0, False, np.maximum(d, 1)), ("min_const", 1.0, True, np.minimum(d, 1))]
    for i, (op, val, rev, ref) in enumerate(consts):
        attrs = f"const_val = {fattr(val)}" + (", is_reverse = true" if rev else "")
        cases.append(unary_case(f"{op}_{i}", op, x, ref, attrs))
    cases.append(unary_case("mul_const_relu", "mul_const", x, np.maximum(-2 * d, 0),
                            f"const_val = {fattr(-2.0)}, do_relu = true"))
    return cases


@case
def logic():
    cases = []
    a = rng.integers(-2, 3, size=(2, 3, 4)).astype(F32)
    b = rng.integers(-2, 3, size=(3, 1)).astype(F32)
    modes = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
             "ge": np.greater_equal, "and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
    for mode, fn in modes.items():
        ref = fn(a, b).astype(F32)
        c = Case(f"compare_{mode}")
        c.ret(c.op("compare", [c.input(a), c.input(b)], f"mode = #top.compare_mode<{mode}>",
                   [ttype(ref.shape, "i1")]), ref)
        cases.append(c)
    cond = rng.integers(0, 2, size=(2, 1, 4)).astype(np.bool_)
    x, y = rand(3, 4), rand(2, 3, 1)
    c = Case("where_broadcast")
    ref = np.where(cond, x, y)
    c.ret(c.op("where", [c.input(cond, "i1"), c.input(x), c.input(y)], "", [ttype(ref.shape)]), ref)
    cases.append(c)
    x = np.array([[-2.7, -0.5, 0.0, 0.4, 1.5, 2.9, 100.25, -100.75]], F32)
    for name, et, ref in [("cast_i32", "i32", np.trunc(x)), ("cast_i1", "i1", (x != 0).astype(F32)),
                          ("cast_f16", "f16", x.astype(np.float16).astype(F32)),
                          ("cast_bf16", "bf16", R.bf16_round(x + F32(0.00390625)))]:
        inp = x + F32(0.00390625) if et == "bf16" else x
        c = Case(name)
        c.ret(c.op("cast", [c.input(inp)], "", [ttype(x.shape, et)]), ref)
        cases.append(c)
    wrap = np.array([[200.0, -129.0, 127.9, 255.0]], F32)
    c = Case("cast_i8_wraps")
    c.ret(c.op("cast", [c.input(wrap)], "", [ttype(wrap.shape, "i8")]),
          np.array([[-56, 127, 127, -1]], F32))
    cases.append(c)
    return cases
