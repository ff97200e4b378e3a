"""Matmul's local form on a real transformer (issue 19): a 2-layer BERT-shaped encoder (bench/
export_bert_encoder.py at hidden 256, 4 heads, FFN 1024, sequence 64) goes through transform and calibrate
and is deployed to a model file in F16, INT8, BF16 and F32 on bm1684x and on both cores of bm1688. Each
model file runs on the command-level simulator with every tensor EQUAL to the Tpu simulation (deploy's check
and numpy over both dumps), and in F16, INT8 and BF16 its plan must hold at least half of its matmuls inside
LMEM groups, in F16 and BF16 one of them with the feed-forward block's GELU after it: otherwise the check
would pass on global ops alone (in F32 the DP keeps them global: their weights make the row groups wait;
in INT8 the GELU runs global, and the biases are inside the matmuls since Top canonicalization folds the
Linear's Add, so its grouped matmuls, q, k and v after their input's cast, have no element-wise op after
them). Every layernorm must run in an LMEM group in every mode (its row form). Prints one row per deploy
and the groups of each plan.

usage: transformer_groups_equal.py TPUC WORKDIR [--chips ...] [--modes ...]"""
import json
import os
import subprocess
import sys

import numpy as np

from dumps import deploy_arguments, deploy_everywhere, print_rows, transform_and_calibrate

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "..", "bench", "export_bert_encoder.py")
SHAPE = ["--layers", "2", "--hidden", "256", "--heads", "4", "--ffn", "1024", "--seq", "64"]
CHIPS = ["bm1684x", "bm1688:2"]
MODES = ["F16", "INT8", "BF16", "F32"]
FLOAT_TOLERANCE = {"F32": "0.99,0.99", "F16": "0.99,0.90", "BF16": "0.99,0.90"}
# The share of each normalization kind that must run in LMEM groups: every layernorm (its row form). The
# encoder's softmax is fused into tpu.attention (a global op); tests/lit/tpuc/deploy-row-norms.test deploys
# softmax and RMS norm row groups EQUAL.
NORM_KINDS = {"layernorm": 1.0}


def grouped_kinds(plan_path):
    """({op kind: (ops of the kind in LMEM groups, ops of the kind in all)}, whether some group holds a
    matmul and a unary op after it)."""
    plan = json.load(open(plan_path))
    kind = {op["name"]: op["kind"] for op in plan["ops"]}
    counts = {k: [0, sum(1 for v in kind.values() if v == k)] for k in set(kind.values())}
    chain = False
    for g in plan["groups"]:
        if g["kind"] != "group":
            continue
        kinds = [kind[o] for o in g["ops"]]
        for k in kinds:
            counts[k][0] += 1
        chain = chain or ("matmul" in kinds and "unary" in kinds[kinds.index("matmul"):])
    return {k: tuple(v) for k, v in counts.items()}, chain


def main():
    a = deploy_arguments(CHIPS, MODES).parse_args()
    os.makedirs(a.work, exist_ok=True)
    name = "bert2"
    export = subprocess.run(["/usr/bin/python3", EXPORT, os.path.join(a.work, name + ".onnx"), *SHAPE,
                             "--input", os.path.join(a.work, name + "_in.npz")], capture_output=True, text=True)
    if export.returncode != 0:
        sys.exit(f"export_bert_encoder.py failed:\n{export.stderr[-2000:]}")
    cali = os.path.join(a.work, name + "_calibration")
    os.makedirs(cali, exist_ok=True)
    rng = np.random.default_rng(1)
    shape = np.load(os.path.join(a.work, name + "_in.npz"))["x"].shape
    for k in range(4):
        np.savez(os.path.join(cali, f"sample{k}.npz"), x=rng.standard_normal(shape).astype(np.float32))
    transform_and_calibrate(a.tpuc, a.work, name, cali)
    chips, modes = a.chips.split(","), a.modes.split(",")
    rows, failures = deploy_everywhere(a.tpuc, a.work, name, name + "_in.npz", chips, modes, FLOAT_TOLERANCE)
    for mode in modes:
        for target in chips:
            chip, _, cores = target.partition(":")
            stem = f"{name}_{mode}_{chip}" + (f"_{cores}core" if cores else "")
            plan = os.path.join(a.work, stem + "_plan.json")
            if not os.path.exists(plan):
                failures.append(f"{stem}: no plan {plan}")
                continue
            counts, chain = grouped_kinds(plan)
            local, total = counts.get("matmul", (0, 0))
            print(f"{stem}: {local} of {total} matmuls in LMEM groups, a matmul chained with its activation: {chain}")
            # F32 weights are twice F16's: its row groups wait for them, and the DP keeps the matmuls global
            # (the EQUAL check still covers the element-wise groups); the other modes must group them.
            if mode != "F32" and (local < total // 2 or (mode != "INT8" and not chain)):
                failures.append(f"{stem}: only {local} of {total} matmuls in LMEM groups (chain {chain})")
            # Layernorm along the last axis has a row form: every one must run in an LMEM group (with the
            # ops around it), in every mode, so the EQUAL check covers its row slices.
            for k in NORM_KINDS:
                local, total = counts.get(k, (0, 0))
                print(f"{stem}: {local} of {total} {k} ops in LMEM groups")
                if total == 0 or local < NORM_KINDS[k] * total:
                    failures.append(f"{stem}: only {local} of {total} {k} ops in LMEM groups")
    sys.exit(print_rows(rows, failures))


if __name__ == "__main__":
    main()
