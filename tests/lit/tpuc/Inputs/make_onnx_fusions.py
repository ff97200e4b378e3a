"""Writes an ONNX graph with the spelled-out forms exporters emit before opsets 17/20: LayerNorm (ReduceMean,
Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), RMSNorm (Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul),
GELU's erf form and its tanh form, Mish (Softplus, Tanh, Mul); an input, and numpy's evaluation of the same formulas as the reference."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(5)
D = 32
w = rng.uniform(0.5, 1.5, D).astype(np.float32)
b = rng.normal(0, 0.1, D).astype(np.float32)
g = rng.uniform(0.5, 1.5, D).astype(np.float32)
consts = {"w": w, "b": b, "g": g, "two": np.float32(2.0), "three": np.float32(3.0), "eps": np.float32(1e-5),
          "one": np.float32(1.0), "half": np.float32(0.5), "sqrt2": np.float32(np.sqrt(2.0)),
          "k": np.float32(0.044715), "c": np.float32(np.sqrt(2.0 / np.pi))}
inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in consts.items()]
N = helper.make_node
nodes = [
    # LayerNorm over the last axis, then * w + b
    N("ReduceMean", ["x"], ["mu"], axes=[-1]), N("Sub", ["x", "mu"], ["d"]), N("Pow", ["d", "two"], ["d2"]),
    N("ReduceMean", ["d2"], ["var"], axes=[-1]), N("Add", ["var", "eps"], ["ve"]), N("Sqrt", ["ve"], ["sd"]),
    N("Div", ["d", "sd"], ["n"]), N("Mul", ["n", "w"], ["nw"]), N("Add", ["nw", "b"], ["ln"]),
    # GELU, erf form
    N("Div", ["ln", "sqrt2"], ["s"]), N("Erf", ["s"], ["e"]), N("Add", ["e", "one"], ["e1"]),
    N("Mul", ["ln", "e1"], ["xe"]), N("Mul", ["xe", "half"], ["gelu"]),
    # RMSNorm * g
    N("Pow", ["gelu", "two"], ["q2"]), N("ReduceMean", ["q2"], ["ms"], axes=[-1]), N("Add", ["ms", "eps"], ["mse"]),
    N("Sqrt", ["mse"], ["rms"]), N("Reciprocal", ["rms"], ["inv"]), N("Mul", ["gelu", "inv"], ["r"]),
    N("Mul", ["r", "g"], ["rn"]),
    # GELU, tanh form
    N("Pow", ["rn", "three"], ["c3"]), N("Mul", ["c3", "k"], ["kc3"]), N("Add", ["rn", "kc3"], ["inner"]),
    N("Mul", ["inner", "c"], ["ci"]), N("Tanh", ["ci"], ["t"]), N("Add", ["t", "one"], ["t1"]),
    N("Mul", ["t1", "half"], ["ht"]), N("Mul", ["rn", "ht"], ["gt"]),
    # Mish, as exports before opset 18 write nn.Mish
    N("Softplus", ["gt"], ["sp"]), N("Tanh", ["sp"], ["tsp"]), N("Mul", ["gt", "tsp"], ["y"]),
]
graph = helper.make_graph(nodes, "fusions", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, D])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, D])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
out = sys.argv[1]
onnx.save(model, f"{out}/fusions.onnx")
x = rng.normal(0, 2, (2, 8, D)).astype(np.float32)
np.savez(f"{out}/fusions_in.npz", x=x)
# The reference, in float64 from the formulas.
from math import erf
xd = x.astype(np.float64)
mu = xd.mean(-1, keepdims=True)
ln = (xd - mu) / np.sqrt(((xd - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * w + b
gelu = 0.5 * ln * (1 + np.vectorize(erf)(ln / np.sqrt(2)))
rn = gelu / np.sqrt((gelu ** 2).mean(-1, keepdims=True) + 1e-5) * g
gt = 0.5 * rn * (1 + np.tanh(np.sqrt(2 / np.pi) * (rn + 0.044715 * rn ** 3)))
y = gt * np.tanh(np.log1p(np.exp(gt)))
np.savez(f"{out}/fusions_ref.npz", y=y.astype(np.float32))
