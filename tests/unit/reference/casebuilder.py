"""Builds the generic-form Top functions of the reference-kernel test cases and writes them with their
arrays (inputs, weights, expected outputs) to an .npz the module names as its weight file."""
import os

import numpy as np

rng = np.random.default_rng(20241202)
F32 = np.float32


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(F32)


def ttype(shape, et="f32"):
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


def fattr(v):
    return "%.17e : f64" % v


def iarr(values):
    values = [str(int(v)) for v in values]
    return "array<i64: " + ", ".join(values) + ">" if values else "array<i64>"


class Case:
    """Builds one function of generic-form Top ops and remembers the arrays it needs."""

    def __init__(self, name, atol=1e-5, rtol=1e-4):
        self.name, self.atol, self.rtol = name, atol, rtol
        self.args, self.body, self.rets, self.arrays = [], [], [], {}
        self.count = 0

    def _fresh(self):
        self.count += 1
        return f"%v{self.count}"

    def input(self, arr, et="f32"):
        i = len(self.args)
        t = ttype(arr.shape, et)
        self.args.append(t)
        self.arrays[f"x{i}"] = arr
        v = self._fresh()
        self.body.append(f'{v} = "top.input"(%arg{i}) : ({t}) -> {t} loc("x{i}")')
        return (v, t)

    def weight(self, arr, et="f32"):
        name = f"w{len([k for k in self.arrays if k.startswith('w')])}"
        self.arrays[name] = arr
        v = self._fresh()
        t = ttype(arr.shape, et)
        self.body.append(f'{v} = "top.weight"() {{name = "{name}"}} : () -> {t}')
        return (v, t)

    def none(self):
        v = self._fresh()
        self.body.append(f'{v} = "top.none"() : () -> none')
        return (v, "none")

    def op(self, name, operands, attrs, results):
        """`results`: list of result types; returns one (value, type) per result."""
        v = self._fresh()
        lhs = v if len(results) == 1 else f"{v}:{len(results)}"
        ins = ", ".join(o[0] for o in operands)
        tins = ", ".join(o[1] for o in operands)
        outs = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
        attr = " {" + attrs + "}" if attrs else ""
        self.body.append(f'{lhs} = "top.{name}"({ins}){attr} : ({tins}) -> {outs}')
        if len(results) == 1:
            return (v, results[0])
        return [(f"{v}#{i}", t) for i, t in enumerate(results)]

    def ret(self, value, expected):
        self.arrays[f"expected{len(self.rets)}"] = np.asarray(expected, dtype=np.float64).astype(F32)
        self.rets.append(value)

    def write(self, out_dir, manifest):
        npz = os.path.abspath(os.path.join(out_dir, self.name + ".npz"))
        np.savez(npz, **self.arrays)
        args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(self.args))
        rtypes = ", ".join(r[1] for r in self.rets)
        lines = [f'module attributes {{top.weight_file = "{npz}"}} {{',
                 f"  func.func @main({args}) -> ({rtypes}) {{"]
        lines += ["    " + b for b in self.body]
        lines.append("    return " + ", ".join(r[0] for r in self.rets) + " : " + rtypes)
        lines += ["  }", "}"]
        with open(os.path.join(out_dir, self.name + ".mlir"), "w") as f:
            f.write("\n".join(lines) + "\n")
        manifest.append(f"{self.name} {self.atol} {self.rtol}")


CASES = []


def case(fn):
    """Registers a function returning a list of Cases."""
    CASES.append(fn)
    return fn


def unary_case(name, op, x, expected, attrs=""):
    c = Case(name)
    v = c.input(x)
    c.ret(c.op(op, [v], attrs, [v[1]]), expected)
    return c
