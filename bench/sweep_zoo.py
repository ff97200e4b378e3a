#!/usr/bin/env python3
"""A 20-model zoo for `tpuc sweep`'s figures (docs/SWEEPS.md): torchvision classifiers exported to ONNX at a
small input (randomly initialised, seeded: no download; BatchNorm statistics set on a few batches of the
asset photos so activations have real ranges), and a sweep manifest of them (F16 and INT8 on bm1684x,
calibrated on the asset photos, compared on dog.jpg).

usage: /usr/bin/python3 bench/sweep_zoo.py OUT_DIR [--size 64]
then:  tpuc sweep OUT_DIR/zoo.json --jobs 2 --out OUT_DIR/sweep
"""
import argparse
import json
import os
import sys

import torch
import torchvision

# (name, constructor): small torchvision classifiers, and width/depth variants of them.
M = torchvision.models
ZOO = [
    ("resnet18", lambda: M.resnet18(num_classes=100)),
    ("resnet34", lambda: M.resnet34(num_classes=100)),
    ("resnet50", lambda: M.resnet50(num_classes=100)),
    ("mobilenet_v2", lambda: M.mobilenet_v2(num_classes=100)),
    ("mobilenet_v2_w050", lambda: M.mobilenet_v2(num_classes=100, width_mult=0.5)),
    ("mobilenet_v3_small", lambda: M.mobilenet_v3_small(num_classes=100)),
    ("mobilenet_v3_large", lambda: M.mobilenet_v3_large(num_classes=100)),
    ("shufflenet_v2_x0_5", lambda: M.shufflenet_v2_x0_5(num_classes=100)),
    ("shufflenet_v2_x1_0", lambda: M.shufflenet_v2_x1_0(num_classes=100)),
    ("squeezenet1_0", lambda: M.squeezenet1_0(num_classes=100)),
    ("squeezenet1_1", lambda: M.squeezenet1_1(num_classes=100)),
    ("mnasnet0_5", lambda: M.mnasnet0_5(num_classes=100)),
    ("mnasnet1_0", lambda: M.mnasnet1_0(num_classes=100)),
    ("efficientnet_b0", lambda: M.efficientnet_b0(num_classes=100)),
    ("regnet_x_400mf", lambda: M.regnet_x_400mf(num_classes=100)),
    ("regnet_y_400mf", lambda: M.regnet_y_400mf(num_classes=100)),
    ("densenet121", lambda: M.densenet121(num_classes=100)),
    ("googlenet", lambda: M.googlenet(num_classes=100, aux_logits=False, init_weights=True)),
    ("resnext50_32x4d", lambda: M.resnext50_32x4d(num_classes=100)),
    ("wide_resnet50_2", lambda: M.wide_resnet50_2(num_classes=100)),
]


def photos(assets, size):
    import cv2
    import numpy as np
    images = sorted(os.path.join(assets, "images", f) for f in os.listdir(os.path.join(assets, "images"))
                    if f.endswith((".jpg", ".png")))
    batch = []
    for path in images:
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        img = cv2.resize(img, (size, size), interpolation=cv2.INTER_LINEAR)[:, :, ::-1].astype(np.float32)
        img = (img - np.array([123.675, 116.28, 103.53], np.float32)) * np.array([0.0171, 0.0175, 0.0174], np.float32)
        batch.append(torch.from_numpy(img.transpose(2, 0, 1).copy()))
    return torch.stack(batch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    assets = os.environ.get("TPUC_ASSETS", os.path.expanduser("~/.cache/tpu-studio/assets"))
    os.makedirs(os.path.join(args.out, "models"), exist_ok=True)
    x = photos(assets, args.size)
    models = []
    for i, (name, make) in enumerate(ZOO):
        torch.manual_seed(i)
        model = make()
        model.train()
        with torch.no_grad():  # BatchNorm running statistics from the photos
            for _ in range(3):
                model(x)
        model.eval()
        path = os.path.join(args.out, "models", name + ".onnx")
        torch.onnx.export(model, x[:1], path, input_names=["input"], output_names=["output"], opset_version=13)
        print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB", file=sys.stderr)
        models.append({
            "name": name,
            "transform": {"model_def": os.path.abspath(path), "input_shapes": [[1, 3, args.size, args.size]],
                          "mean": [123.675, 116.28, 103.53], "scale": [0.0171, 0.0175, 0.0174],
                          "pixel_format": "rgb", "test_input": os.path.join(assets, "images", "dog.jpg")},
            "calibrate": {"dataset": os.path.join(assets, "images"), "input_num": 8},
        })
    manifest = {"name": f"zoo20-{args.size}px", "precisions": ["F16", "INT8"], "chips": ["bm1684x"],
                "models": models}
    with open(os.path.join(args.out, "zoo.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(os.path.join(args.out, "zoo.json"))


if __name__ == "__main__":
    main()
