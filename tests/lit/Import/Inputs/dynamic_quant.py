#!/usr/bin/python3
"""Writes the graph ONNX Runtime's quantize_dynamic makes of two convolutions, and a QDQ pair, with none of
the intermediate tensors' types declared (as in real exported models), plus a numpy evaluation of the ONNX
operator definitions: `dynamic_quant.py OUT.onnx IN.npz REF.npz`.

Per conv: DynamicQuantizeLinear of the activation (uint8, scale = range / 255 with the range widened to
include 0, zero point rounded half to even and saturated), ConvInteger of the codes and uint8 weights
centered on their zero points (int32, padded with the zero point, i.e. with 0 once centered), Cast to float,
Mul by x_scale * w_scale, Add the bias. Then QuantizeLinear to int8 and DequantizeLinear back."""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(11)


def dynamic_quantize(x):
    lo, hi = min(0.0, float(x.min())), max(0.0, float(x.max()))
    scale = np.float32((hi - lo) / 255.0)
    zp = np.clip(np.round(np.float32(0.0 - lo) / scale), 0, 255)
    q = np.clip(np.round(x / scale) + zp, 0, 255)
    return q.astype(np.int64), scale, int(zp)


def conv_integer(xq, xzp, w, wzp, pad):
    x = np.pad(xq - xzp, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    wc = w.astype(np.int64) - wzp
    n, c, hh, ww = x.shape
    o, _, k, _ = wc.shape
    ho, wo = hh - k + 1, ww - k + 1
    out = np.zeros((n, o, ho, wo), np.int64)
    for ci in range(c):
        for i in range(k):
            for j in range(k):
                out += wc[None, :, ci, i, j, None, None] * x[:, ci, None, i:i + ho, j:j + wo]
    return out


def main(onnx_path, in_path, ref_path):
    x = RNG.standard_normal((1, 3, 10, 10)).astype(np.float32) * 2 + 0.5
    layers = []
    for name, (o, c) in (("c1", (8, 3)), ("c2", (4, 8))):
        w = RNG.integers(0, 256, (o, c, 3, 3)).astype(np.uint8)
        layers.append((name, w, np.uint8(RNG.integers(100, 156)), np.float32(RNG.uniform(0.002, 0.01)),
                       RNG.standard_normal(o).astype(np.float32)))
    q_scale, q_zp = np.float32(0.05), np.int8(-3)

    nodes, inits, cur = [], [], "x"
    ref = x
    for name, w, wzp, wscale, bias in layers:
        inits += [nh.from_array(w, f"{name}_w"), nh.from_array(np.array(wzp, np.uint8), f"{name}_wzp"),
                  nh.from_array(np.array(wscale, np.float32), f"{name}_wscale"),
                  nh.from_array(bias.reshape(1, -1, 1, 1), f"{name}_bias")]
        nodes += [h.make_node("DynamicQuantizeLinear", [cur], [f"{name}_xq", f"{name}_xs", f"{name}_xzp"]),
                  h.make_node("Mul", [f"{name}_xs", f"{name}_wscale"], [f"{name}_scales"]),
                  h.make_node("ConvInteger", [f"{name}_xq", f"{name}_w", f"{name}_xzp", f"{name}_wzp"],
                              [f"{name}_acc"], pads=[1, 1, 1, 1]),
                  h.make_node("Cast", [f"{name}_acc"], [f"{name}_accf"], to=T.FLOAT),
                  h.make_node("Mul", [f"{name}_accf", f"{name}_scales"], [f"{name}_scaled"]),
                  h.make_node("Add", [f"{name}_scaled", f"{name}_bias"], [f"{name}_out"]),
                  h.make_node("Relu", [f"{name}_out"], [f"{name}_relu"])]
        cur = f"{name}_relu"
        xq, xs, xzp = dynamic_quantize(ref)
        acc = conv_integer(xq, xzp, w, int(wzp), 1)
        ref = np.maximum(acc.astype(np.float32) * np.float32(xs * wscale) + bias.reshape(1, -1, 1, 1), 0)
    inits += [nh.from_array(np.array(q_scale), "q_scale"), nh.from_array(np.array(q_zp), "q_zp")]
    nodes += [h.make_node("QuantizeLinear", [cur, "q_scale", "q_zp"], ["q"]),
              h.make_node("DequantizeLinear", ["q", "q_scale", "q_zp"], ["dq"]),
              h.make_node("Sigmoid", ["dq"], ["y"])]
    codes = np.clip(np.round(ref / q_scale) + q_zp, -128, 127)
    y = 1 / (1 + np.exp(-((codes - q_zp) * q_scale)))

    graph = h.make_graph(nodes, "dynamic_quant", [h.make_tensor_value_info("x", T.FLOAT, [1, 3, 10, 10])],
                         [h.make_tensor_value_info("y", T.FLOAT, [1, 4, 10, 10])], inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, onnx_path)
    np.savez(in_path, x=x)
    np.savez(ref_path, y=y.astype(np.float32))


if __name__ == "__main__":
    main(*sys.argv[1:4])
