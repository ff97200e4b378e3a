#!/usr/bin/python3
"""Writes the seed corpus of the ONNX importer fuzzer into DIR: small valid models covering the op
families the importer maps (conv/pool/norm, element-wise, shape folding, resize, slicing, recurrent
layers, parameters fed at run time, If, Loop and Scan)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lit", "Import", "Inputs"))
import onnx  # noqa: E402
import onnx_models  # noqa: E402


def main(directory):
    os.makedirs(directory, exist_ok=True)
    for name in ["cnn", "elementwise", "clip_attrs", "shape_ops", "legacy_attrs", "resize", "nn", "fold",
                 "dead_branch", "bad_reshape", "recurrent", "resize_cubic", "runtime_params",
                 "runtime_if_ok", "loops", "volumes", "unique", "roi_pools"]:
        m = onnx_models.MODELS[name]()
        if name == "cnn":  # the fuzzer gives no --input_shapes: make the batch static
            m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1
        with open(os.path.join(directory, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1])
