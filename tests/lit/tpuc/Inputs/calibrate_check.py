"""Independent check of a calibration table: recomputes every tensor of the MLP written by calibrate_mlp.py
with numpy over the samples and compares the table's min, max and threshold for --cali_method max or
percentile9999. Usage: calibrate_check.py OUT TABLE METHOD BINS"""
import glob
import os
import sys
import numpy as np
import onnx
from onnx import numpy_helper

out, table, method, bins = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
w = {i.name: numpy_helper.to_array(i) for i in onnx.load(os.path.join(out, "mlp.onnx")).graph.initializer}
# By tensor name (the ONNX outputs h, t, y of nodes fc1, act1, fc2), as the table names them.
tensors = {"data": [], "h": [], "t": [], "y": []}
for path in sorted(glob.glob(os.path.join(out, "ds", "**", "*.npy"), recursive=True)):
    x = np.load(path).astype(np.float64)
    h = x @ w["w1"].T.astype(np.float64) + w["b1"]
    t = np.tanh(h)
    y = t @ w["w2"].T.astype(np.float64) + w["b2"]
    for name, v in (("data", x), ("h", h), ("t", t), ("y", y)):
        tensors[name].append(v.astype(np.float32).ravel())

rows = {}
for line in open(table):
    if line.startswith("#"):
        if line.startswith("#int4_th"):
            break
        continue
    f = line.split()
    if len(f) == 4:
        rows[f[0]] = tuple(float(v) for v in f[1:])
assert sorted(rows) == sorted(tensors), f"table names {sorted(rows)}"
worst = 0.0
for name, parts in tensors.items():
    v = np.concatenate(parts)
    a = np.abs(v)
    thr, lo, hi = rows[name]
    assert abs(lo - v.min()) <= 1e-5 * max(1, abs(v.min())), (name, lo, v.min())
    assert abs(hi - v.max()) <= 1e-5 * max(1, abs(v.max())), (name, hi, v.max())
    if method == "max":
        expected, tol = a.max(), 1e-5 * max(1, a.max())
    else:
        # The documented definition: the smallest t with 99.99 % of all |x| at or below it (numpy's
        # inverted_cdf), which the table interpolates inside its histogram bin (2 * bins fine bins of width
        # < 2 * absmax / (2 * bins)).
        expected, tol = np.percentile(a, 99.99, method="inverted_cdf"), a.max() / bins
    assert abs(thr - expected) <= tol, (name, thr, expected, tol)
    worst = max(worst, abs(thr - expected) / tol)
    print(f"{name} {method} table={thr:.6f} numpy={expected:.6f} ok")
print(f"all {len(rows)} tensors match ({method}, worst {worst:.2f} of the tolerance)")
