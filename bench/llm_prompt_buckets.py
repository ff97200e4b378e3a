"""First-token latency against prompt length, static and `--dynamic` (issue 23): a random Qwen2-shaped
checkpoint (make_tiny_llm.py, default 4 layers, hidden 512, 8/2 heads, I 1408, V 4096) is converted twice at
`-s S -q w4bf16` — once static, once with prefill buckets — and each prompt length runs through
`tpuc llm-run` on the command-level simulator (greedy, 2 new tokens). Printed side by side: the dry run's
first token for the bucket that holds the prompt, the simulated first token of the dynamic and of the static
model file, and whether both model files produce the same logits. Then the dry run's first token by bucket
for a config-only model (default Qwen2-7B w4bf16 at -s 2048, the published figures' shape).

    /usr/bin/python3 bench/llm_prompt_buckets.py --tpuc build/bin/tpuc --work /tmp/buckets

Run with /usr/bin/python3 (numpy, PyTorch for the checkpoint)."""
import argparse
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:3])} ...: exit {done.returncode}\n{done.stdout[-1500:]}{done.stderr[-1500:]}")
    return done.stdout + done.stderr


def first_token(tpuc, model, ids, stem):
    run([tpuc, "llm-run", "--model", model, "--prompt_ids", ",".join(map(str, ids)), "--max_new_tokens", "2",
         "--dump_logits", stem + ".npz", "--output_json", stem + ".json"])
    with open(stem + ".json") as f:
        return json.load(f)["first_token_ms"], np.load(stem + ".npz")["logits"]


def dry_buckets(tpuc, model, convert, work, name):
    path = os.path.join(work, name + ".json")
    run([tpuc, "llm-convert", "-m", model, *convert, "--dynamic", "-o", os.path.join(work, name + "_dry"),
         "--dry_run", "--dry_run_json", path])
    with open(path) as f:
        chip = json.load(f)["chips"][0]
    return [(b["tokens"], b["first_token_ms"]) for b in chip["first_token_by_bucket"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tpuc", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--lengths", default="8,40,100,200,300,500")
    ap.add_argument("--chip", default="bm1684x")
    ap.add_argument("--config_only", default=os.path.join(SOURCE, "tests/unit/llm/Inputs/DryRun/qwen2-7b"))
    ap.add_argument("--config_seq", type=int, default=2048)
    a = ap.parse_args()
    tpuc = os.path.abspath(a.tpuc)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    ckpt = os.path.join(a.work, "ckpt")
    run(["/usr/bin/python3", os.path.join(SOURCE, "tests/unit/llm/make_tiny_llm.py"), "--family", "qwen2",
         "--layers", str(a.layers), "--hidden", "512", "--heads", "8", "--kv_heads", "2", "--inter", "1408",
         "--vocab", "4096", "--out", ckpt, "--new_tokens", "1", "--prompt_len", "4"])
    convert = ["-s", str(a.seq), "-q", "w4bf16", "-c", a.chip]
    for name, extra in (("static", []), ("dynamic", ["--dynamic"])):
        print(run([tpuc, "llm-convert", "-m", ckpt, *convert, *extra, "-o", os.path.join(a.work, name)]).strip())
    buckets = dry_buckets(tpuc, ckpt, convert, a.work, "small")
    print(f"\nQwen2-shaped, {a.layers} layers, hidden 512, w4bf16, -s {a.seq}, {a.chip}: first token (ms)")
    print(f"| prompt tokens | bucket | dry run | model file, --dynamic | model file, static | logits |")
    print(f"|---|---|---|---|---|---|")
    for n in map(int, a.lengths.split(",")):
        ids = [(i * 37 + 11) % 4096 for i in range(n)]
        bucket, dry = next((b, ms) for b, ms in buckets if b >= n)
        dyn, dyn_logits = first_token(tpuc, os.path.join(a.work, "dynamic"), ids, os.path.join(a.work, f"d{n}"))
        sta, sta_logits = first_token(tpuc, os.path.join(a.work, "static"), ids, os.path.join(a.work, f"s{n}"))
        same = "equal" if np.array_equal(dyn_logits, sta_logits) else "DIFFER"
        print(f"| {n} | {bucket} | {dry:.3f} | {dyn:.3f} | {sta:.3f} | {same} |")
    big = dry_buckets(tpuc, a.config_only, ["-s", str(a.config_seq), "-q", "w4bf16", "-c", a.chip], a.work, "big")
    print(f"\n{os.path.basename(a.config_only)} (config only), w4bf16, -s {a.config_seq}, {a.chip}: dry run first token")
    print("| prompt up to | first token (ms) | vs the full length |")
    print("|---|---|---|")
    for b, ms in big:
        print(f"| {b} | {ms:.1f} | {ms / big[-1][1]:.2f} |")


if __name__ == "__main__":
    main()
