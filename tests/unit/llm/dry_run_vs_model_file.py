#!/usr/bin/python3
"""The LLM dry run against the compiled model file, stage by stage (ctest llm_dry_run_matches_model_file).

Small random checkpoints (make_tiny_llm.py; see CASES) are compiled by `tpuc llm-convert` and planned by
`tpuc llm-convert --dry_run` from their config.json alone. Every net of the model file runs on the
command-level simulator (`tpuc run` on zero inputs: timing does not depend on values) and its simulated
latency must match the dry run's figure for that stage (block_i against block_0, ...) within 5 %. Both cases
are built with --dynamic, so the prefill buckets (embedding_len16, block_len16_i, block_kv_len16_i, ...) are
held to it too: the dry run's first token by prompt length is what the model file simulates.

usage: dry_run_vs_model_file.py TPUC MAKE_TINY_LLM WORK"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

DTYPES = {"F32": np.float32, "INT32": np.int32, "F16": np.float16, "INT8": np.int8, "UINT8": np.uint8}


# (name, make_tiny_llm.py shape, llm-convert options): a Qwen2 layer with GQA at seq 128, and a
# Qwen3-shaped one (q/k norms) with history-KV chunks at seq 256 in f16 weights; both with prefill buckets.
CASES = [
    ("qwen2_w4bf16", ["--family", "qwen2", "--layers", "2", "--hidden", "512", "--heads", "8", "--kv_heads", "2",
                      "--inter", "1408", "--vocab", "4096"],
     ["-q", "w4bf16", "-g", "64", "-s", "128", "-c", "bm1684x", "--dynamic"]),
    ("qwen3_f16_history", ["--family", "qwen3", "--layers", "2", "--hidden", "768", "--heads", "12",
                           "--kv_heads", "4", "--head_dim", "64", "--inter", "2048", "--vocab", "8192"],
     ["-q", "f16", "-s", "256", "-c", "bm1688", "--use_history_kv", "--chunk_length", "64", "--buckets", "16,48"]),
]


def run(argv, cwd=None):
    done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:3])} ...: exit {done.returncode}\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return done.stdout + done.stderr


def main():
    tpuc, make, root = sys.argv[1:4]
    shutil.rmtree(root, ignore_errors=True)
    failures = []
    for name, shape, convert in CASES:
        work = os.path.join(root, name)
        os.makedirs(work)
        print(f"{name}: {' '.join(shape)}; llm-convert {' '.join(convert)}")
        failures += [f"{name} {stage}" for stage in check(tpuc, make, work, shape, convert)]
    if failures:
        sys.exit("dry run and model file differ by more than 5 % in: " + ", ".join(failures))


def check(tpuc, make, work, shape, convert):
    ckpt = os.path.join(work, "ckpt")
    run(["/usr/bin/python3", make, "--out", ckpt, *shape, "--new_tokens", "1", "--prompt_len", "4"])
    common = ["-m", ckpt, *convert]
    run([tpuc, "llm-convert", *common, "-o", os.path.join(work, "out")])
    run([tpuc, "llm-convert", *common, "-o", os.path.join(work, "dry"), "--dry_run", "--dry_run_json",
         os.path.join(work, "dry.json")])
    with open(os.path.join(work, "dry.json")) as f:
        dry = json.load(f)
    chip = dry["chips"][0]
    model = [os.path.join(work, "out", n) for n in os.listdir(os.path.join(work, "out")) if n.endswith(".tpum")][0]
    nets = os.path.join(work, "nets")
    run([tpuc, "model-tool", "--extract", model, "-o", nets])
    failures, lines = [], []
    for stage in chip["stages"]:
        name = stage["name"]
        net = name[:-2] + "_0" if name.endswith("_i") else name
        path = os.path.join(nets, net + ".tpum")
        if not os.path.exists(path):
            continue
        inputs = {}
        for m in re.finditer(r"input\s+(\S+) (\S+) (\S+) ", run([tpuc, "model-tool", "--info", path])):
            shape = [int(x) for x in m.group(2).split("x")]
            inputs[m.group(1)] = np.zeros(shape, DTYPES[m.group(3)])
        np.savez(os.path.join(nets, net + "_in.npz"), **inputs)
        out = run([tpuc, "run", "--model", path, "--input", net + "_in.npz", "--output", net + "_out.npz"], cwd=nets)
        cycles = int(re.search(r"simulated (\d+) cycles", out).group(1))
        sim_ms = cycles / chip["frequency_mhz"] / 1000
        dry_ms = stage["us"] / 1000
        ratio = dry_ms / sim_ms
        ok = abs(ratio - 1) <= 0.05
        lines.append(f"{name:<20} dry run {dry_ms:9.4f} ms  model file {sim_ms:9.4f} ms  {ratio:6.3f}  {'ok' if ok else 'OFF'}")
        if not ok:
            failures.append(name)
    print("\n".join(lines))
    return failures


if __name__ == "__main__":
    main()
