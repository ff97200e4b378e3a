"""Independent NumPy (float64) implementations of the Top ops' ONNX semantics, for the kernel tests.

Written from the ONNX operator specifications with plain loops where that is clearest; nothing here
shares code or formulas' arrangement with the C++ kernels."""
import math
import numpy as np

f64 = np.float64


def conv(x, w, b, strides, pads, dilations, group):
    """ONNX Conv (1-D or 2-D); pads = begins then ends."""
    one_d = x.ndim == 3
    if one_d:
        x, w = x[:, :, None, :], w[:, :, None, :]
        strides, dilations = [1] + list(strides), [1] + list(dilations)
        pads = [0, pads[0], 0, pads[1]]
    x, w = x.astype(f64), w.astype(f64)
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (h + pads[0] + pads[2] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd + pads[1] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    ocg = oc // group
    y = np.zeros((n, oc, oh, ow))
    for g in range(group):
        wg = w[g * ocg:(g + 1) * ocg]
        for i in range(oh):
            for j in range(ow):
                y0, x0 = i * strides[0], j * strides[1]
                patch = xp[:, g * icg:(g + 1) * icg,
                           y0:y0 + dilations[0] * (kh - 1) + 1:dilations[0],
                           x0:x0 + dilations[1] * (kw - 1) + 1:dilations[1]]
                y[:, g * ocg:(g + 1) * ocg, i, j] = np.einsum("nchw,ochw->no", patch, wg)
    if b is not None:
        y += b.astype(f64)[None, :, None, None]
    return y[:, :, 0, :] if one_d else y


def deconv(x, w, b, strides, pads, dilations, output_padding, group):
    """ONNX ConvTranspose: scatter every input cell through the kernel, then crop the pads."""
    one_d = x.ndim == 3
    if one_d:
        x, w = x[:, :, None, :], w[:, :, None, :]
        strides, dilations = [1] + list(strides), [1] + list(dilations)
        output_padding = [0] + list(output_padding)
        pads = [0, pads[0], 0, pads[1]]
    x, w = x.astype(f64), w.astype(f64)
    n, c, h, wd = x.shape
    _, ocg, kh, kw = w.shape
    icg = c // group
    fh = (h - 1) * strides[0] + dilations[0] * (kh - 1) + 1 + output_padding[0]
    fw = (wd - 1) * strides[1] + dilations[1] * (kw - 1) + 1 + output_padding[1]
    full = np.zeros((n, ocg * group, fh, fw))
    for g in range(group):
        for ic in range(g * icg, (g + 1) * icg):
            for iy in range(h):
                for ix in range(wd):
                    for ky in range(kh):
                        for kx in range(kw):
                            full[:, g * ocg:(g + 1) * ocg, iy * strides[0] + ky * dilations[0],
                                 ix * strides[1] + kx * dilations[1]] += x[:, ic, iy, ix, None] * w[ic, :, ky, kx]
    y = full[:, :, pads[0]:fh - pads[2], pads[1]:fw - pads[3]]
    if b is not None:
        y = y + b.astype(f64)[None, :, None, None]
    return y[:, :, 0, :] if one_d else y


def pool_out_size(size, k, s, pb, pe, ceil):
    """Output length of a pooling axis, ONNX rule: a ceil-mode window must start inside input + begin pad."""
    if ceil:
        out = -(-(size + pb + pe - k) // s) + 1
        if (out - 1) * s >= size + pb:
            out -= 1
        return out
    return (size + pb + pe - k) // s + 1


def pool(x, kind, kernel, strides, pads, ceil=False, include_pad=False):
    """Max / average pooling of 1-D or 2-D input by explicit windows over a padded copy."""
    one_d = x.ndim == 3
    if one_d:
        x = x[:, :, None, :]
        kernel, strides, pads = [1] + list(kernel), [1] + list(strides), [0, pads[0], 0, pads[1]]
    x = x.astype(f64)
    n, c, h, w = x.shape
    oh = pool_out_size(h, kernel[0], strides[0], pads[0], pads[2], ceil)
    ow = pool_out_size(w, kernel[1], strides[1], pads[1], pads[3], ceil)
    fill = -np.inf if kind == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])), constant_values=fill)
    real = np.pad(np.ones((h, w)), ((pads[0], pads[2]), (pads[1], pads[3])))
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            ys, xs = i * strides[0], j * strides[1]
            win = xp[:, :, ys:ys + kernel[0], xs:xs + kernel[1]]  # numpy clips the overhang
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                cells = win.shape[2] * win.shape[3] if include_pad else \
                    real[ys:ys + kernel[0], xs:xs + kernel[1]].sum()
                y[:, :, i, j] = win.sum(axis=(2, 3)) / cells
    return y[:, :, 0, :] if one_d else y


def adaptive_avg(x, out_size):
    x = x.astype(f64)
    h, w = x.shape[2], x.shape[3]
    oh, ow = out_size
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            y0, y1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            x0, x1 = (j * w) // ow, -(-((j + 1) * w) // ow)
            y[:, :, i, j] = x[:, :, y0:y1, x0:x1].mean(axis=(2, 3))
    return y


