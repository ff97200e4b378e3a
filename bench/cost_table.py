#!/usr/bin/python3
"""The cost model against published chip figures (issue 19): every row of the training table, the latency
`tpuc deploy --model` simulates next to the published one, their ratio, whether it is within ±25 %, and the
geometric-mean error factor over the rows (goal <= 1.15).

Published rows (batch 1, bmrt_test "calculate time"): resnet18 on bm1684x from TPU-MLIR's model zoo,
resnet50 on bm1684x, bm1688 (one core) and cv186ah from sophgo/sophon-demo sample/ResNet/README.md. Only
these are training data; the model is judged on cases it was not fitted to.

Models: resnet18 from the asset cache (tests fetch it), resnet50 exported here from torchvision with random
weights (latency depends on shapes only). INT8 is calibrated on 4 random inputs (thresholds do not change
the command stream's cost).

With --fit_table OUT it also writes the table `bench-cost-fit --table OUT` fits the profiles to (the lowered
module of every row, and the LLM decode row).

usage: bench/cost_table.py TPUC [--work DIR] [--chips ...] [--modes ...] [--models ...] [--json OUT]
                                [--fit_table OUT]"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

PUBLISHED = {  # (model, chip, precision) -> ms
    ("resnet18", "bm1684x", "INT8"): 0.552, ("resnet18", "bm1684x", "F16"): 1.231,
    ("resnet18", "bm1684x", "F32"): 6.800,
    ("resnet50", "bm1684x", "INT8"): 1.10, ("resnet50", "bm1684x", "F16"): 1.62,
    ("resnet50", "bm1684x", "F32"): 9.14,
    ("resnet50", "bm1688", "INT8"): 3.14, ("resnet50", "bm1688", "F16"): 8.26,
    ("resnet50", "bm1688", "F32"): 46.90,
    ("resnet50", "cv186ah", "INT8"): 2.43, ("resnet50", "cv186ah", "F16"): 6.89,
    ("resnet50", "cv186ah", "F32"): 42.90,
}


def model_file(name, work):
    assets = os.environ.get("TPUC_ASSETS", os.path.expanduser("~/.cache/tpu-studio/assets"))
    cached = os.path.join(assets, "models", name + ".onnx")
    if os.path.exists(cached):
        return cached
    path = os.path.join(work, name + ".onnx")
    if not os.path.exists(path):
        import torch
        import torchvision
        net = getattr(torchvision.models, name)().eval()
        torch.onnx.export(net, torch.randn(1, 3, 224, 224), path, opset_version=13, input_names=["input"],
                          output_names=["output"])
    return path


def trace_latency_ms(trace):
    """The simulated latency in an engine trace's header (tpuc-cmd-trace: the keys before traceEvents)."""
    with open(trace) as f:
        header = json.loads(f.read().split('"traceEvents"')[0].rstrip().rstrip(",") + "}")
    return header["latency_us"] / 1000


def run(tpuc, work, *args):
    done = subprocess.run([tpuc, *args], cwd=work, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"tpuc {' '.join(args[:3])} ...: exit {done.returncode}\n{done.stderr[-1500:]}")
    return done.stdout + done.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tpuc")
    ap.add_argument("--work", default=None)
    ap.add_argument("--chips", default="bm1684x,bm1688,cv186ah")
    ap.add_argument("--modes", default="INT8,F16,F32")
    ap.add_argument("--models", default="resnet18,resnet50")
    ap.add_argument("--json", default=None, help="also write the rows here")
    ap.add_argument("--fit_table", default=None,
                    help="write the table bench-cost-fit reads: every row's lowered module, plus LLM decode")
    a = ap.parse_args()
    tpuc = os.path.abspath(a.tpuc)
    work = a.work or tempfile.mkdtemp(prefix="cost-table-")
    os.makedirs(work, exist_ok=True)
    rows = []
    for model in a.models.split(","):
        wanted = [(c, m) for c in a.chips.split(",") for m in a.modes.split(",") if (model, c, m) in PUBLISHED]
        if not wanted:
            continue
        onnx_path = model_file(model, work)
        run(tpuc, work, "transform", "--model_name", model, "--model_def", onnx_path, "--input_shapes",
            "[[1,3,224,224]]", "--mlir", f"{model}.mlir")
        cali = os.path.join(work, f"{model}_cali_data")
        os.makedirs(cali, exist_ok=True)
        rng = np.random.default_rng(0)
        for k in range(4):
            np.savez(os.path.join(cali, f"s{k}.npz"), input=rng.standard_normal((1, 3, 224, 224)).astype(np.float32))
        if any(m == "INT8" for _, m in wanted):
            run(tpuc, work, "calibrate", f"{model}.mlir", "--dataset", cali, "-o", f"{model}_cali")
        for chip, mode in wanted:
            stem = f"{model}_{mode}_{chip}"
            run(tpuc, work, "deploy", "--mlir", f"{model}.mlir", "--quantize", mode, "--chip", chip,
                "--calibration_table", f"{model}_cali", "--model", f"{stem}.tpum", "--tpu_mlir", f"{stem}_tpu.mlir")
            # The engine trace deploy writes (named after --tpu_mlir): the command-level simulation of the
            # model file, the figure `tpuc run` and `deploy --test_input` print as "simulated X ms".
            sim = trace_latency_ms(os.path.join(work, f"{stem}_tpu_trace.json"))
            pub = PUBLISHED[(model, chip, mode)]
            rows.append({"model": model, "chip": chip, "precision": mode, "simulated_ms": sim, "published_ms": pub,
                         "ratio": sim / pub, "tpu_mlir": os.path.join(work, f"{stem}_tpu.mlir")})
            print(f"{model:<10}{chip:<9}{mode:<6}{sim:>10.3f}{pub:>10.3f}{sim / pub:>8.2f}"
                  f"  {'ok' if 0.75 <= sim / pub <= 1.25 else 'OFF'}", flush=True)
    if not rows:
        sys.exit("no row of the training table matches --models/--chips/--modes")
    geo = math.exp(sum(abs(math.log(r["ratio"])) for r in rows) / len(rows))
    within = sum(0.75 <= r["ratio"] <= 1.25 for r in rows)
    print(f"\n{len(rows)} rows, {within} within ±25 %, geometric-mean error x{geo:.3f} (goal: all within, <= x1.15)")
    if a.fit_table:
        table = [{"name": r["model"], "chip": r["chip"], "precision": r["precision"], "tpu_mlir": r["tpu_mlir"],
                  "published_ms": r["published_ms"]} for r in rows]
        if "bm1684x" in a.chips.split(","):
            # LLM-TPU's Qwen-7B decode on BM1684X (docs/LLM.md), predicted by the dry run of Qwen2-7B's config.
            source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            table.append({"name": "qwen2-7b decode", "chip": "bm1684x", "precision": "W4BF16",
                          "llm_config": os.path.join(source, "tests/unit/llm/Inputs/DryRun/qwen2-7b"),
                          "quantize": "w4bf16", "q_group_size": 64, "seq_length": 512,
                          "published_tokens_per_s": 12.4})
        with open(a.fit_table, "w") as f:
            json.dump({"rows": table}, f, indent=1)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "within_25": within, "geomean_error": geo}, f, indent=1)


if __name__ == "__main__":
    print(f"{'model':<10}{'chip':<9}{'prec':<6}{'sim ms':>10}{'pub ms':>10}{'ratio':>8}")
    main()
