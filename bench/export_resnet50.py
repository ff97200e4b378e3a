"""Exports torchvision's resnet50 to ONNX with the test models' re-randomized weights (no pretrained weights
exist offline; the default init gives degenerate activations), for bench-calibrate's ResNet-50-sized run.
Usage: /usr/bin/python3 export_resnet50.py OUT.onnx
"""
import pathlib
import sys

import torch
import torchvision

# One re-randomization for every exported test model: the asset script's.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "scripts" / "assets"))
from export_torch_models import rerandomize  # noqa: E402

torch.manual_seed(0)
model = rerandomize(torchvision.models.resnet50(), 150)
example = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(6))
with torch.no_grad():
    output = model(example)
    torch.onnx.export(model, (example,), sys.argv[1], opset_version=14, input_names=["input"],
                      output_names=["output"], do_constant_folding=True)
print(f"exported {sys.argv[1]} (output std {output.float().std().item():.3f})")
