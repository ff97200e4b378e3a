"""Independent check of `tpuc calibrate --search search_threshold` on the MLP of calibrate_mlp.py: recomputes
every tensor with numpy over the samples, fake-quantizes it in INT8 symmetric at each threshold the search
report lists (q = clip(round(x / s), -128, 127) * s, s = t / 127), and checks the report's cosine and SNR,
the tune step (least squared error on the kl grid), the winner (best metric, a tie to the earlier of max,
percentile9999, octav, kl_tune) and the table line (threshold, min, max). Tensors are matched by position:
the table lists them in graph order (data, fc1, tanh, fc2), whatever their names.
Usage: search_threshold_check.py OUT TABLE METRIC [DATASET (a directory under OUT, default ds)]"""
import csv
import glob
import math
import os
import sys
import numpy as np
import onnx
from onnx import numpy_helper

out, table, metric = sys.argv[1], sys.argv[2], sys.argv[3]
dataset = sys.argv[4] if len(sys.argv) > 4 else "ds"
w = {i.name: numpy_helper.to_array(i) for i in onnx.load(os.path.join(out, "mlp.onnx")).graph.initializer}
tensors = [[], [], [], []]
for path in sorted(glob.glob(os.path.join(out, dataset, "**", "*.npy"), recursive=True)):
    x = np.load(path).astype(np.float64)
    h = x @ w["w1"].T.astype(np.float64) + w["b1"]
    t = np.tanh(h)
    y = t @ w["w2"].T.astype(np.float64) + w["b2"]
    for i, v in enumerate((x, h, t, y)):
        tensors[i].append(v.astype(np.float32).ravel())
tensors = [np.concatenate(parts).astype(np.float64) for parts in tensors]

rows = []
for line in open(table):
    if line.startswith("#int4_th"):
        break
    if not line.startswith("#") and len(line.split()) == 4:
        f = line.split()
        rows.append((f[0], float(f[1]), float(f[2]), float(f[3])))
assert len(rows) == 4, rows

report = {}
with open(table + "_search_threshold.csv") as f:
    assert f.readline().startswith(f"# search_threshold by {metric}:")
    for r in csv.DictReader(f):
        report.setdefault(r["tensor"], []).append(r)


def scores(x, t):
    s = t / 127
    q = np.clip(np.round(x / s), -128, 127) * s  # numpy rounds half to even, as the search does
    e = x - q
    cos = float(x @ q / math.sqrt((x @ x) * (q @ q)))
    snr = 10 * math.log10((x @ x) / (e @ e)) if (e @ e) > 0 else math.inf
    return cos, snr, float(e @ e)


order = ["max", "percentile9999", "octav", "kl_tune"]
won = {}
for (name, threshold, lo, hi), x in zip(rows, tensors):
    assert abs(lo - x.min()) <= 1e-5 * max(1, abs(x.min())) and abs(hi - x.max()) <= 1e-5 * max(1, abs(x.max()))
    measured = report[name]
    best = {}
    for r in measured:
        t = float(r["threshold"])
        cos, snr, err = scores(x, t)
        assert abs(cos - float(r["cos"])) <= 1e-6, (name, r, cos)
        assert abs(snr - float(r["snr_db"])) <= 1e-3, (name, r, snr)
        r["score"] = cos if metric == "cos" else snr
        r["err"] = err
    grid = [r for r in measured if r["candidate"] == "kl" or r["candidate"].startswith("kl_tune_")]
    tuned = min(grid, key=lambda r: (r["err"], float(r["threshold"])))
    assert tuned["role"] in ("tune", "chosen"), (name, tuned)
    finalists = {r["candidate"]: r for r in measured if r["candidate"] in order}
    finalists["kl_tune"] = tuned
    absmax = np.abs(x).max()
    assert abs(float(finalists["max"]["threshold"]) - absmax) <= 1e-5 * absmax
    winner = max(order, key=lambda c: (finalists[c]["score"], -order.index(c)))
    assert finalists[winner]["role"] == "chosen", (name, winner, finalists[winner])
    assert sum(r["role"] == "chosen" for r in measured) == 1, name
    assert abs(float(finalists[winner]["threshold"]) - threshold) <= 1e-6 * max(1, threshold), (name, threshold)
    won[name] = winner
    print(f"{name}: {winner} {threshold:.6f} ({metric} {finalists[winner]['score']:.6f})")
tuned = sum(r["candidate"].startswith("kl_tune_") for rs in report.values() for r in rs)
print(f"all {len(rows)} tensors match, {tuned} tune grid points ({metric}: " + ", ".join(f"{c} {list(won.values()).count(c)}" for c in order) + ")")
