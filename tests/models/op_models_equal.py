"""The ops that reach the chip as global float ops (issue 18, item 5): GroupNorm (PyTorch's export, fused),
InstanceNorm, GatherElements, ScatterElements and ScatterND with indices fed at run time, Pow of two tensors,
GridSample, bicubic resize, resize by a scale that gives no whole size, Slice with run-time bounds, NonZero,
NonMaxSuppression and Unique, and 3-D conv, transposed conv and pooling (imported as 2-D ops), in five small models (export_op_models.py). Each goes through transform, where its Top
outputs must match the independent reference (PyTorch, or numpy for the ONNX-written model), calibrate, and
deploy to a model file in INT8, F16 and F32 on every chip: each model file runs on the command-level
simulator with every tensor EQUAL to the Tpu simulation, float precisions within their tolerance of the Top
reference, and the Tpu IR must hold the op under test (no silent fallback). Prints one row per deploy.

usage: op_models_equal.py TPUC WORKDIR [--chips ...] [--modes ...]"""
import os
import subprocess
import sys

import numpy as np

from dumps import deploy_arguments, deploy_everywhere, print_rows, transform_and_calibrate

HERE = os.path.dirname(os.path.abspath(__file__))
CHIPS = ["bm1684x", "bm1688", "cv186ah"]
MODES = ["F32", "F16", "INT8"]
FLOAT_TOLERANCE = {"F32": "0.99,0.99", "F16": "0.99,0.90"}
# The Tpu ops each model's deploy must contain.
EXPECTED = {
    "norms": ["tpu.groupnorm", "tpu.instancenorm"],
    "indexing": ["tpu.gather_elements", "tpu.scatter_elements", "tpu.scatter_nd", "tpu.power"],
    "sampling": ["tpu.grid_sample", "tpu.interp"],
    "lists": ["tpu.dynamic_slice", "tpu.nonzero", "tpu.non_max_suppression", "tpu.unique"],
    "volumes": ["tpu.conv2d", "tpu.deconv2d", "tpu.pool2d"],
}


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def calibration_set(work, name, samples):
    """Random float inputs around the test input; integer inputs (indices, bounds) as in the test input.
    The model with data-dependent output counts is calibrated on its test input alone."""
    test = np.load(os.path.join(work, name + "_in.npz"))
    folder = os.path.join(work, name + "_calibration")
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(1)
    for k in range(1 if name == "lists" else samples):
        values = {key: (test[key] + 0.3 * rng.standard_normal(test[key].shape).astype(np.float32)
                        if test[key].dtype == np.float32 and name != "lists" else test[key]) for key in test.files}
        np.savez(os.path.join(folder, f"sample{k}.npz"), **values)
    return folder


def main():
    ap = deploy_arguments(CHIPS, MODES)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    export = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "export_op_models.py"), a.work],
                            capture_output=True, text=True)
    if export.returncode != 0:
        sys.exit(f"export_op_models.py failed:\n{export.stderr[-2000:]}")
    all_rows, failures = [], []
    for name, ops in EXPECTED.items():
        cali = calibration_set(a.work, name, 8)
        transform_and_calibrate(a.tpuc, a.work, name, cali)
        top, ref = np.load(os.path.join(a.work, name + "_top.npz")), np.load(os.path.join(a.work, name + "_ref.npz"))
        for key in ref.files:
            t, r = top[key], ref[key]
            if t.shape != r.shape:
                failures.append(f"{name}: Top '{key}' {t.shape} vs reference {r.shape}")
            elif r.dtype.kind in "iu":
                if not np.array_equal(t, r):
                    failures.append(f"{name}: Top '{key}' differs from the reference")
                print(f"{name}: Top '{key}' vs reference: {'equal' if np.array_equal(t, r) else 'DIFFERENT'}")
            else:
                cos = cosine(t, r)
                print(f"{name}: Top '{key}' vs reference cosine {cos:.8f}, max |diff| {np.abs(t - r).max():.3g}")
                if cos < 0.99999:
                    failures.append(f"{name}: Top '{key}' cosine {cos:.8f} < 0.99999")
        rows, failed = deploy_everywhere(a.tpuc, a.work, name, name + "_in.npz", a.chips.split(","),
                                         a.modes.split(","), FLOAT_TOLERANCE)
        for mode in a.modes.split(","):
            stem = f"{name}_{mode}_{a.chips.split(',')[0].partition(':')[0]}"
            path = os.path.join(a.work, stem + ".mlir")
            text = open(path).read() if os.path.exists(path) else ""
            failures += [f"{stem}: no {op} in the Tpu IR" for op in ops if op + " " not in text]
        all_rows += [(f"{name} {r[0]}",) + r[1:] for r in rows]
        failures += failed
    sys.exit(print_rows(all_rows, failures))


if __name__ == "__main__":
    main()
