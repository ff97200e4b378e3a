"""Tensor-by-tensor equality of a model-file dump (tpuc run --dump_all_tensors, deploy's
*_model_outputs.npz) with the Tpu simulation's dump, with numpy alone. The NaN with payload 0x7fc0dead
(cmdsim::kNotComputedBits) in the model dump marks elements of an intermediate that no command computed (no
reader needs them); they are left out, every other element must be bit-equal, so a kernel writing any
other NaN fails. Also the one way these checks run the CLI, and the deploy-everywhere loop they share."""
import argparse
import os
import re
import subprocess

import numpy as np

# cmdsim::kNotComputedBits: the dump's mark of a cell no command computed.
NOT_COMPUTED_BITS = np.uint32(0x7FC0DEAD)


def run(args, cwd):
    """Runs a command in `cwd`; returns (exit code, stdout and stderr together)."""
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def compare_dumps(model_path, tpu_path):
    """Returns (compared, unequal names, names missing from the model dump, partly computed names)."""
    model, tpu = np.load(model_path), np.load(tpu_path)
    unequal, missing, partial = [], [], []
    for name in tpu.files:
        if name not in model.files:
            missing.append(name)
            continue
        a, b = model[name], tpu[name].astype(np.float32)
        computed = a.view(np.uint32) != NOT_COMPUTED_BITS
        if not computed.all():
            partial.append(name)
        if a.shape != b.shape or not computed.any() or not np.array_equal(a[computed], b[computed]):
            unequal.append(name)
    return len(tpu.files), unequal, missing, partial


def discard_dumps(work, stem, passed=True):
    """Deletes a checked case's tensor dumps (`<stem>_model_outputs.npz`, `_tpu_outputs.npz`,
    `_top_outputs.npz`): on 640 x 640
    models they are ~0.5 GB each, and a whole CI run once kept 22 GB of them and filled its runner's disk. A
    failed case keeps them, and so does every case with TPUC_KEEP_TEST_OUTPUTS=1."""
    if not passed or os.environ.get("TPUC_KEEP_TEST_OUTPUTS") == "1":
        return
    for suffix in ("_model_outputs.npz", "_tpu_outputs.npz", "_top_outputs.npz"):
        path = os.path.join(work, stem + suffix)
        if os.path.exists(path):
            os.remove(path)


def deploy_arguments(chips, modes):
    """The command line the deploy-everywhere checks share: TPUC WORKDIR [--chips ...] [--modes ...]."""
    ap = argparse.ArgumentParser()
    ap.add_argument("tpuc")
    ap.add_argument("work")
    ap.add_argument("--chips", default=",".join(chips))
    ap.add_argument("--modes", default=",".join(modes))
    return ap


def deploy_everywhere(tpuc, work, name, test_input, chips, modes, float_tolerance, int8_tolerance="0.5,0.1"):
    """Deploys `<name>.mlir` (with `<name>_top.npz` as the reference and `<name>_cali` as the INT8
    calibration table) in every mode on every chip (`chip[:num_core]`). Each model file runs on the
    command-level simulator; every tensor must be EQUAL to the Tpu simulation (deploy's own check, and numpy
    over both dumps), and a float mode's outputs within `float_tolerance[mode]` of the Top reference.
    Returns (rows of (mode, target, tensors, unequal, simulated ms, exit), failures)."""
    failures, rows = [], []
    for mode in modes:
        for target in chips:
            chip, _, cores = target.partition(":")
            stem = f"{name}_{mode}_{chip}" + (f"_{cores}core" if cores else "")
            tolerance = float_tolerance.get(mode, int8_tolerance)
            deploy = [tpuc, "deploy", "--mlir", name + ".mlir", "--quantize", mode, "--chip", chip,
                      "--test_input", test_input, "--test_reference", name + "_top.npz", "--tpu_mlir",
                      stem + ".mlir", "--model", stem + ".tpum", "--tolerance", tolerance]
            if mode == "INT8":
                deploy += ["--calibration_table", name + "_cali"]
            if cores:
                deploy += ["--num_core", cores]
            rc, out = run(deploy, work)
            summary = re.search(r"model file vs Tpu simulation: .*", out)
            if not summary:
                failures.append(f"{stem}: deploy exit {rc}, no model-file check\n{out[-2000:]}")
                continue
            compared, bad, missing, _ = compare_dumps(os.path.join(work, stem + "_model_outputs.npz"),
                                                      os.path.join(work, stem + "_tpu_outputs.npz"))
            latency = re.search(r"simulated ([0-9.]+) ms", summary.group(0))
            rows.append((mode, target, compared, len(bad) + len(missing), latency.group(1) if latency else "?", rc))
            before = len(failures)
            if bad or missing or not compared or " 0 failing" not in summary.group(0):
                failures.append(f"{stem}: not EQUAL {bad[:5]}, missing from the model dump {missing[:5]}")
            if mode in float_tolerance and rc != 0:
                failures.append(f"{stem}: outputs beyond {tolerance} of the Top reference\n{out[-1500:]}")
            discard_dumps(work, stem, passed=len(failures) == before)
    return rows, failures


def transform_and_calibrate(tpuc, work, name, calibration_dir):
    """`<name>.onnx` with `<name>_in.npz` as the test input -> `<name>.mlir`, `<name>_top.npz` and the INT8
    table `<name>_cali` from the samples in `calibration_dir`; exits naming the step that failed."""
    for args in (["transform", "--model_name", name, "--model_def", name + ".onnx", "--test_input",
                  name + "_in.npz", "--test_result", name + "_top.npz", "--mlir", name + ".mlir"],
                 ["calibrate", name + ".mlir", "--dataset", calibration_dir, "-o", name + "_cali"]):
        rc, out = run([tpuc, *args], work)
        if rc != 0:
            raise SystemExit(f"{name}: tpuc {args[0]}: exit {rc}\n{out[-3000:]}")


def print_rows(rows, failures):
    """The table deploy_everywhere's rows make, then the failures; the exit code they call for."""
    print(f"{'mode':16} {'chip':10} {'tensors':>7} {'unequal':>7} {'sim ms':>8} {'exit':>4}")
    for r in rows:
        print(f"{r[0]:16} {r[1]:10} {r[2]:7d} {r[3]:7d} {r[4]:>8} {r[5]:4d}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0
