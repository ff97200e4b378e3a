#!/usr/bin/python3
"""Writes a tiny random InternVL-shaped vision-language checkpoint and an independent PyTorch reference.

The checkpoint is laid out as InternVL2's (InternVLChatModel): config.json with "llm_config" (a Qwen2 language
model) and "vision_config" (an InternViT tower: conv patch embedding, class token, position embedding, pre-norm
LayerNorm layers with GELU MLP and layer scales ls1/ls2), downsample_ratio 0.5, ps_version v2; safetensors with
the tower under vision_model.*, the projector as mlp1.{0,1,3} and the language model under language_model.*.
The tokenizer is the byte-level ChatML one of tests/common/make_chat_tokenizer.py with <img>, </img> and
<IMG_CONTEXT> (ids 258..260).

reference.npz holds pixel_values (a random normalized image, also pixel_values.npy), the prompt's input_ids — ChatML around
"<img>" + T x "<IMG_CONTEXT>" + "</img>\\n" + the question, as InternVL's chat() builds it — and the greedy
tokens with their logits, each step recomputed from the spliced embeddings (no KV cache), in float32, and the
greedy tokens for a second image (other_pixel_values.npy), which differ.

usage: make_tiny_vlm.py --out DIR [--dtype bf16|f32] [--seed N] [--new_tokens N]
Run with /usr/bin/python3 (Debian's python3-torch and python3-numpy)."""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_tiny_llm as llm  # noqa: E402

IMG_START, IMG_END, IMG_CONTEXT = 258, 259, 260
IM_START, IM_END = 256, 257


