"""Writes an ONNX graph whose normalizations run along the last axis, as a transformer's element-wise tails
have them: on [1, 2048, 128] a bias add, softmax, LayerNormalization (opset 17) and a spelled-out RMSNorm
(Pow, ReduceMean, Add, Sqrt, Reciprocal, Mul, Mul; Top fuses it), then a reshape to [1, 8, 256, 128]
scores, a scale and a softmax along their last axis; and an input. Also rows2d.onnx: a softmax and a
LayerNormalization on [1024, 256] (rank 2: the row form would spread the rows' elements over the lanes, so
they run as global ops, split over the cores by rows). usage: make_onnx_row_norms.py OUTDIR"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
R, D = 2048, 128
consts = {"bias": rng.normal(0, 0.5, D).astype(np.float32), "gamma": rng.uniform(0.5, 1.5, D).astype(np.float32),
          "beta": rng.normal(0, 0.1, D).astype(np.float32), "g": rng.uniform(0.5, 1.5, D).astype(np.float32),
          "two": np.float32(2.0), "eps": np.float32(1e-6), "scale": np.float32(4.0),
          "heads": np.array([1, 8, R // 8, D], dtype=np.int64)}
inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in consts.items()]
N = helper.make_node
nodes = [
    N("Add", ["x", "bias"], ["biased"]),
    N("Softmax", ["biased"], ["probs"], axis=-1),
    N("LayerNormalization", ["probs", "gamma", "beta"], ["normed"], axis=-1, epsilon=1e-5),
    N("Pow", ["normed", "two"], ["q2"]), N("ReduceMean", ["q2"], ["ms"], axes=[-1]), N("Add", ["ms", "eps"], ["mse"]),
    N("Sqrt", ["mse"], ["rms"]), N("Reciprocal", ["rms"], ["inv"]), N("Mul", ["normed", "inv"], ["r"]),
    N("Mul", ["r", "g"], ["rn"]),
    N("Reshape", ["rn", "heads"], ["scores"]), N("Mul", ["scores", "scale"], ["scaled"]),
    N("Softmax", ["scaled"], ["y"], axis=-1),
]
graph = helper.make_graph(nodes, "row_norms", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, R, D])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, R // 8, D])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
out = sys.argv[1]
onnx.save(model, f"{out}/row_norms.onnx")
np.savez(f"{out}/row_norms_in.npz", x=rng.normal(0, 2, (1, R, D)).astype(np.float32))

# Rank 2: global softmax and layernorm.
M, K = 1024, 256
inits = [numpy_helper.from_array(rng.uniform(0.5, 1.5, K).astype(np.float32), "gamma"),
         numpy_helper.from_array(rng.normal(0, 0.1, K).astype(np.float32), "beta")]
nodes = [N("Softmax", ["x"], ["probs"], axis=-1),
         N("LayerNormalization", ["probs", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5)]
graph = helper.make_graph(nodes, "rows2d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [M, K])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [M, K])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(model)
onnx.save(model, f"{out}/rows2d.onnx")
np.savez(f"{out}/rows2d_in.npz", x=rng.normal(0, 2, (M, K)).astype(np.float32))
