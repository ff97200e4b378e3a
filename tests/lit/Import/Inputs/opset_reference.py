#!/usr/bin/python3
"""Inputs and torchvision / PyTorch / NumPy references for opset-18-19.test:
`opset_reference.py opset19|opset18_forms MODEL.onnx IN.npz REF.npz`. The weights come from the model's
initializers."""
import sys

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper as nh

which, model_path, in_path, ref_path = sys.argv[1:5]
weights = {t.name: nh.to_array(t).copy() for t in onnx.load(model_path).graph.initializer}
rng = np.random.default_rng(5)
T = torch.from_numpy

if which == "opset19":
    x = rng.standard_normal((1, 4, 11, 10)).astype(np.float32)
    # Offsets of up to ~3 pixels: many samples fall between pixels, some beyond the border.
    off = (rng.standard_normal((1, 36, 6, 5)) * 1.5).astype(np.float32)
    mask = rng.uniform(0, 1, (1, 18, 6, 5)).astype(np.float32)
    off2 = (rng.standard_normal((1, 18, 7, 6)) * 2.0).astype(np.float32)
    x2 = rng.standard_normal((2, 3, 9, 9)).astype(np.float32)
    x3 = rng.standard_normal((1, 2, 6, 6)).astype(np.float32)
    np.savez(in_path, x=x, off=off, mask=mask, off2=off2, x2=x2, x3=x3)
    dc = torchvision.ops.deform_conv2d(T(x), T(off), T(weights["w"]), T(weights["b"]), stride=2, padding=1,
                                       mask=T(mask))
    dc2 = torchvision.ops.deform_conv2d(T(x), T(off2), T(weights["w2"]), dilation=2)
    # ONNX's MaxUnpool: the indices count over the window's shape (6 x 6), output_shape pads it at the end.
    mp, mi = torch.nn.functional.max_pool2d(T(x3), 2, 2, return_indices=True)
    up = torch.nn.functional.pad(torch.nn.functional.max_unpool2d(mp, mi, 2, 2), (0, 2, 0, 1))
    mp2, mi2 = torch.nn.functional.max_pool2d(T(x2), 3, 2, 1, return_indices=True)
    up2 = torch.nn.functional.max_unpool2d(torch.relu(mp2), mi2, 3, 2, 1, output_size=(9, 9))
    np.savez(ref_path, dc=dc.numpy(), dc2=dc2.numpy(), up=up.numpy(), up2=up2.numpy())
else:
    x = rng.standard_normal((2, 4, 10, 6)).astype(np.float32)
    np.savez(in_path, x=x)
    groups = x.reshape(2, 2, -1)
    normed = (groups - groups.mean(-1, keepdims=True)) / np.sqrt(groups.var(-1, keepdims=True) + 1e-3)
    scale, bias = np.repeat(weights["gn_scale"], 2), np.repeat(weights["gn_bias"], 2)
    gn = normed.reshape(x.shape) * scale[None, :, None, None] + bias[None, :, None, None]
    np.savez(ref_path, rm=x.mean(axis=(1, 3), keepdims=True), s0=x[:, :, :4], s1=x[:, :, 4:8], s2=x[:, :, 8:],
             pd=np.pad(x, ((0, 0), (0, 0), (0, 0), (1, 2)), mode="edge"), gn=gn.astype(np.float32),
             mish=torch.nn.functional.mish(T(x)).numpy())
