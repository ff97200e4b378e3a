#!/usr/bin/python3
"""Checks a weight file written by the importer against the ONNX model it came from:
`check_weights.py cnn MODEL NPZ` lists the arrays and recomputes the BatchNorm folding with numpy;
`check_weights.py fold MODEL NPZ` checks the constant the importer folded."""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main(kind, model_path, npz_path):
    weights = np.load(npz_path)
    print("arrays:", " ".join(sorted(weights.files)))
    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(model_path).graph.initializer}
    if kind == "cnn":
        s = inits["g"] / np.sqrt(inits["v"] + 1e-5)
        w = inits["w"] * s[:, None, None, None]
        b = (inits["b"] - inits["m"]) * s + inits["be"]
        ok = np.allclose(weights["w_bn"], w, rtol=1e-6) and np.allclose(weights["w_bn_bias"], b, rtol=1e-6)
        ok = ok and np.array_equal(weights["fc.weight"], inits["fc.weight"])
        print("folded batchnorm matches numpy" if ok else "MISMATCH")
    elif kind == "fold":
        expected = np.ones((1, 2, 8), np.float32) * np.arange(0, 16, 2, dtype=np.float32)
        print("folded constant matches numpy" if np.array_equal(weights["scaled"], expected) else "MISMATCH")
    elif kind == "external":
        print("external weight matches" if np.array_equal(weights["w"], inits["w"]) else "MISMATCH")

if __name__ == "__main__":
    main(*sys.argv[1:])
