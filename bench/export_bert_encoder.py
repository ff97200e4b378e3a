"""Exports a BERT-base-shaped encoder (12 layers, hidden 768, 12 heads, FFN 3072, sequence 128) to ONNX
with seeded random weights, for bench-chipviews' transformer-sized deploy. Usage: export_bert_encoder.py OUT.onnx
"""
import sys

import torch

torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, batch_first=True,
                                         dropout=0.0, activation="gelu")
# Training mode with dropout 0: the same function, and torch exports it op by op (its eval fast path is one
# fused kernel ONNX has no operator for).
model = torch.nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False).train()
x = torch.randn(1, 128, 768)
with torch.no_grad():
    torch.onnx.export(model, x, sys.argv[1], input_names=["x"], output_names=["y"], opset_version=14,
                      training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
