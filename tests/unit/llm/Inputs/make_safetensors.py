#!/usr/bin/python3
"""Writes a small safetensors file with NumPy, packing the format by hand (u64 LE header size,
JSON header, raw little-endian data), as an independent writer for the C++ reader's tests.
Tensors: f32/f16/bf16 holding arange(24) * 0.5 - 3 in shape (2, 3, 4), and i64 [-1, 0, 1, 1e12]."""
import json
import struct
import sys

import numpy as np


def main():
    values = (np.arange(24, dtype=np.float32) * 0.5 - 3).reshape(2, 3, 4)
    bf16 = (values.view(np.uint32) >> 16).astype("<u2")  # exact: values fit in bf16
    tensors = [
        ("f32", "F32", values.astype("<f4")),
        ("f16", "F16", values.astype("<f2")),
        ("bf16", "BF16", bf16),
        ("i64", "I64", np.array([-1, 0, 1, 10**12], dtype="<i8")),
    ]
    header = {"__metadata__": {"format": "pt"}}
    data = b""
    for name, dtype, array in tensors:
        raw = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


if __name__ == "__main__":
    main()
