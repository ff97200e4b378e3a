"""Writes every reference-kernel test case (cases_compute.py, cases_data.py) to OUTPUT_DIR: <name>.mlir,
<name>.npz (inputs x<i>, weights w<i>, expected<i>) and manifest.txt with `name atol rtol` per line,
plus small_cnn.npz for the interpreter test (small_cnn.py).

Usage: gen_cases.py OUTPUT_DIR"""
import os
import sys

import cases_compute  # noqa: F401  (registers cases)
import cases_data  # noqa: F401
import small_cnn
from casebuilder import CASES


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    manifest, names = [], set()
    for make in CASES:
        for c in make():
            assert c.name not in names, f"duplicate case {c.name}"
            names.add(c.name)
            c.write(out_dir, manifest)
    with open(os.path.join(out_dir, "manifest.txt"), "w") as f:
        f.write("\n".join(manifest) + "\n")
    small_cnn.make(out_dir)
    print(f"wrote {len(manifest)} cases to {out_dir}")


if __name__ == "__main__":
    main()