def softmax(x, axis, log=False):
    x = x.astype(f64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    s = e / e.sum(axis=axis, keepdims=True)
    return np.log(s) if log else s


def layernorm(x, axis, w, b, eps):
    x = x.astype(f64)
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    norm_shape = x.shape[axis:]
    if w is not None:
        y = y * w.astype(f64).reshape(norm_shape)
    if b is not None:
        y = y + b.astype(f64).reshape(norm_shape)
    return y


def groupnorm(x, groups, w, b, eps):
    x = x.astype(f64)
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    return y * w.astype(f64).reshape(bshape) + b.astype(f64).reshape(bshape)


def resize_coord(o, in_size, out_size, mode):
    """ONNX coordinate_transformation_mode for sizes given (scale = out / in)."""
    scale = out_size / in_size
    if mode == "half_pixel":
        return (o + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (o + 0.5) / scale - 0.5 if out_size > 1 else 0.0
    if mode == "align_corners":
        return 0.0 if out_size == 1 else o * (in_size - 1) / (out_size - 1)
    if mode == "tf_half_pixel_for_nn":
        return (o + 0.5) / scale
    return o / scale  # asymmetric


def nearest_index(c, rounding):
    """ONNX nearest_mode applied to a source coordinate."""
    f = math.floor(c)
    if rounding == "floor":
        return f
    if rounding == "ceil":
        return math.ceil(c)
    if c - f == 0.5:
        return f if rounding == "round_prefer_floor" else f + 1
    return int(round(c))


def resize(x, out_sizes, mode, coord, nearest_mode=None):
    """ONNX Resize over the trailing axes: nearest (by `nearest_mode`; by default floor for asymmetric,
    round_prefer_floor otherwise) or (bi)linear with the source coordinate clamped to the input."""
    if nearest_mode is None:
        nearest_mode = "floor" if coord == "asymmetric" else "round_prefer_floor"
    x = x.astype(f64)
    lead = x.shape[:2]
    in_sizes = x.shape[2:]
    y = np.zeros(lead + tuple(out_sizes))
    for out_index in np.ndindex(*out_sizes):
        coords = [resize_coord(o, i, s, coord) for o, i, s in zip(out_index, in_sizes, out_sizes)]
        if mode == "nearest":
            src = []
            for cval, size in zip(coords, in_sizes):
                k = nearest_index(cval, nearest_mode)
                src.append(min(max(k, 0), size - 1))
            y[(slice(None), slice(None)) + tuple(out_index)] = x[(slice(None), slice(None)) + tuple(src)]
            continue
        acc = 0.0
        corners = []
        for cval, size in zip(coords, in_sizes):
            cval = min(max(cval, 0.0), size - 1)
            lo = int(math.floor(cval))
            hi = min(lo + 1, size - 1)
            corners.append(((lo, 1.0 - (cval - lo)), (hi, cval - lo)))
        for choice in np.ndindex(*([2] * len(in_sizes))):
            weight = 1.0
            idx = []
            for axis, pick in enumerate(choice):
                k, wgt = corners[axis][pick]
                weight *= wgt
                idx.append(k)
            acc = acc + weight * x[(slice(None), slice(None)) + tuple(idx)]
        y[(slice(None), slice(None)) + tuple(out_index)] = acc
    return y


def depth2space(x, bh, bw, mode, inverse):
    n, c, h, w = x.shape
    if not inverse:
        oc = c // (bh * bw)
        if mode == "dcr":
            t = x.reshape(n, bh, bw, oc, h, w).transpose(0, 3, 4, 1, 5, 2)
        else:
            t = x.reshape(n, oc, bh, bw, h, w).transpose(0, 1, 4, 2, 5, 3)
        return t.reshape(n, oc, h * bh, w * bw)
    t = x.reshape(n, c, h // bh, bh, w // bw, bw)
    if mode == "dcr":
        t = t.transpose(0, 3, 5, 1, 2, 4)
    else:
        t = t.transpose(0, 1, 3, 5, 2, 4)
    return t.reshape(n, c * bh * bw, h // bh, w // bw)


def rope(x, cos, sin, mode):
    x = x.astype(f64)
    b, l, h, d = x.shape
    cos = cos.astype(f64).reshape(-1, l, 1, d)
    sin = sin.astype(f64).reshape(-1, l, 1, d)
    if mode == "half":
        rot = np.concatenate([-x[..., d // 2:], x[..., :d // 2]], axis=-1)
    else:
        rot = np.empty_like(x)
        rot[..., 0::2] = -x[..., 1::2]
        rot[..., 1::2] = x[..., 0::2]
    return x * cos + rot * sin


def attention(q, k, v, mask, scale):
    q, k, v = q.astype(f64), k.astype(f64), v.astype(f64)
    b, lq, hq, d = q.shape
    hkv = k.shape[2]
    k = np.repeat(k, hq // hkv, axis=2)
    v = np.repeat(v, hq // hkv, axis=2)
    s = np.einsum("bqhd,bkhd->bhqk", q, k) * scale
    if mask is not None:
        s = s + mask.astype(f64)
    p = softmax(s, -1)
    return np.einsum("bhqk,bkhd->bqhd", p, v)


def dequant(q, scale, zp, bits, group, sym, k):
    """A16MatMul weight: unpack int4 (low nibble first; signed when sym), then (q - zp) * scale."""
    q = q.astype(np.int64)
    if bits == 4:
        vals = np.zeros((q.shape[0], k), np.int64)
        for j in range(k):
            byte = q[:, j // 2] & 0xFF
            nib = (byte & 0xF) if j % 2 == 0 else (byte >> 4)
            vals[:, j] = np.where(nib >= 8, nib - 16, nib) if sym else nib
        q = vals
    s = np.repeat(scale.astype(f64), group, axis=1)
    z = np.zeros_like(s) if zp is None else np.repeat(zp.astype(f64), group, axis=1)
    return (q - z) * s


def bf16_round(x):
    """float32 -> bfloat16 -> float32, round to nearest even."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def erf(x):
    return np.vectorize(math.erf)(x.astype(f64))
