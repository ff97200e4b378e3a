#!/usr/bin/python3
"""Writes the .npz inputs of the `tpuc compare` lit tests into DIR.

ref.npz holds four tensors (conv, relu, add, logits); the other files are
variants of it: equal, close (1e-6 relative noise), similar (~5 % noise:
cos ~0.999, euc ~0.95), dissimilar (unrelated values), reshaped (same
values, flat shapes), mismatch (other element count), partial (a subset plus
an extra name), bf16 (ref stored as bf16 bits in uint16, as numpy has no
bf16), corrupt (ref.npz cut in half), notzip (text), empty.
"""
import os
import sys

import numpy as np


def main(directory):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(1234)
    ref = {
        "conv": rng.standard_normal((1, 3, 4, 4)).astype(np.float32),
        "relu": np.maximum(rng.standard_normal((1, 3, 4, 4)), 0).astype(np.float32),
        "add": rng.standard_normal((1, 8)).astype(np.float32),
        "logits": rng.standard_normal((1, 10)).astype(np.float32),
    }

    def save(name, arrays, compressed=False):
        path = os.path.join(directory, name)
        (np.savez_compressed if compressed else np.savez)(path, **arrays)
        return path

    ref_path = save("ref.npz", ref)
    save("equal.npz", {k: v.copy() for k, v in ref.items()}, compressed=True)
    save("close.npz", {k: (v * (1 + 1e-6)).astype(np.float32) for k, v in ref.items()})
    save("similar.npz",
         {k: (v + 0.05 * np.abs(v).mean() * rng.standard_normal(v.shape)).astype(np.float32)
          for k, v in ref.items()})
    save("dissimilar.npz",
         {k: rng.standard_normal(v.shape).astype(np.float32) for k, v in ref.items()})
    save("reshaped.npz", {k: v.reshape(-1) for k, v in ref.items()})
    mismatch = dict(ref)
    mismatch["add"] = ref["add"][:, :6]
    save("mismatch.npz", mismatch)
    save("partial.npz", {"extra": ref["add"], "add": ref["add"], "conv": ref["conv"]})
    save("bf16.npz",
         {k: (v.view(np.uint32) >> 16).astype(np.uint16) for k, v in ref.items()})
    save("empty.npz", {})
    with open(ref_path, "rb") as f:
        data = f.read()
    with open(os.path.join(directory, "corrupt.npz"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(directory, "notzip.npz"), "w") as f:
        f.write("this is not an npz file\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_npz.py DIR")
    main(sys.argv[1])
