"""Exports a BERT-base-shaped encoder (12 layers, hidden 768, 12 heads, FFN 3072, sequence 128) to ONNX
with seeded random weights, for bench-chipviews' transformer-sized deploy and the cost-model figures of
docs/BACKEND.md; smaller shapes for tests (tests/models/transformer_groups_equal.py).
Usage: export_bert_encoder.py OUT.onnx [--layers 12] [--hidden 768] [--heads 12] [--ffn 3072] [--seq 128]
[--input IN.npz] (also write a seeded random input as IN.npz, array "x")
"""
import argparse

import numpy as np
import torch

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--layers", type=int, default=12)
ap.add_argument("--hidden", type=int, default=768)
ap.add_argument("--heads", type=int, default=12)
ap.add_argument("--ffn", type=int, default=3072)
ap.add_argument("--seq", type=int, default=128)
ap.add_argument("--input")
a = ap.parse_args()

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=a.hidden, nhead=a.heads, dim_feedforward=a.ffn, batch_first=True,
                                         dropout=0.0, activation="gelu")
# Training mode with dropout 0: the same function, and torch exports it op by op (its eval fast path is one
# fused kernel ONNX has no operator for).
model = torch.nn.TransformerEncoder(layer, num_layers=a.layers, enable_nested_tensor=False).train()
x = torch.randn(1, a.seq, a.hidden)
with torch.no_grad():
    torch.onnx.export(model, x, a.out, input_names=["x"], output_names=["y"], opset_version=14,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
if a.input:
    np.savez(a.input, x=x.numpy())
