"""Prints FileCheck lines for the INT8 lowering of conv_relu_add_pool.mlir with small.cali, computed here
with numpy from the formulas of docs/quantization.md (independently of TpucQuant): per-channel weight
scales, int8 filters, int32 biases, multiplier/rshift pairs, the add's shared shift, the sigmoid table
and, with --asymmetric, the zero points."""
import math
import sys

import numpy as np

asym = "--asymmetric" in sys.argv
cali = {}
for line in open(sys.argv[1]):
    if line.strip() and not line.startswith("#"):
        name, th, lo, hi = line.split()
        cali[name] = (float(th), float(lo), float(hi))


def round_away(x):
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def params(name):
    th, lo, hi = cali[name]
    if not asym:
        return max(th, 1e-5) / 127, 0
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255
    return scale, max(-128, min(127, round_away(-128 - lo / scale)))


def multiplier_shift(f, bits=31):
    m, e = math.frexp(abs(f))
    shift = min(bits - e, 63)
    mult = round_away(abs(f) * 2.0**shift)
    if mult >= 2**bits:
        shift -= 1
        mult = round_away(abs(f) * 2.0**shift)
    return mult if f >= 0 else -mult, shift


def weights(count, fn, shape):
    return np.array([fn(i) for i in range(count)], dtype=np.float32).reshape(shape)


w = weights(54, lambda i: ((i * 7) % 11 - 5) / 4 * (1 + 0.5 * (i // 18)), (3, 18))
w2 = weights(9, lambda i: ((i * 5) % 7 - 3) / 2, (3, 3))
bias = [0.5, -0.25, 1.0]
s_in, z_in = params("in")
s_conv, z_conv = params("conv")
s_conv2, z_conv2 = params("conv2")
s_add, z_add = params("add")
s_sig, z_sig = params("sig")


def conv_checks(name, wt, s_x, s_y, with_bias):
    scales = [np.float32(np.abs(row).max() / 127.0) for row in wt]
    q = [[max(-127, min(127, round_away(v / float(s)))) for v in row] for row, s in zip(wt, scales)]
    pairs = [multiplier_shift(s_x * float(s) / s_y) for s in scales]
    if with_bias:
        b = [round_away(bias[c] / (s_x * float(scales[c]))) for c in range(3)]
        print(f"CHECK: top.weight \"b_i32\" {{value = dense<[{', '.join(map(str, b))}]> : tensor<3xi32>}}")
    print(f"CHECK: tpu.conv2d {{{{.*}}}}multiplier = array<i64: {', '.join(str(p[0]) for p in pairs)}>"
          f"{{{{.*}}}}rshift = array<i64: {', '.join(str(p[1]) for p in pairs)}>")
    print(f"CHECK-SAME: loc(\"{name}\")")
    return q


zp = lambda z: f":{z}" if z else ""
print(f"CHECK: tpu.cast {{{{.*}}}}precision = #top.precision<INT8>{{{{.*}}}}x!quant.uniform<i8:f32, {{{{[0-9.e-]+}}}}{zp(z_in)}>> loc(\"in_i8\")")
q = conv_checks("conv", w, s_in, s_conv, True)
print(f"CHECK: top.weight \"w2_i8\" {{value = dense<{{{{.*}}}}{q and ''}")
conv_checks("conv2", w2, s_conv, s_conv2, False)
shift = multiplier_shift(max(s_conv / s_add, s_conv2 / s_add))[1]
mults = [round_away(f * 2.0**shift) for f in (s_conv / s_add, s_conv2 / s_add)]
print(f"CHECK: tpu.add {{{{.*}}}}multiplier = array<i64: {mults[0]}, {mults[1]}>{{{{.*}}}}rshift = array<i64: {shift}>")
print(f"CHECK-SAME: -> tensor<1x3x4x4x!quant.uniform<i8:f32, {{{{[0-9.e-]+}}}}{zp(z_add)}>> loc(\"add\")")
print(f"CHECK: tpu.pool2d {{{{.*}}}}pool_mode = #tpu.pool_mode<max>{{{{.*}}}}-> tensor<1x3x2x2x!quant.uniform<i8:f32, {{{{[0-9.e-]+}}}}{zp(z_add)}>> loc(\"pool\")")
table = []
for qv in range(-128, 128):
    y = 1 / (1 + math.exp(-(qv - z_add) * s_add))
    table.append(max(-128, min(127, round_away(y / s_sig) + z_sig)) & 0xFF)
print(f"CHECK: top.weight \"sig_table\" {{value = dense<\"0x{bytes(table).hex().upper()}\"> : tensor<256xi8>}}")
print(f"CHECK: tpu.active {{{{.*}}}}active_mode = #tpu.active_mode<sigmoid>{{{{.*}}}}{zp(z_sig)}>> loc(\"sig\")")
print("CHECK: tpu.cast {{.*}} -> tensor<1x3x2x2xf32> loc(\"sig_f32\")")
