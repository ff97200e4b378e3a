"""Prints what layer-group-matmul.mlir checks in a plan JSON: the ops of the first LMEM group, whether
every slice box holds each value's last axis (h of the NCHW view) whole, whether the stores of the
group's output tile its rows, and the weights resident for all slices. usage: check_rows.py PLAN"""
import json
import sys

plan = json.load(open(sys.argv[1]))
shapes = {v["name"]: v["shape"] for v in plan["values"]}
group = next(g for g in plan["groups"] if g["kind"] == "group")
print("group", group["id"], "ops", ",".join(group["ops"]))
whole = all(box["h"] == [0, shapes[name][2]] for s in group["slices"] for name, box in s["values"].items())
print("rows whole features:", whole)
rows = sorted(tuple(s["stores"][group["outputs"][0]]["c"]) for s in group["slices"])
tiles = rows[0][0] == 0 and rows[-1][1] == shapes[group["outputs"][0]][1] and \
    all(a[1] == b[0] for a, b in zip(rows, rows[1:])) and len(rows) > 1
print("rows tile:", tiles)
resident = [r["value"] for r in group["lmem"]["rects"] if r["kind"] == "weight" and r["slice"] == -1]
print("resident weights:", ",".join(resident))
