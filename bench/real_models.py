#!/usr/bin/python3
"""Models from outside the test set through transform and deploy: torchvision architectures the compiler's
tests do not use (ConvNeXt, Swin, MaxViT, EfficientNetV2, LR-ASPP and DeepLabV3 segmentation, R3D video,
ViT, RAFT optical flow), exported at opset 17 with random seeded weights and run as
`tpuc transform` (random input, Top vs ONNX Runtime) -> [`tpuc calibrate` on that input] -> `tpuc deploy
--model` on bm1684x, whose model file must be EQUAL to the Tpu simulation. Prints one row per model.

usage: real_models.py TPUC WORKDIR [--models a,b] [--modes F16,INT8]"""
import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torchvision

M = torchvision.models
MODELS = {
    "convnext_tiny": (lambda: M.convnext_tiny(num_classes=10), [(1, 3, 64, 64)]),
    "swin_t": (lambda: M.swin_t(num_classes=10), [(1, 3, 224, 224)]),
    "maxvit_t": (lambda: M.maxvit_t(num_classes=10), [(1, 3, 224, 224)]),
    "efficientnet_v2_s": (lambda: M.efficientnet_v2_s(num_classes=10), [(1, 3, 64, 64)]),
    "lraspp": (lambda: M.segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                 num_classes=5), [(1, 3, 128, 128)]),
    "deeplabv3_mbv3": (lambda: M.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None,
                                                                          num_classes=5), [(1, 3, 128, 128)]),
    "r3d_18": (lambda: M.video.r3d_18(num_classes=10), [(1, 3, 8, 56, 56)]),
    "vit_b_16": (lambda: M.vit_b_16(num_classes=10), [(1, 3, 224, 224)]),
    "raft_small": (lambda: M.optical_flow.raft_small(weights=None), [(1, 3, 128, 128), (1, 3, 128, 128)]),
}


class Wrapped(torch.nn.Module):
    """Segmentation models return a dict, RAFT a list of flow refinements (two updates here)."""

    def __init__(self, name, model):
        super().__init__()
        self.name, self.model = name, model

    def forward(self, *x):
        if self.name == "raft_small":
            return self.model(*x, num_flow_updates=2)[-1]
        y = self.model(*x)
        return y["out"] if isinstance(y, dict) else y


def export(name, path):
    torch.manual_seed(0)
    make, shapes = MODELS[name]
    model = Wrapped(name, make().eval())
    torch.onnx.export(model, tuple(torch.randn(*s) for s in shapes), path, opset_version=17)
    return shapes


def run(args, cwd):
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return done.returncode, done.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tpuc")
    ap.add_argument("work")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--modes", default="F16,INT8")
    a = ap.parse_args()
    failures = []
    print(f"{'model':18} {'mode':5} {'tensors':>8} {'sim ms':>8} {'wall s':>7}  result")
    for name in a.models.split(","):
        work = os.path.join(a.work, name)
        os.makedirs(work, exist_ok=True)
        model_path = os.path.join(work, name + ".onnx")
        if not os.path.exists(model_path):
            export(name, model_path)
        graph = onnx.load(model_path).graph
        inits = {i.name for i in graph.initializer}
        rng = np.random.default_rng(0)
        feeds = {i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
                 for i in graph.input if i.name not in inits}
        np.savez(os.path.join(work, "in.npz"), **feeds)
        os.makedirs(os.path.join(work, "ds"), exist_ok=True)
        np.savez(os.path.join(work, "ds", "in.npz"), **feeds)
        rc, out = run([a.tpuc, "transform", "--model_name", name, "--model_def", model_path, "--test_input", "in.npz",
                       "--test_result", "top.npz", "--mlir", name + ".mlir"], work)
        if rc != 0:
            failures.append(f"{name}: transform exit {rc}: {out.strip().splitlines()[-1]}")
            continue
        for mode in a.modes.split(","):
            start = time.time()
            cali = []
            if mode == "INT8":
                rc, out = run([a.tpuc, "calibrate", name + ".mlir", "--dataset", "ds", "-o", "cali"], work)
                if rc != 0:
                    failures.append(f"{name} {mode}: calibrate exit {rc}: {out.strip().splitlines()[-1]}")
                    continue
                cali = ["--calibration_table", "cali"]
            rc, out = run([a.tpuc, "deploy", "--mlir", name + ".mlir", "--quantize", mode, *cali, "--chip", "bm1684x",
                           "--test_input", "in.npz", "--test_reference", "top.npz", "--tolerance", "0.5,0.1",
                           "--model", f"{name}_{mode}.tpum"], work)
            summary = re.search(r"model file vs Tpu simulation: (\d+) of (\d+) tensors EQUAL, (\d+) failing", out)
            latency = re.search(r"simulated ([0-9.]+) ms", out)
            ok = summary and summary.group(3) == "0" and rc in (0, 1)
            tensors = f"{summary.group(1)}/{summary.group(2)}" if summary else "-"
            print(f"{name:18} {mode:5} {tensors:>8} {latency.group(1) if latency else '-':>8} "
                  f"{time.time() - start:7.1f}  {'EQUAL' if ok else 'FAILED'}", flush=True)
            if not ok:
                failures.append(f"{name} {mode}: deploy exit {rc}: {out.strip().splitlines()[-1] if out else ''}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
