"""Sequence models whole (issue 18): an LSTM/GRU acoustic model and a transformer encoder with spelled-out
LayerNorm and GELU, exported here from PyTorch (export_sequence_models.py). Each goes through transform,
where its Top output must match PyTorch's (cosine >= 0.99999, the independent reference), calibrate on
random feature frames, and deploy to a model file in INT8, F16 and F32 on every chip: each model file runs
on the command-level simulator with every tensor EQUAL to the Tpu simulation, float precisions within their
tolerance of the Top reference. The transformer's Top graph must hold its norms, GELUs and attention fused.
Prints one row per deploy.

usage: sequence_models_equal.py TPUC WORKDIR [--frames 24] [--chips ...] [--modes ...]"""
import os
import re
import subprocess
import sys

import numpy as np

from dumps import deploy_arguments, deploy_everywhere, print_rows, transform_and_calibrate

HERE = os.path.dirname(os.path.abspath(__file__))
CHIPS = ["bm1684x", "bm1688", "cv186ah"]
MODES = ["F32", "F16", "INT8"]
FLOAT_TOLERANCE = {"F32": "0.99,0.99", "F16": "0.99,0.90"}
# The transformer's spelled-out chains (opset 14: norms, GELUs, attention) and what each must become in Top.
FUSED = {"top.layernorm": 5, "top.gelu": 2, "top.attention": 2}


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main():
    ap = deploy_arguments(CHIPS, MODES)
    ap.add_argument("--frames", type=int, default=24)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    export = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "export_sequence_models.py"), a.work,
                             "--frames", str(a.frames)], capture_output=True, text=True)
    if export.returncode != 0:
        sys.exit(f"export_sequence_models.py failed:\n{export.stderr[-2000:]}")
    all_rows, failures = [], []
    for name in ("speech", "transformer"):
        shape = np.load(os.path.join(a.work, name + "_in.npz"))["input"].shape
        cali = os.path.join(a.work, name + "_calibration")
        os.makedirs(cali, exist_ok=True)
        rng = np.random.default_rng(1)
        for k in range(8):
            np.savez(os.path.join(cali, f"sample{k}.npz"), input=rng.standard_normal(shape).astype(np.float32))
        transform_and_calibrate(a.tpuc, a.work, name, cali)
        top = np.load(os.path.join(a.work, name + "_top.npz"))["output"]
        ref = np.load(os.path.join(a.work, name + "_torch.npz"))["output"]
        cos = cosine(top, ref)
        print(f"{name}: Top vs PyTorch cosine {cos:.8f}, max |diff| {np.abs(top - ref).max():.3g}")
        if top.shape != ref.shape or cos < 0.99999:
            failures.append(f"{name}: Top output {top.shape} vs PyTorch {ref.shape}, cosine {cos:.8f} < 0.99999")
        if name == "transformer":
            with open(os.path.join(a.work, name + ".mlir")) as f:
                text = f.read()
            for op, count in FUSED.items():
                found = len(re.findall(re.escape(op) + r"\b", text))
                if found != count:
                    failures.append(f"transformer: {found} {op} in Top, expected {count} (fusion missed)")
        rows, failed = deploy_everywhere(a.tpuc, a.work, name, name + "_in.npz", a.chips.split(","),
                                         a.modes.split(","), FLOAT_TOLERANCE)
        all_rows += [(f"{name} {r[0]}",) + r[1:] for r in rows]
        failures += failed
    sys.exit(print_rows(all_rows, failures))


if __name__ == "__main__":
    main()
