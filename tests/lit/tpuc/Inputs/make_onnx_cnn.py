"""Writes a small CNN (conv -> batchnorm -> relu -> maxpool -> gemm -> softmax) as ONNX, plus an input .npz,
an input .npy and a test image."""
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(3)
def init(name, shape, scale=0.3):
    return numpy_helper.from_array((rng.normal(size=shape) * scale).astype(np.float32), name)

inits = [init("w", (4, 3, 3, 3)), init("b", (4,)), init("bn_g", (4,)), init("bn_b", (4,)),
         init("bn_m", (4,)), numpy_helper.from_array(rng.uniform(0.5, 1.5, 4).astype(np.float32), "bn_v"),
         init("fc_w", (5, 64)), init("fc_b", (5,)), numpy_helper.from_array(np.array([1, 64], np.int64), "shape")]
nodes = [
    helper.make_node("Conv", ["data", "w", "b"], ["conv_out"], name="conv1", pads=[1, 1, 1, 1]),
    helper.make_node("BatchNormalization", ["conv_out", "bn_g", "bn_b", "bn_m", "bn_v"], ["bn_out"], name="bn1"),
    helper.make_node("Relu", ["bn_out"], ["relu_out"], name="relu1"),
    helper.make_node("MaxPool", ["relu_out"], ["pool_out"], name="pool1", kernel_shape=[2, 2], strides=[2, 2]),
    helper.make_node("Reshape", ["pool_out", "shape"], ["flat"], name="flatten"),
    helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
    helper.make_node("Softmax", ["logits"], ["prob"], name="softmax", axis=1),
]
graph = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("data", TensorProto.FLOAT, ["N", 3, 8, 8])],
                          [helper.make_tensor_value_info("prob", TensorProto.FLOAT, ["N", 5])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(model)
out = sys.argv[1]
onnx.save(model, f"{out}/cnn.onnx")
x = rng.normal(size=(1, 3, 8, 8)).astype(np.float32)
np.savez(f"{out}/cnn_in.npz", data=x)
np.save(f"{out}/cnn_in.npy", x)
# A 12x10 RGB test image (PPM is not needed: write a tiny PNG through numpy-free zlib).
import zlib, struct
img = (rng.uniform(0, 255, size=(10, 12, 3))).astype(np.uint8)
raw = b"".join(b"\x00" + img[r].tobytes() for r in range(img.shape[0]))
def chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 12, 10, 8, 2, 0, 0, 0)) + \
      chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(f"{out}/cnn.png", "wb").write(png)
