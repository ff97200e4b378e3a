"""Property test of the backend: many random small CNNs (convs of random kernel, stride, padding, dilation
and groups, depthwise convs, max / average pools, residual adds, channel concats, activations), each
compiled by `tpuc deploy --model` for a random chip in INT8 or BF16 with input sizes that force layer
groups to slice, and run on the command-level simulator. Every model must compile (no overlap of live
buffers: the simulator's checker rejects bounds violations and hazards) and give every layer EQUAL to
the Tpu functional simulation. Deterministic (seeded); prints one line per graph.

usage: random_graphs_equal.py TPUC WORKDIR [--count N] [--seed S]"""
import argparse
import os
import random
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from dumps import compare_dumps, run

CHIPS = ["bm1684x", "bm1688", "cv186ah"]


class Builder:
    def __init__(self, rng, channels, size):
        self.rng, self.nodes, self.inits, self.k = rng, [], [], 0
        self.shapes = {"x": (channels, size, size)}

    def name(self, prefix):
        self.k += 1
        return f"{prefix}{self.k}"

    def weight(self, shape, scale):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array(
            (np.random.default_rng(self.k).normal(size=shape) * scale).astype(np.float32), n))
        return n

    def conv(self, x, oc=None, k=3, s=1, p=None, d=1, depthwise=False):
        c, h, w = self.shapes[x]
        if depthwise:
            oc, g = c, c
        else:
            oc, g = oc or c, 1
        p = (d * (k - 1)) // 2 if p is None else p
        oh = (h + 2 * p - d * (k - 1) - 1) // s + 1
        ow = (w + 2 * p - d * (k - 1) - 1) // s + 1
        if oh < 1 or ow < 1:
            return x
        y = self.name("conv")
        fan = (c // g) * k * k
        self.nodes.append(helper.make_node(
            "Conv", [x, self.weight((oc, c // g, k, k), 1 / np.sqrt(fan)), self.weight((oc,), 0.1)], [y], name=y,
            kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], dilations=[d, d], group=g))
        self.shapes[y] = (oc, oh, ow)
        return y

    def unary(self, x, op):
        y = self.name(op.lower())
        self.nodes.append(helper.make_node(op, [x], [y], name=y))
        self.shapes[y] = self.shapes[x]
        return y

    def pool(self, x, op, k, s, p):
        c, h, w = self.shapes[x]
        if k > h + 2 * p or k > w + 2 * p or p >= k:
            return x
        y = self.name(op.lower())
        self.nodes.append(helper.make_node(op, [x], [y], name=y, kernel_shape=[k, k], strides=[s, s],
                                           pads=[p, p, p, p]))
        self.shapes[y] = (c, (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1)
        return y

    def binary(self, op, a, b):
        y = self.name(op.lower())
        self.nodes.append(helper.make_node(op, [a, b], [y], name=y))
        self.shapes[y] = self.shapes[a]
        return y

    def concat(self, a, b):
        y = self.name("concat")
        self.nodes.append(helper.make_node("Concat", [a, b], [y], name=y, axis=1))
        c0, h, w = self.shapes[a]
        self.shapes[y] = (c0 + self.shapes[b][0], h, w)
        return y


def random_graph(rng, index):
    channels, size = rng.choice([3, 8, 16]), rng.choice([24, 40, 64, 96])
    b = Builder(rng, channels, size)
    x = b.conv("x", oc=rng.choice([8, 16, 32]), k=rng.choice([1, 3]))
    for _ in range(rng.randint(3, 8)):
        kind = rng.choice(["conv", "conv", "dw", "pool", "res", "cat", "act"])
        c, h, w = b.shapes[x]
        if kind == "conv":
            x = b.conv(x, oc=rng.choice([c, 2 * c, max(4, c // 2)]), k=rng.choice([1, 3, 5]),
                       s=rng.choice([1, 1, 2]), d=rng.choice([1, 1, 2]))
        elif kind == "dw":
            x = b.conv(x, k=3, s=rng.choice([1, 2]), depthwise=True)
        elif kind == "pool":
            x = b.pool(x, rng.choice(["MaxPool", "AveragePool"]), rng.choice([2, 3]), rng.choice([1, 2]),
                       rng.choice([0, 1]))
        elif kind == "res":
            y = b.unary(b.conv(x, k=3), "Relu")
            x = b.binary("Add", x, b.conv(y, oc=c, k=rng.choice([1, 3])))
        elif kind == "cat":
            x = b.concat(b.conv(x, oc=max(4, c // 2), k=1), b.conv(x, oc=max(4, c // 2), k=3))
        else:
            x = b.unary(x, rng.choice(["Relu", "Sigmoid", "Relu"]))
    c, h, w = b.shapes[x]
    graph = helper.make_graph(
        b.nodes, f"random{index}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, size, size])],
        [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, c, h, w])], b.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model, (channels, size)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tpuc")
    ap.add_argument("work")
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rng = random.Random(a.seed)
    failures = []
    for i in range(a.count):
        model, (channels, size) = random_graph(rng, i)
        stem = f"g{i}"
        onnx.save(model, os.path.join(a.work, stem + ".onnx"))
        data = np.random.default_rng(i)
        for k in range(4):
            np.save(os.path.join(a.work, f"{stem}_s{k}.npy"),
                    data.normal(size=(1, channels, size, size)).astype(np.float32))
        with open(os.path.join(a.work, stem + "_list.txt"), "w") as f:
            f.write("\n".join(f"{stem}_s{k}.npy" for k in range(1, 4)) + "\n")
        mode, chip = rng.choice(["INT8", "INT8", "BF16"]), rng.choice(CHIPS)
        steps = [["transform", "--model_name", stem, "--model_def", stem + ".onnx",
                  "--input_shapes", f"[[1,{channels},{size},{size}]]", "--mlir", stem + ".mlir"],
                 ["calibrate", stem + ".mlir", "--data_list", stem + "_list.txt", "-o", stem + "_cali"],
                 ["deploy", "--mlir", stem + ".mlir", "--quantize", mode, "--calibration_table", stem + "_cali",
                  "--chip", chip, "--opt", str(rng.choice([1, 2])), "--test_input", f"{stem}_s0.npy",
                  "--tolerance", "0.1,0.0", "--model", stem + ".tpum"]]
        ok = True
        for args in steps:
            rc, out = run([a.tpuc, *args], a.work)
            if rc != 0:
                failures.append(f"{stem} ({mode}, {chip}): tpuc {args[0]} exit {rc}: {out.strip()[-600:]}")
                ok = False
                break
        if not ok:
            print(f"{stem}: FAILED")
            continue
        compared, bad, missing, partial = compare_dumps(os.path.join(a.work, stem + "_model_outputs.npz"),
                                                        os.path.join(a.work, stem + "_tpu_outputs.npz"))
        ops = len(model.graph.node)
        print(f"{stem}: {ops:2d} ONNX ops, {mode:4} {chip:8} input {channels}x{size}x{size}: "
              f"{compared - len(bad) - len(missing)}/{compared} EQUAL, {len(partial)} computed in part")
        if bad or missing:
            failures.append(f"{stem} ({mode}, {chip}): unequal {bad}, missing {missing}")
    for f in failures:
        print("FAIL:", f)
    print(f"{a.count - len(failures)} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
