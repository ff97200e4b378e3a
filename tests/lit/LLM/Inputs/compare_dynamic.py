#!/usr/bin/python3
"""llm-dynamic.test: one prompt of each given length through a static and a --dynamic model (tpuc llm-run
--prompt_ids, greedy, 4 new tokens); prints whether the logits are bit-equal and both first-token times.

usage: compare_dynamic.py DIR STATIC DYNAMIC LENGTH..."""
import json
import os
import shutil
import subprocess
import sys

import numpy as np


def run(tpuc, model, ids, stem):
    subprocess.run([tpuc, "llm-run", "--model", model, "--prompt_ids", ",".join(map(str, ids)),
                    "--max_new_tokens", "4", "--dump_logits", stem + ".npz", "--output_json", stem + ".json"],
                   check=True, capture_output=True)
    with open(stem + ".json") as f:
        timing = json.load(f)["first_token_ms"]
    return np.load(stem + ".npz"), timing


def main():
    root, static, dynamic = sys.argv[1:4]
    tpuc = shutil.which("tpuc")
    for n in map(int, sys.argv[4:]):
        ids = [(i * 37 + 11) % 258 for i in range(n)]
        a, ta = run(tpuc, os.path.join(root, static), ids, os.path.join(root, f"static_{n}"))
        b, tb = run(tpuc, os.path.join(root, dynamic), ids, os.path.join(root, f"dynamic_{n}"))
        same = np.array_equal(a["tokens"], b["tokens"]) and np.array_equal(a["logits"], b["logits"])
        relation = "<" if tb < ta else "=" if tb == ta else ">"
        print(f"{n} tokens: {'equal' if same else 'DIFFERENT'} logits, first token {tb:.4f} ms {relation} "
              f"{ta:.4f} ms static")


if __name__ == "__main__":
    main()
