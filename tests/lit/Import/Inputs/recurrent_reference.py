#!/usr/bin/python3
"""A bidirectional LSTM and a reverse GRU (linear_before_reset) with different sequence lengths per batch
row fed at run time, initial states and peepholes, against a numpy implementation of ONNX's definitions:
`recurrent_reference.py TPUC WORKDIR` imports and runs it with `tpuc transform --test_input`, then compares
Y, Y_h and Y_c by their ONNX names. Prints the worst difference; exits 1 beyond 1e-5."""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

RNG = np.random.default_rng(3)
SEQ, BATCH, INPUT, HIDDEN = 4, 3, 3, 2
LENS = np.array([4, 1, 3], np.int32)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_dir(x, w, r, b, h0, c0, p, reverse):
    y = np.zeros((SEQ, BATCH, HIDDEN), np.float32)
    hh, cc = h0.copy(), c0.copy()
    steps = range(SEQ - 1, -1, -1) if reverse else range(SEQ)
    for t in steps:
        g = x[t] @ w.T + hh @ r.T + b[:4 * HIDDEN] + b[4 * HIDDEN:]
        i, o, f, c = np.split(g, 4, axis=1)
        i = sigmoid(i + p[:HIDDEN] * cc)
        f = sigmoid(f + p[2 * HIDDEN:] * cc)
        cn = f * cc + i * np.tanh(c)
        o = sigmoid(o + p[HIDDEN:2 * HIDDEN] * cn)
        hn = o * np.tanh(cn)
        run = (t < LENS)[:, None]
        y[t] = np.where(run, hn, 0)
        hh, cc = np.where(run, hn, hh), np.where(run, cn, cc)
    return y, hh, cc


def gru_dir(x, w, r, b, h0, reverse):
    y = np.zeros((SEQ, BATCH, HIDDEN), np.float32)
    hh = h0.copy()
    wb, rb = b[:3 * HIDDEN], b[3 * HIDDEN:]
    steps = range(SEQ - 1, -1, -1) if reverse else range(SEQ)
    for t in steps:
        xw, hr = x[t] @ w.T + wb, hh @ r.T + rb
        z = sigmoid(xw[:, :HIDDEN] + hr[:, :HIDDEN])
        rr = sigmoid(xw[:, HIDDEN:2 * HIDDEN] + hr[:, HIDDEN:2 * HIDDEN])
        n = np.tanh(xw[:, 2 * HIDDEN:] + rr * hr[:, 2 * HIDDEN:])
        hn = (1 - z) * n + z * hh
        run = (t < LENS)[:, None]
        y[t] = np.where(run, hn, 0)
        hh = np.where(run, hn, hh)
    return y, hh


def main(tpuc, work):
    os.makedirs(work, exist_ok=True)
    f = lambda *s: RNG.standard_normal(s).astype(np.float32)
    W, R, B, P = f(2, 8, INPUT), f(2, 8, HIDDEN), f(2, 16), f(2, 6)
    GW, GR, GB = f(1, 6, INPUT), f(1, 6, HIDDEN), f(1, 12)
    x, h0, c0, gh0 = f(SEQ, BATCH, INPUT), f(2, BATCH, HIDDEN), f(2, BATCH, HIDDEN), f(1, BATCH, HIDDEN)
    nodes = [h.make_node("LSTM", ["x", "W", "R", "B", "lens", "h0", "c0", "P"], ["Y", "Y_h", "Y_c"], name="lstm",
                         hidden_size=HIDDEN, direction="bidirectional"),
             h.make_node("GRU", ["x", "GW", "GR", "GB", "lens", "gh0"], ["GY", "G_h"], name="gru", hidden_size=HIDDEN,
                         direction="reverse", linear_before_reset=1)]
    inits = [nh.from_array(v, n) for n, v in [("W", W), ("R", R), ("B", B), ("P", P), ("GW", GW), ("GR", GR),
                                               ("GB", GB)]]
    vi = lambda n, s, t=T.FLOAT: h.make_tensor_value_info(n, t, s)
    graph = h.make_graph(nodes, "recurrent", [vi("x", [SEQ, BATCH, INPUT]), vi("lens", [BATCH], T.INT32),
                                              vi("h0", [2, BATCH, HIDDEN]), vi("c0", [2, BATCH, HIDDEN]),
                                              vi("gh0", [1, BATCH, HIDDEN])],
                         [vi("Y", [SEQ, 2, BATCH, HIDDEN]), vi("Y_h", [2, BATCH, HIDDEN]), vi("Y_c", [2, BATCH, HIDDEN]),
                          vi("GY", [SEQ, 1, BATCH, HIDDEN]), vi("G_h", [1, BATCH, HIDDEN])], inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, os.path.join(work, "recurrent.onnx"))
    np.savez(os.path.join(work, "in.npz"), x=x, lens=LENS, h0=h0, c0=c0, gh0=gh0)

    expect = {}
    ys, hs, cs = [], [], []
    for d in range(2):
        y, hh, cc = lstm_dir(x, W[d], R[d], B[d], h0[d], c0[d], P[d], d == 1)
        ys.append(y), hs.append(hh), cs.append(cc)
    expect["Y"], expect["Y_h"], expect["Y_c"] = np.stack(ys, 1), np.stack(hs), np.stack(cs)
    gy, gh = gru_dir(x, GW[0], GR[0], GB[0], gh0[0], True)
    expect["GY"], expect["G_h"] = gy[:, None], gh[None]

    done = subprocess.run([tpuc, "transform", "--model_name", "recurrent", "--model_def", "recurrent.onnx",
                           "--test_input", "in.npz", "--test_result", "top.npz", "--mlir", "recurrent.mlir"],
                          cwd=work, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"tpuc transform failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    top = np.load(os.path.join(work, "top.npz"))
    worst = 0.0
    for name, want in expect.items():
        got = top[name]
        if got.shape != want.shape:
            sys.exit(f"{name}: shape {got.shape}, expected {want.shape}")
        worst = max(worst, float(np.abs(got - want).max()))
        print(f"{name}: max |diff| {np.abs(got - want).max():.2e}")
    print(f"worst {worst:.2e}")
    sys.exit(0 if worst <= 1e-5 else 1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
