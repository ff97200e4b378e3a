#!/usr/bin/python3
"""bench-cost-fit recovers parameters it did not start from (ctest bench_cost_fit_recovers).

A small CNN (3x3 and 1x1 convs, a depthwise conv, a residual add, global pool, FC) is deployed in F16 and
F32 for bm1684x at two input sizes (small planes, where pass startup weighs, and large ones, where the
MAC rate does). Its "published" latencies are the model-file simulations under a hidden profile (the
shipped one with other TIU efficiencies and pass startup); bench-cost-fit, starting from the shipped
profile, must find those three values again (within 3 %) and reproduce the four figures (within 1 %),
and the profile it writes must load and give the same figures through `tpuc deploy`.

usage: cost_fit_recovers.py TPUC BENCH_COST_FIT CHIP_DIR WORK"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from cost_table import trace_latency_ms  # bench/, next to this script


def make_model(path, size):
    rng = np.random.default_rng(0)
    inits, nodes = [], []

    def weight(name, shape):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name))
        return name

    def conv(x, out, cin, cout, k, stride=1, group=1):
        w = weight(out + "_w", (cout, cin // group, k, k))
        b = weight(out + "_b", (cout,))
        nodes.append(helper.make_node("Conv", [x, w, b], [out + "_c"], kernel_shape=[k, k], strides=[stride] * 2,
                                      pads=[k // 2] * 4, group=group))
        nodes.append(helper.make_node("Relu", [out + "_c"], [out]))
        return out

    x = conv("input", "c1", 3, 32, 3, 2)
    x = conv(x, "c2", 32, 64, 3)
    y = conv(x, "dw", 64, 64, 3, 1, 64)
    y = conv(y, "pw", 64, 64, 1)
    nodes.append(helper.make_node("Add", [x, y], ["res"]))
    x = conv("res", "c3", 64, 128, 3, 2)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"]))
    nodes.append(helper.make_node("Gemm", ["flat", weight("fc_w", (10, 128)), weight("fc_b", (10,))], ["output"],
                                  transB=1))
    graph = helper.make_graph(nodes, "costfit", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                                               [1, 3, size, size])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])], inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def run(argv, env=None, cwd=None):
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:2])} ...: exit {done.returncode}\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return done.stdout


def main():
    tpuc, fit, chips, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sizes = (32, 160)
    for size in sizes:
        make_model(os.path.join(work, f"m{size}.onnx"), size)
        run([tpuc, "transform", "--model_name", f"m{size}", "--model_def", f"m{size}.onnx", "--input_shapes",
             f"[[1,3,{size},{size}]]", "--mlir", f"m{size}.mlir"], cwd=work)

    hidden = os.path.join(work, "hidden")
    os.makedirs(hidden)
    with open(os.path.join(chips, "bm1684x.json")) as f:
        profile = json.load(f)
    truth = {"F16": 0.3, "F32": 0.6}
    profile["tiu"]["conv_efficiency"] = {"INT8": 1, "F16": truth["F16"], "BF16": truth["F16"], "F32": truth["F32"]}
    truth_pass = 6.0
    profile["tiu"]["pass_cycles"] = truth_pass
    with open(os.path.join(hidden, "bm1684x.json"), "w") as f:
        json.dump(profile, f)

    rows = []
    for size in sizes:
        for mode in ("F16", "F32"):
            stem = f"m{size}_{mode}"
            # The "published" figure: the model file simulated under the hidden profile.
            run([tpuc, "deploy", "--mlir", f"m{size}.mlir", "--quantize", mode, "--chip", "bm1684x", "--model",
                 f"hidden_{stem}.tpum"], env=dict(os.environ, TPUC_CHIP_DIR=hidden), cwd=work)
            # The module the fit replans: lowered under the shipped profile (lowering reads no costs).
            run([tpuc, "deploy", "--mlir", f"m{size}.mlir", "--quantize", mode, "--chip", "bm1684x", "--model",
                 f"{stem}.tpum", "--tpu_mlir", f"{stem}_tpu.mlir"], cwd=work)
            rows.append({"name": f"costfit {size}", "chip": "bm1684x", "precision": mode, "size": size,
                         "tpu_mlir": os.path.join(work, f"{stem}_tpu.mlir"),
                         "published_ms": trace_latency_ms(os.path.join(work, f"hidden_{stem}_trace.json"))})
    with open(os.path.join(work, "table.json"), "w") as f:
        json.dump({"rows": [{k: v for k, v in r.items() if k != "size"} for r in rows]}, f)

    fitted = os.path.join(work, "fitted")
    os.makedirs(fitted)
    out = run([fit, "--table", "table.json", "--fit", "tiu.conv_efficiency.F16,tiu.conv_efficiency.F32", "--share",
               "tiu.pass_cycles", "--evals", "300", "--json", "fit.json", "--write", fitted],
              env=dict(os.environ, TPUC_CHIP_DIR=chips), cwd=work)
    print(out)
    with open(os.path.join(work, "fit.json")) as f:
        result = json.load(f)
    values = {p["path"]: p["value"] for p in result["parameters"]}
    failures = []
    want = {f"tiu.conv_efficiency.{mode}": v for mode, v in truth.items()}
    want["tiu.pass_cycles"] = truth_pass
    for path, v in want.items():
        if abs(values[path] / v - 1) > 0.03:
            failures.append(f"{path}: fitted {values[path]:.4f}, hidden {v}")
    for r in result["rows"]:
        if abs(r["after"] - 1) > 0.01:
            failures.append(f"{r['name']} {r['precision']}: fitted / published {r['after']:.4f}")

    # The written profile is what deploy reads: same figures through the whole tool.
    for r in rows:
        stem = f"m{r['size']}_{r['precision']}"
        run([tpuc, "deploy", "--mlir", f"m{r['size']}.mlir", "--quantize", r["precision"], "--chip", "bm1684x",
             "--model", f"fitted_{stem}.tpum"], env=dict(os.environ, TPUC_CHIP_DIR=fitted), cwd=work)
        sim = trace_latency_ms(os.path.join(work, f"fitted_{stem}_trace.json"))
        print(f"{stem}: hidden {r['published_ms']:.4f} ms, deploy with the fitted profile {sim:.4f} ms")
        if abs(sim / r["published_ms"] - 1) > 0.02:
            failures.append(f"{stem}: deploy with the written profile {sim:.4f} ms, hidden {r['published_ms']:.4f}")
    if failures:
        sys.exit("cost fit did not recover the hidden profile:\n  " + "\n  ".join(failures))
    print("recovered: " + ", ".join(f"{k} {v:.4f}" for k, v in sorted(values.items())))


if __name__ == "__main__":
    main()
