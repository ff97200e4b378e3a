"""Exports two sequence models from PyTorch for sequence_models_equal.py, with PyTorch's own output for
one input as the independent reference:

- speech: an acoustic model in the style of DeepSpeech/wake-word networks: a Conv1d front end over 40 mel
  features, a two-layer bidirectional nn.LSTM, a nn.GRU and a per-frame classifier with log-softmax
  (ONNX LSTM/GRU nodes with initial states, both directions, Y and Y_h).
- transformer: two pre-norm encoder blocks (multi-head attention, GELU MLP) written out, exported at opset 14
  so LayerNorm and GELU arrive spelled out (reduce/sub/pow/sqrt/div and erf chains) for the fusions.

usage: export_sequence_models.py OUTDIR [--frames 24]
writes OUTDIR/{speech,transformer}.onnx, OUTDIR/{speech,transformer}_in.npz (input named as the model's),
OUTDIR/{speech,transformer}_torch.npz (the output by its ONNX name)."""
import argparse
import math
import os

import numpy as np
import torch
from torch import nn


class Speech(nn.Module):
    def __init__(self, mels=40, hidden=48, classes=29):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(mels, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU())
        self.lstm = nn.LSTM(64, hidden, num_layers=2, bidirectional=True, batch_first=True)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, features):  # [1, frames, mels]
        x = self.front(features.transpose(1, 2)).transpose(1, 2)
        x, _ = self.lstm(x)
        x, _ = self.gru(x)
        return torch.log_softmax(self.head(x), dim=-1)


class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.norm2(x))


class Transformer(nn.Module):
    def __init__(self, vocab_dim=32, dim=64, heads=4, depth=2, classes=10):
        super().__init__()
        self.embed = nn.Linear(vocab_dim, dim)
        self.blocks = nn.Sequential(*[Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):  # [1, n, vocab_dim]
        return self.head(self.norm(self.blocks(self.embed(tokens))).mean(dim=1))


def export(model, x, name, out, opset):
    model.eval()
    # Non-trivial normalization statistics (a fresh BatchNorm is the identity).
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
        if isinstance(m, nn.LayerNorm):
            m.weight.data.uniform_(0.8, 1.2)
            m.bias.data.uniform_(-0.1, 0.1)
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, x, path, input_names=["input"], output_names=["output"], opset_version=opset)
    with torch.no_grad():
        y = model(x).numpy()
    np.savez(os.path.join(out, name + "_in.npz"), input=x.numpy())
    np.savez(os.path.join(out, name + "_torch.npz"), output=y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--frames", type=int, default=24)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    export(Speech(), torch.randn(1, a.frames, 40), "speech", a.out, 13)
    export(Transformer(), torch.randn(1, 16, 32), "transformer", a.out, 14)


if __name__ == "__main__":
    main()
