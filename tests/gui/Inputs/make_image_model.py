"""Writes an ONNX model with one float image input of the given shape (a dimension may be a name, which makes
it dynamic) and a Relu on it, for the preprocessing preview's tests. Usage:
make_image_model.py OUT.onnx INPUT_NAME DIM,DIM,DIM,DIM"""
import sys
import onnx
from onnx import TensorProto, helper

out, name, dims = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
shape = [int(d) if d.isdigit() else d for d in dims]
graph = helper.make_graph([helper.make_node("Relu", [name], ["y"], name="relu")], "image_model",
                          [helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, out)
