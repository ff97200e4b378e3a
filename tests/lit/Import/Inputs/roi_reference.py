#!/usr/bin/python3
"""Inputs and torchvision / PyTorch references for roi-pools.test: `roi_reference.py IN.npz REF.npz`."""
import sys

import numpy as np
import torch
import torchvision

rng = np.random.default_rng(3)
x = rng.standard_normal((2, 3, 12, 12)).astype(np.float32)
# Boxes in input pixels before the 0.5 scale: inside, overhanging the border, tiny, and the whole image.
rois = np.array([[2, 3, 15, 20], [-4, 6, 30, 26], [10.5, 10, 11, 11.5], [0, 0, 24, 24]], np.float32)
idx = np.array([0, 1, 1, 0], np.int64)
boxes = np.array([[1, 0, 0, 10, 14], [0, 4.6, 3, 22, 9], [1, 20, 20, 40, 30]], np.float32)
np.savez(sys.argv[1], x=x, rois=rois, idx=idx, boxes=boxes)

t = torch.from_numpy(x)
with_batch = torch.from_numpy(np.concatenate([idx[:, None].astype(np.float32), rois], axis=1))
ra = torchvision.ops.roi_align(t, with_batch, (3, 4), spatial_scale=0.5, sampling_ratio=-1, aligned=True)
rp = torchvision.ops.roi_pool(t, torch.from_numpy(boxes), (2, 3), spatial_scale=0.5)
mp, mi = torch.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True)
# ONNX counts the indices over the whole N x C x H x W input, PyTorch within each plane.
plane = torch.arange(2 * 3).reshape(2, 3, 1, 1) * 12 * 12
np.savez(sys.argv[2], ra=ra.numpy(), rp=rp.numpy(), mp=mp.numpy(), mi=(mi + plane).numpy())
