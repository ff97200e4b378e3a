"""LLM stages through the backend: tiny Qwen2 (bf16), Qwen3 (w4bf16, history KV, chunked) and Llama (w8bf16)
checkpoints are converted to Top stages (tpuc llm-convert --only_mlir), and every stage that runs on the
chip (embedding, embedding_cache, block_0, block_cache_0, block_kv_0, lm_head) is compiled by `tpuc deploy
--model` (layer groups, addresses, codegen) and run on the command-level simulator on random inputs of its
signature: every tensor must be EQUAL to the Tpu functional simulation's. Prints one line per stage.

usage: llm_stages_equal.py TPUC WORKDIR"""
import json
import os
import re
import sys

import numpy as np

from dumps import compare_dumps, run

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_TINY = os.path.join(HERE, "..", "unit", "llm", "make_tiny_llm.py")
# family, quantize, extra llm-convert flags, chip
CASES = [
    ("qwen2", "bf16", [], "bm1684x"),
    ("qwen3", "w4bf16", ["-g", "32", "--use_history_kv", "--chunk_length", "8"], "bm1688"),
    ("llama", "w8bf16", ["-g", "32"], "cv186ah"),
]
STAGES = ["embedding", "embedding_cache", "block_0", "block_cache_0", "block_kv_0", "lm_head", "greedy_head",
          "sample_head"]
# The sample head's scalar knobs, as llm-run passes them.
KNOBS = {"top_p": 0.8, "temperature": 0.7, "penalty": 1.1}
ARG = re.compile(r'%arg\d+: tensor<([0-9x]+)x(\w+)> loc\("([^"]+)"\)')


def inputs_for(mlir_path, vocab, rng):
    """Random inputs matching the stage's signature: token ids below the vocabulary (the sample head's ids
    so far padded with -1), positions in order, zero masks (nothing masked), the sample head's knobs, normal
    hidden states, KV history and logits (scaled so the top-p cut keeps several candidates)."""
    text = open(mlir_path).read()
    signature = text[text.index("func.func @main("):].split(") ->", 1)[0]
    arrays = {}
    for dims, element, name in ARG.findall(signature):
        shape = [int(d) for d in dims.split("x")]
        if element.startswith("i"):
            if "position" in name:
                arrays[name] = np.broadcast_to(np.arange(shape[-1], dtype=np.int32), shape).copy()
            elif "sample_head" in mlir_path:
                ids = rng.integers(0, vocab, size=shape).astype(np.int32)
                ids[..., shape[-1] // 2:] = -1
                arrays[name] = ids
            else:
                arrays[name] = rng.integers(0, vocab, size=shape).astype(np.int32)
        elif name in KNOBS:
            arrays[name] = np.full(shape, KNOBS[name], np.float32)
        elif "mask" in name:
            arrays[name] = np.zeros(shape, np.float32)
        else:
            arrays[name] = rng.normal(size=shape).astype(np.float32)
    return arrays


def main():
    tpuc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    failures, count = [], 0
    for family, quantize, flags, chip in CASES:
        folder = os.path.join(work, family)
        rc, out = run([sys.executable, MAKE_TINY, "--family", family, "--out", folder, "--new_tokens", "1"], work)
        if rc != 0:
            sys.exit(f"make_tiny_llm {family}: {out}")
        stages = family + "_stages"
        rc, out = run([tpuc, "llm-convert", "-m", folder, "-s", "32", "-q", quantize, *flags, "-o", stages,
                       "--only_mlir"], work)
        if rc != 0:
            sys.exit(f"llm-convert {family}: exit {rc}\n{out}")
        vocab = json.load(open(os.path.join(folder, "config.json")))["vocab_size"]
        rng = np.random.default_rng(7)
        for stage in STAGES:
            mlir = os.path.join(stages, stage + ".mlir")
            if not os.path.exists(os.path.join(work, mlir)):
                continue
            stem = os.path.join(stages, stage)
            np.savez(os.path.join(work, stem + "_in.npz"), **inputs_for(os.path.join(work, mlir), vocab, rng))
            rc, out = run([tpuc, "deploy", "--mlir", mlir, "--quantize", "BF16", "--chip", chip,
                           "--test_input", stem + "_in.npz", "--tolerance", "0.5,0.1", "--model", stem + ".tpum"],
                          work)
            summary = re.search(r"model file vs Tpu simulation: .*", out)
            count += 1
            if rc not in (0, 1) or not summary or " 0 failing" not in summary.group(0):
                failures.append(f"{family} {stage}: deploy exit {rc}: {out.strip()[-800:]}")
                print(f"{family:6} {quantize:7} {chip:8} {stage:16} FAILED")
                continue
            compared, bad, missing, _ = compare_dumps(os.path.join(work, stem + "_model_outputs.npz"),
                                                      os.path.join(work, stem + "_tpu_outputs.npz"))
            latency = re.search(r"simulated ([0-9.]+) ms", summary.group(0)).group(1)
            print(f"{family:6} {quantize:7} {chip:8} {stage:16} {compared - len(bad) - len(missing):3d}/{compared:3d} "
                  f"EQUAL, simulated {latency} ms")
            if bad or missing or not compared:
                failures.append(f"{family} {stage}: unequal {bad[:5]}, missing {missing[:5]}")
    for f in failures:
        print("FAIL:", f)
    print(f"{count - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
