"""Prints what layer-group-matmul.mlir and layer-group-norm.mlir check in a plan JSON: the ops of an LMEM
group (the first, or the one given), whether every slice box holds each value's last axis (h of the NCHW
view at rank 3, w at rank 4) whole, whether the stores of the group's output tile its rows (c at rank 3, h
at rank 4), and the weights resident for all slices. usage: check_rows.py PLAN [GROUP_INDEX]"""
import json
import sys

plan = json.load(open(sys.argv[1]))
shapes = {v["name"]: v["shape"] for v in plan["values"]}
index = int(sys.argv[2]) if len(sys.argv) > 2 else 0
group = [g for g in plan["groups"] if g["kind"] == "group"][index]
print("group", group["id"], "ops", ",".join(group["ops"]))
NCHW = "nchw"


def last(name):
    return min(len(shapes[name]), 4) - 1


whole = all(box[NCHW[last(name)]] == [0, shapes[name][last(name)]]
            for s in group["slices"] for name, box in s["values"].items())
print("rows whole features:", whole)
out = group["outputs"][0]
axis = last(out) - 1
rows = sorted(tuple(s["stores"][out][NCHW[axis]]) for s in group["slices"])
tiles = rows[0][0] == 0 and rows[-1][1] == shapes[out][axis] and \
    all(a[1] == b[0] for a, b in zip(rows, rows[1:])) and len(rows) > 1
print("rows tile:", tiles)
resident = [r["value"] for r in group["lmem"]["rects"] if r["kind"] == "weight" and r["slice"] == -1]
print("resident weights:", ",".join(resident))
