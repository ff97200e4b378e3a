#!/usr/bin/python3
"""NumPy side of the npz round-trip test (driven by NpzInteropTest.cpp).

  npz_interop.py check DIR   verify the files tpuc wrote into DIR
  npz_interop.py write DIR   write numpy files into DIR for tpuc to read

Values come from the same generator as NpzInteropTest.cpp (see value rules in
expected()); any difference in bytes, dtype, shape or member order fails.
"""
import os
import sys

import numpy as np

DTYPES = ["f32", "f64", "f16", "bf16", "i8", "u8", "i16", "u16", "i32", "u32",
          "i64", "u64", "bool"]
NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.uint16,
      "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16,
      "i32": np.int32, "u32": np.uint32, "i64": np.int64, "u64": np.uint64,
      "bool": np.bool_}
SHAPE = (2, 3, 4)
BIG_SHAPE = (1536, 1024)  # 6 MiB of f32


def wrap(value, bits, signed):
    value %= 1 << bits
    if signed and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def float_values(n, specials):
    vals = np.array([((i * 7) % 251 - 125) * 0.5 for i in range(n)], dtype=np.float64)
    if specials and n >= 8:
        vals[0:4] = [np.nan, np.inf, -np.inf, -0.0]
    return vals


def expected(dtype, shape, specials=True):
    n = int(np.prod(shape))
    if dtype in ("f32", "f64", "f16"):
        return float_values(n, specials).astype(NP[dtype]).reshape(shape)
    if dtype == "bf16":
        f = float_values(n, specials).astype(np.float32)
        return (f.view(np.uint32) >> 16).astype(np.uint16).reshape(shape)
    if dtype == "bool":
        return np.array([i % 3 == 0 for i in range(n)], dtype=np.bool_).reshape(shape)
    bits = np.dtype(NP[dtype]).itemsize * 8
    signed = dtype.startswith("i")
    mult = {8: 37, 16: 1237, 32: 2654435761, 64: 0x9E3779B97F4A7C15}[bits]
    return np.array([wrap(i * mult + 1, bits, signed) for i in range(n)],
                    dtype=NP[dtype]).reshape(shape)


def int4_packed():
    vals = [(i % 16) - 8 for i in range(7)]
    out = np.zeros(4, dtype=np.uint8)
    for i, v in enumerate(vals):
        out[i // 2] |= (v & 0xF) << (4 * (i % 2))
    return out


def expected_members():
    """(name, array) in order, as both sides write them."""
    members = [(d, expected(d, SHAPE)) for d in DTYPES]
    members.append(("scalar", np.array(3.5, dtype=np.float32)))
    members.append(("empty_f32", np.zeros((0, 3), dtype=np.float32)))
    members.append(("empty_i8", np.zeros((2, 0), dtype=np.int8)))
    members.append(("int4_packed", int4_packed()))
    members.append(("big", expected("f32", BIG_SHAPE, specials=False)))
    members.append(("layer/with.dots", expected("i32", (5,))))
    return members


def fail(msg):
    print("npz_interop.py: " + msg)
    sys.exit(1)


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def check(directory):
    want = expected_members()
    for fname in ("ours_stored.npz", "ours_compressed.npz"):
        path = os.path.join(directory, fname)
        with np.load(path) as npz:
            names = list(npz.files)
            if names != [n for n, _ in want]:
                fail("%s: member order %s" % (fname, names))
            for name, arr in want:
                got = npz[name]
                if not same(got, arr):
                    fail("%s: array %r differs: %s %s vs %s %s"
                         % (fname, name, got.dtype, got.shape, arr.dtype, arr.shape))
        import zipfile
        with zipfile.ZipFile(path) as z:
            methods = {i.compress_type for i in z.infolist()}
            want_method = zipfile.ZIP_DEFLATED if "compressed" in fname else zipfile.ZIP_STORED
            if methods != {want_method}:
                fail("%s: compression methods %s" % (fname, methods))
    for dtype in DTYPES:
        got = np.load(os.path.join(directory, "ours_%s.npy" % dtype))
        if not same(got, expected(dtype, SHAPE)):
            fail("ours_%s.npy differs" % dtype)
    with np.load(os.path.join(directory, "ours_empty.npz")) as npz:
        if list(npz.files):
            fail("ours_empty.npz is not empty")
    print("numpy read every tpuc file correctly")


def write(directory):
    members = expected_members()
    np.savez(os.path.join(directory, "np_stored.npz"), **dict(members))
    np.savez_compressed(os.path.join(directory, "np_compressed.npz"), **dict(members))
    for dtype in DTYPES:
        np.save(os.path.join(directory, "np_%s.npy" % dtype), expected(dtype, SHAPE))
    # Layout and encoding variants numpy can produce.
    f = expected("f32", SHAPE)
    np.save(os.path.join(directory, "np_fortran.npy"), np.asfortranarray(f))
    np.save(os.path.join(directory, "np_bigendian.npy"), expected("i32", SHAPE).astype(">i4"))
    np.savez(os.path.join(directory, "np_variants.npz"),
             fortran=np.asfortranarray(expected("i16", SHAPE)),
             bigendian=f.astype(">f4"))
    with open(os.path.join(directory, "np_v2.npy"), "wb") as fh:
        np.lib.format.write_array(fh, f, version=(2, 0))
    with open(os.path.join(directory, "np_v3.npy"), "wb") as fh:
        np.lib.format.write_array(fh, f, version=(3, 0))
    np.savez(os.path.join(directory, "np_empty.npz"))
    print("numpy wrote its files")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("check", "write"):
        fail("usage: npz_interop.py check|write DIR")
    (check if sys.argv[1] == "check" else write)(sys.argv[2])
