"""Weights, input and the NumPy value of every tensor of Inputs/small_cnn.mlir, as small_cnn.npz:
weights under their IR names, the input as `images`, expected tensors as `expect:<tensor name>`."""
import os

import numpy as np

import refops as R


def make(out_dir):
    rng = np.random.default_rng(11)
    f = np.float32
    w = {
        "conv1_w": rng.normal(0, 0.3, (8, 3, 3, 3)).astype(f), "conv1_b": rng.normal(0, 0.1, 8).astype(f),
        "dw_w": rng.normal(0, 0.3, (8, 1, 3, 3)).astype(f),
        "bn_mean": rng.normal(0, 0.1, 8).astype(f), "bn_var": rng.uniform(0.5, 1.5, 8).astype(f),
        "bn_gamma": rng.uniform(0.5, 1.5, 8).astype(f), "bn_beta": rng.normal(0, 0.1, 8).astype(f),
        "fc_w": rng.normal(0, 0.3, (10, 8)).astype(f), "fc_b": rng.normal(0, 0.1, 10).astype(f),
    }
    images = rng.uniform(-1, 1, (1, 3, 16, 16)).astype(f)
    t = {"images": images.astype(np.float64)}
    t["conv1"] = np.maximum(R.conv(images, w["conv1_w"], w["conv1_b"], [1, 1], [1, 1, 1, 1], [1, 1], 1), 0)
    t["pool1"] = R.pool(t["conv1"], "max", [2, 2], [2, 2], [0, 0, 0, 0])
    t["dw_conv_fused"] = R.conv(t["pool1"], w["dw_w"], None, [1, 1], [1, 1, 1, 1], [1, 1], 8)
    c = lambda a: a.astype(np.float64)[None, :, None, None]
    t["bn"] = (t["dw_conv_fused"] - c(w["bn_mean"])) / np.sqrt(c(w["bn_var"]) + 1e-5) * c(w["bn_gamma"]) \
        + c(w["bn_beta"])
    t["relu_0"] = np.maximum(t["bn"], 0)
    t["add"] = t["relu_0"] + t["pool1"]
    t["gap"] = t["add"].mean(axis=(2, 3), keepdims=True)
    t["flatten"] = t["gap"].reshape(1, 8)
    t["fc"] = t["flatten"] @ w["fc_w"].T.astype(np.float64) + w["fc_b"]
    t["prob"] = R.softmax(t["fc"], 1)
    arrays = dict(w)
    arrays["images"] = images
    arrays.update({"expect:" + k: v.astype(f) for k, v in t.items()})
    np.savez(os.path.join(out_dir, "small_cnn.npz"), **arrays)
