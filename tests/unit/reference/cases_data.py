"""Reference-kernel test cases for data movement, reductions, resize, selection and attention, each
checked against NumPy or refops.py."""
import numpy as np

import refops as R
from casebuilder import F32, Case, case, fattr, iarr, rand, rng, ttype, unary_case


@case
def layout():
    cases = []
    x = rand(2, 1, 3, 1)
    for name, op, attrs, ref in [("reshape", "reshape", "", x.reshape(3, 2)),("squeeze", "squeeze", f"axes = {iarr([1, -1])}", x.reshape(2, 3)),
                                 ("unsqueeze", "unsqueeze", f"axes = {iarr([0, -1])}", x[None, ..., None])]:
        c = Case(name)
        c.ret(c.op(op, [c.input(x)], attrs, [ttype(ref.shape)]), ref)
        cases.append(c)
    x = rand(2, 3, 4, 5)
    for i, order in enumerate([[0, 2, 3, 1], [3, 1, 0, 2], [0, 1, 3, 2], [1, 0, 2, 3]]):
        ref = x.transpose(order)
        c = Case(f"permute_{i}")
        c.ret(c.op("permute", [c.input(x)], f"order = {iarr(order)}", [ttype(ref.shape)]), ref)
        cases.append(c)
    parts = [rand(2, 1, 4), rand(2, 3, 4), rand(2, 2, 4)]
    ref = np.maximum(np.concatenate(parts, axis=1), 0)
    c = Case("concat_relu")
    c.ret(c.op("concat", [c.input(p) for p in parts], "axis = 1 : i64, do_relu = true", [ttype(ref.shape)]),
          ref)
    cases.append(c)
    x = rand(2, 6, 3)
    c = Case("split")
    outs = c.op("split", [c.input(x)], f"axis = -2 : i64, split_size = {iarr([1, 3, 2])}",
                [ttype((2, 1, 3)), ttype((2, 3, 3)), ttype((2, 2, 3))])
    for o, ref in zip(outs, np.split(x, [1, 4], axis=1)):
        c.ret(o, ref)
    cases.append(c)
    return cases


def take_slice(x, offsets, steps, ends):
    """Top slice semantics (end -1 with a negative step runs to index 0) via explicit index lists."""
    for axis, (o, s, e) in enumerate(zip(offsets, steps, ends)):
        x = np.take(x, np.arange(o, e, s), axis=axis)
    return x


