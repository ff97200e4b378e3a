"""Writes a model whose graph depends on inputs that are fixed for a deployment, as speech front ends do:
an If on `sr == 16000` (then: relu(x) * 2, else: sigmoid(x)), then ReduceSum over the axes given by the
int64 input `axes`. Also the test input x and numpy's results for both sample rates."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
two = numpy_helper.from_array(np.array(2.0, np.float32), "two")
then_branch = helper.make_graph(
    [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Mul", ["r", "two"], ["then_y"])], "then",
    [], [helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [1, 4, 8, 8])], [two])
else_branch = helper.make_graph(
    [helper.make_node("Sigmoid", ["x"], ["else_y"])], "else",
    [], [helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [1, 4, 8, 8])])
rate = numpy_helper.from_array(np.array(16000, np.int64), "rate16k")
nodes = [
    helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
    helper.make_node("If", ["is16k"], ["y"], then_branch=then_branch, else_branch=else_branch),
    helper.make_node("ReduceSum", ["y", "axes"], ["z"], keepdims=1),
]
graph = helper.make_graph(nodes, "branch", [
    helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8]),
    helper.make_tensor_value_info("sr", TensorProto.INT64, []),
    helper.make_tensor_value_info("axes", TensorProto.INT64, [1])],
    [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 1, 8, 8])], [rate])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, f"{out}/branch.onnx")
x = np.random.default_rng(2).normal(size=(1, 4, 8, 8)).astype(np.float32)
np.savez(f"{out}/x.npz", x=x)
np.savez(f"{out}/x_params.npz", x=x, sr=np.array(8000, np.int64), axes=np.array([1], np.int64))
np.savez(f"{out}/ref16k.npz", z=(np.maximum(x, 0) * 2).sum(1, keepdims=True))
np.savez(f"{out}/ref8k.npz", z=(1 / (1 + np.exp(-x))).sum(1, keepdims=True))
