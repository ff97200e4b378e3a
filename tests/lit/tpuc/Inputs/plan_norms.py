"""Prints, for a deploy's plan JSON, how many layernorm / rmsnorm / softmax ops run inside LMEM groups (of all
of them), whether every group holding one is cut into several row slices, and how many of those running as
global ops are split over several cores. usage: plan_norms.py PLAN"""
import json
import sys

plan = json.load(open(sys.argv[1]))
kind = {op["name"]: op["kind"] for op in plan["ops"]}
norms = ("layernorm", "rmsnorm", "softmax")
groups = [g for g in plan["groups"] if g["kind"] == "group"]
counts = []
for k in norms:
    local = sum(1 for g in groups for o in g["ops"] if kind[o] == k)
    counts.append(f"{k} {local}/{sum(1 for v in kind.values() if v == k)}")
print("in groups:", ", ".join(counts))
holding = [g for g in groups if any(kind[o] in norms for o in g["ops"])]
print("row slices:", all(g["slice"]["n"] * g["slice"]["c"] * g["slice"]["h"] > 1 and g["slice"]["w"] == 1
                         for g in holding) and bool(holding))
glob = [g for g in plan["groups"] if g["kind"] == "global" and kind[g["ops"][0]] in norms]
print(f"global: {len(glob)}, split over cores: {sum(1 for g in glob if len(g.get('parts', [])) > 1)}")