@case
def selection():
    cases = []
    x = rand(1, 8, 6)
    for i, (off, steps, ends) in enumerate([([0, 1, 0], [1, 2, 1], [1, 7, 6]),
                                            ([0, 7, 5], [1, -2, -1], [1, -1, -1]),
                                            ([0, 6, 1], [1, -3, 2], [1, 0, 6]),
                                            ([0, 2, 3], [1, 1, 1], [1, 2, 3])]):
        ref = take_slice(x, off, steps, ends)
        c = Case(f"slice_{i}")
        c.ret(c.op("slice", [c.input(x)], f"offset = {iarr(off)}, steps = {iarr(steps)}, ends = {iarr(ends)}",
                   [ttype(ref.shape)]), ref)
        cases.append(c)
    table = rand(5, 4, 3)
    idx = np.array([[0, -1, 2], [-5, 4, 1]], np.int64)
    for axis, ids in [(0, idx), (1, np.array([3, -4, -1], np.int64))]:
        ref = np.take(table, ids, axis=axis)
        c = Case(f"gather_axis{axis}")
        c.ret(c.op("gather", [c.input(table), c.weight(ids, "i64")], f"axis = {axis} : i64",
                   [ttype(ref.shape)]), ref)
        cases.append(c)
    data = rand(3, 4, 5)
    ids = np.array([[[0, -1, 2, 3, 1]], [[3, 2, -4, 0, 0]], [[1, 1, 1, -2, 3]]], np.int64)
    c = Case("gather_elements_axis1")
    c.ret(c.op("gather_elements", [c.input(data), c.weight(ids, "i64")], "axis = 1 : i64",
               [ttype(ids.shape)]), np.take_along_axis(data, np.where(ids < 0, ids + 4, ids), axis=1))
    cases.append(c)
    for name, exclusive, reverse in [("cumsum", False, False), ("cumsum_exclusive_reverse", True, True)]:
        d = data.astype(np.float64)
        src = d[:, ::-1] if reverse else d
        ref = np.cumsum(src, axis=1) - (src if exclusive else 0)
        ref = ref[:, ::-1] if reverse else ref
        c = Case(name)
        c.ret(c.op("cumsum", [c.input(data)],
                   f"axis = 1 : i64, exclusive = {str(exclusive).lower()}, reverse = {str(reverse).lower()}",
                   [ttype(data.shape)]), ref)
        cases.append(c)
    x = rand(2, 3, 4, 5)
    for name, mode, pads in [("pad_constant", "constant", [0, 1, 2, 0, 1, 0, 1, 3]),
                             ("pad_reflect", "reflect", [0, 0, 2, 3, 0, 0, 3, 1]),
                             ("pad_edge", "edge", [1, 0, 2, 3, 0, 2, 1, 2])]:
        width = list(zip(pads[:4], pads[4:]))
        ref = np.pad(x, width, mode=mode, constant_values=1.5) if mode == "constant" else np.pad(x, width, mode)
        c = Case(name)
        c.ret(c.op("pad", [c.input(x)], f"paddings = {iarr(pads)}, val = {fattr(1.5)}, "
                   f"pad_mode = #top.pad_mode<{mode}>", [ttype(ref.shape)]), ref)
        cases.append(c)
    ref = np.pad(x, [(0, 0), (0, 0), (1, 0), (0, 0)])[:, :, :, 2:4]
    c = Case("pad_negative_crops")
    c.ret(c.op("pad", [c.input(x)], f"paddings = {iarr([0, 0, 1, -2, 0, 0, 0, -1])}", [ttype(ref.shape)]), ref)
    cases.append(c)
    v = np.array([[3, 1, 3, 2, 1, 3], [0, 0, 5, 5, -1, 0]], F32)
    v3 = np.stack([v, v[:, ::-1], -v], axis=2)  # [2, 6, 3]
    for name, largest, k in [("topk_largest_ties", True, 4), ("topk_smallest_ties", False, 3)]:
        key = -v3 if largest else v3
        order = np.argsort(key, axis=1, kind="stable")[:, :k, :]
        vals = np.take_along_axis(v3, order, axis=1)
        c = Case(name)
        outs = c.op("topk", [c.input(v3)], f"axis = 1 : i64, k = {k} : i64, largest = {'true' if largest else 'false'}",
                    [ttype(vals.shape), ttype(vals.shape, "i64")])
        c.ret(outs[0], vals)
        c.ret(outs[1], order)
        cases.append(c)
    c = Case("arange")
    c.ret(c.op("arange", [], f"start = {fattr(-1.0)}, limit = {fattr(2.0)}, delta = {fattr(0.5)}",
               [ttype((6,))]), np.arange(-1.0, 2.0, 0.5))
    cases.append(c)
    return cases


@case
def reductions():
    x = rand(2, 3, 4, 5, lo=0.5, hi=1.5) * np.where(rand(2, 3, 4, 5) < 0, -1, 1).astype(F32)
    d = x.astype(np.float64)
    specs = [("mean", (2, 3), True, d.mean(axis=(2, 3), keepdims=True)),
             ("sum", (1,), False, d.sum(axis=1)), ("max", (0, 2), True, d.max(axis=(0, 2), keepdims=True)),
             ("min", (-1,), False, d.min(axis=-1)), ("prod", (1, 3), False, d.prod(axis=(1, 3))),
             ("l1", (0, 1, 2, 3), False, np.abs(d).sum()), ("l2", (1, 2), True,
                                                            np.sqrt((d ** 2).sum(axis=(1, 2), keepdims=True))),
             ("sum", (0, 3), False, d.sum(axis=(0, 3)))]
    cases = []
    for i, (mode, axes, keep, ref) in enumerate(specs):
        ref = np.asarray(ref)
        c = Case(f"reduce_{i}_{mode}", atol=1e-4)
        c.ret(c.op("reduce", [c.input(x)], f"axes = {iarr(axes)}, keepdims = {'true' if keep else 'false'}, "
                   f"mode = #top.reduce_mode<{mode}>", [ttype(ref.shape)]), ref)
        cases.append(c)
    return cases


