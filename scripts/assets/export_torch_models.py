"""Exports the torchvision and transformer test models to ONNX with re-randomized weights.

torchvision's default init gives degenerate outputs (mobilenet ~1e-9), useless for accuracy work, so every
BatchNorm, Conv and Linear is re-initialized with seeded statistics that keep activations at std 0.1-1.
Next to each model.onnx goes <name>_ref.npz: a seeded input and PyTorch's own output, an independent
reference that does not need ONNX Runtime. Usage: export_torch_models.py OUT_DIR
"""
import math
import pathlib
import sys

import numpy as np
import torch
import torch.nn as nn
import torchvision


def rerandomize(model, seed):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (nn.BatchNorm2d, nn.BatchNorm1d)):
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
                m.running_mean.copy_(torch.randn(m.running_mean.shape, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(m.running_var.shape, generator=gen) + 0.5)
            elif isinstance(m, (nn.Conv2d, nn.Linear)):
                fan_in = m.weight[0].numel()
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen) / math.sqrt(fan_in))
                if m.bias is not None:
                    m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
            elif isinstance(m, nn.LayerNorm):
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.1)
            elif isinstance(m, nn.Embedding):
                m.weight.copy_(torch.randn(m.weight.shape, generator=gen))
    return model.eval()


class TinyGPT(nn.Module):
    """Embedding, causal self-attention with softmax, GELU MLP, layer norms: a GPT-style decoder."""

    def __init__(self, vocab=256, dim=64, heads=4, layers=2, seq=16):
        super().__init__()
        self.heads = heads
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(seq, dim)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict(dict(
                ln1=nn.LayerNorm(dim), qkv=nn.Linear(dim, 3 * dim), proj=nn.Linear(dim, dim),
                ln2=nn.LayerNorm(dim), fc1=nn.Linear(dim, 4 * dim), fc2=nn.Linear(4 * dim, dim))))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)
        self.register_buffer("mask", torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1))

    def forward(self, ids):
        b, t = ids.shape
        x = self.embed(ids) + self.pos(torch.arange(t))
        for blk in self.blocks:
            h = blk["ln1"](x)
            q, k, v = blk["qkv"](h).split(x.shape[-1], dim=-1)
            shape = (b, t, self.heads, -1)
            q, k, v = (z.reshape(shape).transpose(1, 2) for z in (q, k, v))
            att = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1]) + self.mask[:t, :t]
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, -1)
            x = x + blk["proj"](y)
            x = x + blk["fc2"](nn.functional.gelu(blk["fc1"](blk["ln2"](x))))
        return self.head(self.ln(x))


def models():
    yield "resnet18", torchvision.models.resnet18(), torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    yield "mobilenet_v2", torchvision.models.mobilenet_v2(), torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(2))
    yield "squeezenet1_1", torchvision.models.squeezenet1_1(), torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(3))
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                                               batch_first=True), num_layers=2)
    yield "transformer_encoder", encoder, torch.randn(1, 16, 64, generator=torch.Generator().manual_seed(4))
    yield "tiny_gpt", TinyGPT(), torch.randint(0, 256, (1, 16), generator=torch.Generator().manual_seed(5))


def main(out_dir):
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for seed, (name, model, example) in enumerate(models()):
        onnx_path = out / f"{name}.onnx"
        if onnx_path.exists() and (out / f"{name}_ref.npz").exists():
            continue
        model = rerandomize(model, 100 + seed)
        with torch.no_grad():
            reference = model(example)
        # Encoders take the fast path only in training-free mode without masks; export the math path.
        torch.onnx.export(model, (example,), str(onnx_path), opset_version=14, input_names=["input"],
                          output_names=["output"], do_constant_folding=True)
        np.savez(out / f"{name}_ref.npz", input=example.numpy(), output=reference.numpy())
        print(f"exported {onnx_path} (output std {reference.float().std().item():.3f})")


if __name__ == "__main__":
    torch.manual_seed(0)
    main(sys.argv[1])
