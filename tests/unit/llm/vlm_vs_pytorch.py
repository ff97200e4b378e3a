#!/usr/bin/python3
"""A tiny InternVL-shaped VLM (make_tiny_vlm.py) through `tpuc llm-convert` and `tpuc llm-run --image`, against
the generator's independent PyTorch reference (ctest llm_vlm_matches_pytorch).

f32: the prompt ids llm-run builds from --prompt and the image placeholder equal InternVL's; the greedy tokens
equal the reference's, with logits cosine >= 0.9999 at every step; a second image gives the reference's other
answer (so the image reaches the language model); --prompt_ids with the same ids and --no_kv_cache answer the
same.
bf16 (checkpoint and stages): the first token's logits cosine >= 0.99 and the first token equal.

usage: vlm_vs_pytorch.py TPUC WORK"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:3])} ...: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout + done.stderr


def cosine(a, b):
    a, b = a.ravel().astype(np.float64), b.ravel().astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def answer(tpuc, model, work, stem, image, *prompt, new_tokens=8):
    out = os.path.join(work, stem)
    log = run([tpuc, "llm-run", "--model", model, "--image", image, *prompt, "--max_new_tokens", str(new_tokens),
               "--output_json", out + ".json", "--dump_logits", out + ".npz"])
    with open(out + ".json") as f:
        result = json.load(f)
    return result, np.load(out + ".npz"), log


def main():
    tpuc, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    for dtype, quantize in (("f32", "f32"), ("bf16", "bf16")):
        ckpt = os.path.join(work, dtype)
        run(["/usr/bin/python3", os.path.join(HERE, "make_tiny_vlm.py"), "--out", ckpt, "--dtype", dtype])
        ref = np.load(os.path.join(ckpt, "reference.npz"))
        out = os.path.join(work, dtype + "_out")
        print(run([tpuc, "llm-convert", "-m", ckpt, "-s", "128", "-q", quantize, "-o", out]).strip())
        result, logits, log = answer(tpuc, out, work, dtype, os.path.join(ckpt, "pixel_values.npy"),
                                     "--prompt", "what?")
        print(log.strip().splitlines()[-1])
        check(result["prompt_ids"] == ref["input_ids"].tolist(),
              f"{dtype}: the prompt holds InternVL's image placeholder ({len(ref['input_ids'])} ids)")
        cos = [cosine(logits["logits"][i], ref["step_logits"][i]) for i in range(len(ref["tokens"]))]
        if dtype == "f32":
            check(result["tokens"] == ref["tokens"].tolist(),
                  f"f32: greedy tokens {result['tokens']} equal the reference's")
            check(min(cos) >= 0.9999, f"f32: logits cosine >= 0.9999 at every step (min {min(cos):.6f})")
            other, _, _ = answer(tpuc, out, work, "f32_other", os.path.join(ckpt, "other_pixel_values.npy"),
                                 "--prompt", "what?")
            check(other["tokens"] == ref["other_tokens"].tolist() and other["tokens"] != result["tokens"],
                  f"f32: another image gives the reference's other answer {other['tokens']}")
            ids, _, _ = answer(tpuc, out, work, "f32_ids", os.path.join(ckpt, "pixel_values.npy"), "--prompt_ids",
                               ",".join(str(i) for i in ref["input_ids"]))
            check(ids["tokens"] == result["tokens"], "f32: --prompt_ids with the same ids answers the same")
            recomputed, _, _ = answer(tpuc, out, work, "f32_recompute", os.path.join(ckpt, "pixel_values.npy"),
                                      "--prompt", "what?", "--no_kv_cache")
            check(recomputed["tokens"] == result["tokens"],
                  "f32: --no_kv_cache (every step from the spliced prompt again) answers the same")
        else:
            check(cos[0] >= 0.99 and result["tokens"][0] == int(ref["tokens"][0]),
                  f"bf16: first token {result['tokens'][0]} equal, logits cosine {cos[0]:.5f} >= 0.99 "
                  f"({sum(a == b for a, b in zip(result['tokens'], ref['tokens'].tolist()))}/8 tokens equal)")
    if failures:
        sys.exit("vlm_vs_pytorch: " + "; ".join(failures))


if __name__ == "__main__":
    main()
