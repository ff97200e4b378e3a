#!/usr/bin/python3
"""Writes a small seed corpus for the npy/npz fuzzer into DIR: .npy files of
every dtype NumPy can write for us (both byte orders, Fortran order, format
1.0/2.0/3.0, 0-d and empty) and .npz archives, stored and deflated."""
import io
import os
import sys

import numpy as np


def npy_bytes(arr, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version)
    return buf.getvalue()


def main(directory):
    os.makedirs(directory, exist_ok=True)
    seeds = {}
    base = np.arange(6).reshape(2, 3)
    for dt in ["<f4", "<f8", "<f2", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8",
               "|b1", ">f4", ">i8"]:
        seeds["npy_%s" % dt.replace("<", "le").replace(">", "be").replace("|", "na")] = \
            npy_bytes(base.astype(dt))
    seeds["npy_fortran"] = npy_bytes(np.asfortranarray(base.astype("<f4")))
    seeds["npy_scalar"] = npy_bytes(np.array(1.5, dtype=np.float32))
    seeds["npy_empty"] = npy_bytes(np.zeros((0, 3), dtype=np.int8))
    seeds["npy_v2"] = npy_bytes(base.astype("<f4"), version=(2, 0))
    seeds["npy_v3"] = npy_bytes(base.astype("<f4"), version=(3, 0))
    arrays = {"a": base.astype(np.float32), "b": np.array([1, -1], dtype=np.int8),
              "c": np.array(True), "d": np.zeros((0,), dtype=np.uint16)}
    for name, fn in (("npz_stored", np.savez), ("npz_deflate", np.savez_compressed)):
        buf = io.BytesIO()
        fn(buf, **arrays)
        seeds[name] = buf.getvalue()
    buf = io.BytesIO()
    np.savez(buf)
    seeds["npz_empty"] = buf.getvalue()
    for name, data in seeds.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main(sys.argv[1])
