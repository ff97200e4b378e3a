"""Writes a tiny MLP (Gemm -> Tanh -> Gemm) as ONNX and a calibration set of .npy samples under
OUT/ds/{a,b}/ (recursion), plus a file that is not a sample. Usage: calibrate_mlp.py OUT"""
import os
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(11)
w1 = (rng.normal(size=(32, 16)) * 0.4).astype(np.float32)
b1 = (rng.normal(size=(32,)) * 0.1).astype(np.float32)
w2 = (rng.normal(size=(8, 32)) * 0.5).astype(np.float32)
b2 = (rng.normal(size=(8,)) * 0.1).astype(np.float32)
nodes = [
    helper.make_node("Gemm", ["data", "w1", "b1"], ["h"], name="fc1", transB=1),
    helper.make_node("Tanh", ["h"], ["t"], name="act1"),
    helper.make_node("Gemm", ["t", "w2", "b2"], ["y"], name="fc2", transB=1),
]
inits = [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
graph = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("data", TensorProto.FLOAT, [64, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 8])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "mlp.onnx"))
for i in range(12):
    sub = os.path.join(out, "ds", "a" if i % 2 else "b")
    os.makedirs(sub, exist_ok=True)
    # Heavy-tailed samples so that percentile9999 differs from max.
    x = (rng.standard_t(3, size=(64, 16)) * (1 + i / 4)).astype(np.float32)
    np.save(os.path.join(sub, f"s{i:02d}.npy"), x)
open(os.path.join(out, "ds", "README.txt"), "w").write("not a sample\n")
