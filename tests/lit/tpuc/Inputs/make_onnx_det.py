"""Writes a tiny detector-shaped CNN whose output is a sigmoid probability map (conv -> relu -> conv ->
sigmoid, like PP-OCR det's head), biased so that most of the map is near 0, as on an image with nothing to
detect."""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(11)
inits = [numpy_helper.from_array((rng.normal(size=s) * 0.4).astype(np.float32), n)
         for n, s in (("w1", (6, 3, 3, 3)), ("b1", (6,)), ("w2", (1, 6, 3, 3)))]
inits.append(numpy_helper.from_array(np.array([-6.0], np.float32), "b2"))
nodes = [
    helper.make_node("Conv", ["data", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
    helper.make_node("Conv", ["r1", "w2", "b2"], ["logits"], name="conv2", pads=[1, 1, 1, 1]),
    helper.make_node("Sigmoid", ["logits"], ["map"], name="sigmoid"),
]
graph = helper.make_graph(nodes, "det", [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["N", 3, 16, 16])],
                          [helper.make_tensor_value_info("map", TensorProto.FLOAT, ["N", 1, 16, 16])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
onnx.save(model, f"{sys.argv[1]}/det.onnx")
