"""Writes a two-input model (z = relu(x + y), inputs x and y of shape [1, 8]) and a calibration folder laid
out by input: OUT/ds/x/sK.npy and OUT/ds/y/sK.npy for K = 0..3 with x_K = K + 1 and y_K = 50 - 10 K
everywhere, so sample K's z is 51 - 9 K and the max thresholds are x 4, y 50, z 51 when the files are paired
by name (sample 0 alone: x 1, y 50, z 51; sample 2 alone: 3, 30, 33). OUT/ds/extra.npz holds both inputs.
Usage: calibrate_two_inputs.py OUT"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

out = sys.argv[1]
graph = helper.make_graph(
    [helper.make_node("Add", ["x", "y"], ["s"], name="add"), helper.make_node("Relu", ["s"], ["z"], name="relu")],
    "two", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 8])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, os.path.join(out, "two.onnx"))
for name in ("x", "y"):
    os.makedirs(os.path.join(out, "ds", name), exist_ok=True)
for k in range(4):
    np.save(os.path.join(out, "ds", "x", f"s{k}.npy"), np.full((1, 8), k + 1, np.float32))
    np.save(os.path.join(out, "ds", "y", f"s{k}.npy"), np.full((1, 8), 50 - 10 * k, np.float32))