def vision_forward(vc, V, pixels, ratio):
    """InternVL's extract_feature: image rows [T, H]."""
    C, p, heads = vc["hidden_size"], vc["patch_size"], vc["num_attention_heads"]
    d = C // heads
    x = F.conv2d(pixels, V["vision_model.embeddings.patch_embedding.weight"],
                 V["vision_model.embeddings.patch_embedding.bias"], stride=p)
    x = x.flatten(2).transpose(1, 2)
    x = torch.cat([V["vision_model.embeddings.class_embedding"].expand(1, 1, C), x], dim=1)
    x = x + V["vision_model.embeddings.position_embedding"]
    n = x.shape[1]
    for i in range(vc["num_hidden_layers"]):
        pre = f"vision_model.encoder.layers.{i}."
        h = F.layer_norm(x, (C,), V[pre + "norm1.weight"], V[pre + "norm1.bias"], vc["layer_norm_eps"])
        qkv = (h @ V[pre + "attn.qkv.weight"].t() + V[pre + "attn.qkv.bias"]).reshape(1, n, 3, heads, d)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        att = torch.softmax((q * d ** -0.5) @ k.transpose(-2, -1), dim=-1)
        o = (att @ v).transpose(1, 2).reshape(1, n, C)
        o = o @ V[pre + "attn.proj.weight"].t() + V[pre + "attn.proj.bias"]
        x = x + o * V[pre + "ls1"]
        h = F.layer_norm(x, (C,), V[pre + "norm2.weight"], V[pre + "norm2.bias"], vc["layer_norm_eps"])
        h = F.gelu(h @ V[pre + "mlp.fc1.weight"].t() + V[pre + "mlp.fc1.bias"])
        h = h @ V[pre + "mlp.fc2.weight"].t() + V[pre + "mlp.fc2.bias"]
        x = x + h * V[pre + "ls2"]
    x = x[:, 1:, :]
    g = int(round(math.sqrt(x.shape[1])))
    x = x.reshape(1, g, g, C)
    # InternVLChatModel.pixel_shuffle, ps_version v2.
    nb, w, hh, c = x.size()
    x = x.view(nb, w, int(hh * ratio), int(c / ratio)).permute(0, 2, 1, 3).contiguous()
    x = x.view(nb, int(hh * ratio), int(w * ratio), int(c / (ratio * ratio))).permute(0, 2, 1, 3).contiguous()
    x = x.reshape(1, -1, x.shape[-1])
    x = F.layer_norm(x, (x.shape[-1],), V["mlp1.0.weight"], V["mlp1.0.bias"], 1e-5)
    x = F.gelu(x @ V["mlp1.1.weight"].t() + V["mlp1.1.bias"])
    x = x @ V["mlp1.3.weight"].t() + V["mlp1.3.bias"]
    return x[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--dtype", choices=["bf16", "f32"], default="f32")
    ap.add_argument("--new_tokens", type=int, default=8)
    ap.add_argument("--question", default="what?")
    a = ap.parse_args()
    gen = torch.Generator().manual_seed(a.seed)

    def randn(*shape, std=1.0):
        return torch.randn(*shape, generator=gen) * std

    # The language model: a tiny Qwen2 (as make_tiny_llm.py --family qwen2).
    H, nh, nkv, d, inter, vocab, layers = 64, 4, 2, 16, 128, 261, 2
    lc = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": H, "intermediate_size": inter,
          "num_hidden_layers": layers, "num_attention_heads": nh, "num_key_value_heads": nkv, "head_dim": d,
          "vocab_size": vocab, "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
          "tie_word_embeddings": False, "hidden_act": "silu", "torch_dtype": "float32", "eos_token_id": IM_END}
    W = {"model.embed_tokens.weight": randn(vocab, H), "model.norm.weight": 1 + randn(H, std=0.1),
         "lm_head.weight": randn(vocab, H, std=1 / math.sqrt(H))}
    for i in range(layers):
        p = f"model.layers.{i}."
        W[p + "input_layernorm.weight"] = 1 + randn(H, std=0.1)
        W[p + "post_attention_layernorm.weight"] = 1 + randn(H, std=0.1)
        for name, n, k in [("self_attn.q_proj", nh * d, H), ("self_attn.k_proj", nkv * d, H),
                           ("self_attn.v_proj", nkv * d, H), ("self_attn.o_proj", H, nh * d),
                           ("mlp.gate_proj", inter, H), ("mlp.up_proj", inter, H), ("mlp.down_proj", H, inter)]:
            W[p + name + ".weight"] = randn(n, k, std=1 / math.sqrt(k))
        for name, n in [("q_proj", nh * d), ("k_proj", nkv * d), ("v_proj", nkv * d)]:
            W[p + "self_attn." + name + ".bias"] = randn(n, std=0.1)

    # The vision tower: 112 x 112 pixels in 14 x 14 patches (an 8 x 8 grid), 16 image tokens after the shuffle.
    C, vheads, vinter, vlayers, size, patch, ratio = 32, 2, 64, 2, 112, 14, 0.5
    vc = {"image_size": size, "patch_size": patch, "hidden_size": C, "num_hidden_layers": vlayers,
          "num_attention_heads": vheads, "intermediate_size": vinter, "layer_norm_eps": 1e-6, "qkv_bias": True,
          "norm_type": "layer_norm", "hidden_act": "gelu", "qk_normalization": False, "use_flash_attn": False}
    g = size // patch
    V = {"vision_model.embeddings.patch_embedding.weight": randn(C, 3, patch, patch, std=1 / math.sqrt(3 * patch * patch)),
         "vision_model.embeddings.patch_embedding.bias": randn(C, std=0.1),
         "vision_model.embeddings.class_embedding": randn(1, 1, C),
         "vision_model.embeddings.position_embedding": randn(1, g * g + 1, C, std=0.5)}
    for i in range(vlayers):
        pre = f"vision_model.encoder.layers.{i}."
        for norm in ("norm1", "norm2"):
            V[pre + norm + ".weight"] = 1 + randn(C, std=0.1)
            V[pre + norm + ".bias"] = randn(C, std=0.1)
        V[pre + "attn.qkv.weight"] = randn(3 * C, C, std=1 / math.sqrt(C))
        V[pre + "attn.qkv.bias"] = randn(3 * C, std=0.1)
        V[pre + "attn.proj.weight"] = randn(C, C, std=1 / math.sqrt(C))
        V[pre + "attn.proj.bias"] = randn(C, std=0.1)
        V[pre + "mlp.fc1.weight"] = randn(vinter, C, std=1 / math.sqrt(C))
        V[pre + "mlp.fc1.bias"] = randn(vinter, std=0.1)
        V[pre + "mlp.fc2.weight"] = randn(C, vinter, std=1 / math.sqrt(vinter))
        V[pre + "mlp.fc2.bias"] = randn(C, std=0.1)
        V[pre + "ls1"] = 0.5 + randn(C, std=0.1)
        V[pre + "ls2"] = 0.5 + randn(C, std=0.1)
    wide = C * 4
    V["mlp1.0.weight"] = 1 + randn(wide, std=0.1)
    V["mlp1.0.bias"] = randn(wide, std=0.1)
    V["mlp1.1.weight"] = randn(H, wide, std=1 / math.sqrt(wide))
    V["mlp1.1.bias"] = randn(H, std=0.1)
    V["mlp1.3.weight"] = randn(H, H, std=4 / math.sqrt(H))
    V["mlp1.3.bias"] = randn(H, std=0.1)

    store = "BF16" if a.dtype == "bf16" else "F32"
    if store == "BF16":  # the reference sees exactly the stored values
        W = {k: t.to(torch.bfloat16).to(torch.float32) for k, t in W.items()}
        V = {k: t.to(torch.bfloat16).to(torch.float32) for k, t in V.items()}
    tensors = {"language_model." + k: llm.as_entry(t, store) for k, t in W.items()}
    tensors.update({k: llm.as_entry(t, store) for k, t in V.items()})
    os.makedirs(a.out, exist_ok=True)
    llm.write_safetensors(os.path.join(a.out, "model.safetensors"), tensors)
    config = {"architectures": ["InternVLChatModel"], "model_type": "internvl_chat", "llm_config": lc,
              "vision_config": vc, "downsample_ratio": ratio, "select_layer": -1, "ps_version": "v2",
              "force_image_size": size, "template": "internvl2_5",
              "torch_dtype": "bfloat16" if store == "BF16" else "float32"}
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(a.out, "generation_config.json"), "w") as f:
        json.dump({"eos_token_id": IM_END, "do_sample": False}, f, indent=2)
    subprocess.run([sys.executable, os.path.join(HERE, "..", "..", "common", "make_chat_tokenizer.py"), a.out,
                    "--image_tokens"], check=True)

    # The prompt as InternVL's chat() writes it, in the ChatML template: bytes are their own ids.
    tokens_per_image = int(g * ratio) ** 2
    user = [IMG_START] + [IMG_CONTEXT] * tokens_per_image + [IMG_END] + list(b"\n" + a.question.encode())
    ids = [IM_START] + list(b"user\n") + user + [IM_END] + list(b"\n") + [IM_START] + list(b"assistant\n")
    ids = torch.tensor([ids])
    lc["_family"] = "qwen2"

    def generate(pixels):
        """Greedy tokens and their logits for the prompt with this image."""
        seq = ids
        with torch.no_grad():
            rows = vision_forward(vc, V, pixels, ratio)
            embeds = W["model.embed_tokens.weight"][seq].clone()
            embeds[0, (seq[0] == IMG_CONTEXT).nonzero()[:, 0]] = rows
            tokens, step_logits = [], []
            for _ in range(a.new_tokens):
                logits = llm.forward(lc, W, seq, embeds)[-1]
                tok = int(torch.argmax(logits))
                tokens.append(tok)
                step_logits.append(logits.numpy())
                seq = torch.cat([seq, torch.tensor([[tok]])], dim=1)
                embeds = torch.cat([embeds, W["model.embed_tokens.weight"][torch.tensor([[tok]])]], dim=1)
        return rows, np.array(tokens, dtype=np.int32), np.stack(step_logits)

    # Two images: the second one's answer must differ, or the test would not see the image at all.
    pixels, other = randn(1, 3, size, size), randn(1, 3, size, size)
    rows, tokens, step_logits = generate(pixels)
    _, other_tokens, _ = generate(other)
    np.save(os.path.join(a.out, "pixel_values.npy"), pixels.numpy().astype(np.float32))
    np.save(os.path.join(a.out, "other_pixel_values.npy"), other.numpy().astype(np.float32))
    np.savez(os.path.join(a.out, "reference.npz"), pixel_values=pixels.numpy().astype(np.float32),
             input_ids=ids[0].numpy().astype(np.int32), image_rows=rows.numpy(), tokens=tokens,
             step_logits=step_logits, other_tokens=other_tokens)


if __name__ == "__main__":
    main()