@case
def resizes():
    specs = [("nearest", "asymmetric", (1, 2, 3, 3), (4, 5)),      # floor: 0.75 -> 0
             ("nearest", "half_pixel", (1, 2, 4, 4), (2, 2)),      # x.5 -> round_prefer_floor
             ("nearest", "half_pixel", (1, 2, 3, 5), (7, 3)),
             ("nearest", "align_corners", (1, 1, 4, 3), (6, 5)),
             ("nearest", "pytorch_half_pixel", (1, 1, 5, 4), (3, 1)),
             ("linear", "half_pixel", (1, 2, 4, 4), (7, 8)),
             ("linear", "half_pixel", (1, 2, 6, 5), (3, 2)),
             ("linear", "pytorch_half_pixel", (1, 2, 4, 3), (6, 1)),
             ("linear", "align_corners", (2, 1, 5, 3), (3, 5)),
             ("linear", "asymmetric", (1, 2, 3, 4), (5, 6)),
             ("linear", "half_pixel", (1, 3, 6), (10,)),
             ("nearest", "asymmetric", (1, 3, 4), (8,))]
    cases = []
    for i, (mode, coord, shape, size) in enumerate(specs):
        x = rand(*shape)
        ref = R.resize(x, size, mode, coord)
        c = Case(f"interp_{i}_{mode}_{coord}")
        c.ret(c.op("interp", [c.input(x)], f"target_shape = {iarr(size)}, mode = #top.interp_mode<{mode}>, "
                   f"coord_mode = #top.coord_mode<{coord}>", [ttype(ref.shape)]), ref)
        cases.append(c)
    for i, (coord, rounding, shape, size) in enumerate([("half_pixel", "ceil", (1, 2, 4, 4), (8, 6)),
                                                        ("align_corners", "floor", (1, 1, 3, 5), (7, 9)),
                                                        ("asymmetric", "round_prefer_ceil", (1, 2, 4, 4), (8, 7)),
                                                        ("half_pixel", "round_prefer_ceil", (1, 1, 4, 4), (2, 2)),
                                                        ("tf_half_pixel_for_nn", "round_prefer_floor",
                                                         (1, 2, 6, 6), (4, 3))]):
        x = rand(*shape)
        ref = R.resize(x, size, "nearest", coord, rounding)
        c = Case(f"interp_nearest_{i}_{rounding}_{coord}")
        c.ret(c.op("interp", [c.input(x)], f"target_shape = {iarr(size)}, mode = #top.interp_mode<nearest>, "
                   f"coord_mode = #top.coord_mode<{coord}>, nearest_mode = #top.nearest_mode<{rounding}>",
                   [ttype(ref.shape)]), ref)
        cases.append(c)
    for name, mode, inverse, shape in [("depth2space_dcr", "dcr", False, (2, 12, 2, 3)),
                                       ("depth2space_crd", "crd", False, (1, 12, 3, 2)),
                                       ("space2depth_dcr", "dcr", True, (2, 3, 4, 6)),
                                       ("space2depth_crd", "crd", True, (1, 2, 4, 6))]:
        x = rand(*shape)
        ref = R.depth2space(x, 2, 3, mode, inverse)
        c = Case(name)
        c.ret(c.op("depth2space", [c.input(x)], f"block_h = 2 : i64, block_w = 3 : i64, "
                   f"d2s_mode = #top.d2s_mode<{mode}>, is_inversed = {'true' if inverse else 'false'}",
                   [ttype(ref.shape)]), ref)
        cases.append(c)
    return cases


@case
def attention():
    cases = []
    for name, mode, table in [("rope_half", "half", (5, 8)), ("rope_interleaved", "interleaved", (2, 5, 8))]:
        x = rand(2, 5, 3, 8)
        ang = rand(*table, lo=-3, hi=3)
        cos, sin = np.cos(ang).astype(F32), np.sin(ang).astype(F32)
        c = Case(name)
        c.ret(c.op("rope", [c.input(x), c.weight(cos), c.weight(sin)], f"rope_mode = #top.rope_mode<{mode}>",
                   [ttype(x.shape)]), R.rope(x, cos, sin, mode))
        cases.append(c)
    causal = np.triu(np.full((6, 7), -np.inf, F32), k=2)[None, None]
    for name, (b, lq, lk, hq, hkv, dim), mask in [
            ("attention_gqa_causal_mask", (1, 6, 7, 4, 2, 8), causal),
            ("attention_batch_mask", (2, 3, 5, 2, 1, 4), rand(2, 1, 3, 5, lo=-2, hi=0)),
            ("attention_rank2_mask", (2, 4, 4, 3, 3, 8), rand(4, 4, lo=-1, hi=0)),
            ("attention_no_mask_mha", (1, 1, 9, 8, 8, 16), None)]:
        q, k, v = rand(b, lq, hq, dim), rand(b, lk, hkv, dim), rand(b, lk, hkv, dim)
        scale = 1.0 / np.sqrt(dim)
        c = Case(name)
        ins = [c.input(q), c.input(k), c.input(v), c.none() if mask is None else c.input(mask)]
        c.ret(c.op("attention", ins, f"scale = {fattr(scale)}", [ttype(q.shape)]),
              R.attention(q, k, v, mask, scale))
        cases.append(c)
    return cases
