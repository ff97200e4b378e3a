#!/usr/bin/python3
"""A Llama-style attention block with grouped KV heads (8 query heads, 2 KV heads, HuggingFace's repeat_kv:
k[:, :, None].expand(...).reshape(...)) and a causal mask, exported by PyTorch at opset 14, with PyTorch's
output as the reference: `make_gqa_attention.py OUTDIR` writes gqa.onnx, gqa_in.npz, gqa_ref.npz."""
import sys

import numpy as np
import torch
from torch import nn
torch.manual_seed(0)
class GQA(nn.Module):
    def __init__(s, d=64, hq=8, hkv=2):
        super().__init__(); s.hq, s.hkv, s.dh = hq, hkv, d // hq
        s.q = nn.Linear(d, hq * s.dh); s.k = nn.Linear(d, hkv * s.dh); s.v = nn.Linear(d, hkv * s.dh); s.o = nn.Linear(d, d)
    def forward(s, x, mask):
        b, l, _ = x.shape
        q = s.q(x).view(b, l, s.hq, s.dh).transpose(1, 2)
        k = s.k(x).view(b, l, s.hkv, s.dh).transpose(1, 2)
        v = s.v(x).view(b, l, s.hkv, s.dh).transpose(1, 2)
        n = s.hq // s.hkv
        k = k[:, :, None].expand(b, s.hkv, n, l, s.dh).reshape(b, s.hq, l, s.dh)
        v = v[:, :, None].expand(b, s.hkv, n, l, s.dh).reshape(b, s.hq, l, s.dh)
        a = torch.softmax(q @ k.transpose(2, 3) / s.dh ** 0.5 + mask, dim=-1) @ v
        return s.o(a.transpose(1, 2).reshape(b, l, -1))
out = sys.argv[1]
m = GQA().eval(); x = torch.randn(1, 16, 64); mask = torch.triu(torch.full((16, 16), -1e4), 1)
with torch.no_grad(): y = m(x, mask)
torch.onnx.export(m, (x, mask), f"{out}/gqa.onnx", input_names=["x", "mask"], output_names=["y"], opset_version=14)
np.savez(f"{out}/gqa_in.npz", x=x.numpy(), mask=mask.numpy()); np.savez(f"{out}/gqa_ref.npz", y=y.numpy())
