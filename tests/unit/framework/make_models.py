"""Writes the small ONNX models of the framework tests, with numpy references.

tiny.onnx: x[1,4] f32 -> MatMul W -> Add b -> Relu -> Mul 2 = "out"; ids[N] i64 -> Cast f32 -> Add 1
= "ids_out". tiny_ext.onnx: the same with its weights in external data (tiny_ext.data).
tiny_ref.npz: inputs x, ids and every tensor (mm, add, relu, out, ids_f, ids_out).
Usage: make_models.py OUT_DIR
"""
import pathlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build():
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    two = np.array(2.0, dtype=np.float32)
    one = np.array(1.0, dtype=np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["mm"], name="matmul"),
        helper.make_node("Add", ["mm", "b"], ["add"], name="add"),
        helper.make_node("Relu", ["add"], ["relu"], name="relu"),
        helper.make_node("Mul", ["relu", "two"], ["out"], name="mul"),
        helper.make_node("Cast", ["ids"], ["ids_f"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Add", ["ids_f", "one"], ["ids_out"], name="add_one"),
    ]
    graph = helper.make_graph(
        nodes, "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 3]),
         helper.make_tensor_value_info("ids_out", TensorProto.FLOAT, ["n"])],
        [numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b"),
         numpy_helper.from_array(two, "two"), numpy_helper.from_array(one, "one")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)

    x = rng.standard_normal((1, 4)).astype(np.float32)
    ids = np.array([3, -1, 7], dtype=np.int64)
    mm = x @ w
    add = mm + b
    relu = np.maximum(add, 0)
    ref = dict(x=x, ids=ids, mm=mm, add=add, relu=relu, out=relu * two,
               ids_f=ids.astype(np.float32), ids_out=ids.astype(np.float32) + one)
    return model, ref


def main(out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model, ref = build()
    onnx.save(model, str(out / "tiny.onnx"))  # str: onnx 1.12 takes the data dir from str paths only
    onnx.save(model, str(out / "tiny_ext.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
              location="tiny_ext.data", size_threshold=0)
    np.savez(out / "tiny_ref.npz", **ref)


if __name__ == "__main__":
    main(sys.argv[1])
