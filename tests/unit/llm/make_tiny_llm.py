"""Writes a tiny random Llama / Qwen2 / Qwen3 checkpoint (config.json, generation_config.json,
model.safetensors) and an independent plain-PyTorch reference of the HuggingFace architecture's math:
reference.npz holds the prompt, the logits of every prompt position and greedy continuation tokens with
their logits, each computed by full recomputation (no KV cache). With --quant gptq / gptq-actorder / awq /
autoround the linear layers are stored pre-quantized (packed exactly as AutoGPTQ / AutoAWQ / AutoRound
write them) and dequant.npz holds the dequantized weights the reference used.

Run with /usr/bin/python3 (Debian's python3-torch and python3-numpy)."""
import argparse
import json
import math
import os
import struct

import numpy as np
import torch

FAMILIES = {
    "llama": ("LlamaForCausalLM", "llama"),
    "qwen2": ("Qwen2ForCausalLM", "qwen2"),
    "qwen3": ("Qwen3ForCausalLM", "qwen3"),
}


def write_safetensors(path, tensors):
    """tensors: name -> (dtype string, shape, raw bytes)."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def as_entry(t, dtype):
    t = t.contiguous()
    if dtype == "BF16":
        return ("BF16", t.shape, t.to(torch.bfloat16).view(torch.int16).numpy().tobytes())
    if dtype == "F16":
        return ("F16", t.shape, t.to(torch.float16).numpy().tobytes())
    if dtype == "I32":
        return ("I32", t.shape, t.to(torch.int32).numpy().tobytes())
    return ("F32", t.shape, t.to(torch.float32).numpy().tobytes())


# --- quantization and packing (what AutoGPTQ / AutoAWQ write) ------------------------------------------

def quantize_groups(w, bits, group, sym):
    """w [N, K] float -> q [N, K] ints, scale [N, K/G], zero [N, K/G] (w ~ (q - zero) * scale)."""
    n, k = w.shape
    g = w.reshape(n, k // group, group)
    qmax = 2 ** bits - 1
    if sym:
        scale = g.abs().amax(-1) * 2 / qmax
        scale = torch.clamp(scale, min=1e-5)
        zero = torch.full_like(scale, float((qmax + 1) // 2))
    else:
        lo, hi = g.amin(-1).clamp(max=0), g.amax(-1).clamp(min=0)
        scale = torch.clamp((hi - lo) / qmax, min=1e-5)
        zero = torch.round(-lo / scale)
    scale = scale.to(torch.float16).to(torch.float32)
    q = torch.clamp(torch.round(g / scale[..., None]) + zero[..., None], 0, qmax)
    return q.reshape(n, k).to(torch.int64), scale, zero.to(torch.int64)


def pack_along_rows(intweight, bits):
    """AutoGPTQ's qweight: intweight [K, N] -> [K*bits/32, N]; row r holds rows r*per..r*per+per-1."""
    per = 32 // bits
    k, n = intweight.shape
    iw = intweight.numpy().astype(np.uint32)
    out = np.zeros((k // per, n), dtype=np.uint32)
    for j in range(per):
        out |= iw[j::per] << np.uint32(bits * j)
    return torch.from_numpy(out.view(np.int32))


def pack_along_cols(values, bits, order=None):
    """Packs [R, N] along N into [R, N*bits/32]; `order` is AWQ's order map."""
    per = 32 // bits
    r, n = values.shape
    v = values.numpy().astype(np.uint32)
    out = np.zeros((r, n // per), dtype=np.uint32)
    for col in range(n // per):
        for i in range(per):
            src = col * per + (order[i] if order else i)
            out[:, col] |= v[:, src] << np.uint32(bits * i)
    return torch.from_numpy(out.view(np.int32))


def gptq_tensors(prefix, w, bits, group, sym, act_order, v1_offset, gen):
    n, k = w.shape
    if act_order:
        perm = torch.randperm(k, generator=gen)
        # g_idx as GPTQ act-order writes it: channel perm[i] belongs to group i // group.
        g_idx = torch.empty(k, dtype=torch.int64)
        g_idx[perm] = torch.arange(k) // group
    else:
        g_idx = torch.arange(k) // group
    # Quantize the channels group by group in g_idx order.
    order = torch.argsort(g_idx * k + torch.arange(k))
    q_sorted, scale, zero = quantize_groups(w[:, order], bits, group, sym)
    q = torch.empty_like(q_sorted)
    q[:, order] = q_sorted
    deq = (q - zero[:, g_idx]).to(torch.float32) * scale[:, g_idx]
    stored_zero = zero - 1 if v1_offset else zero
    t = {
        prefix + ".qweight": as_entry(pack_along_rows(q.t().contiguous(), bits), "I32"),
        prefix + ".qzeros": as_entry(pack_along_cols(stored_zero.t().contiguous() & (2 ** bits - 1), bits), "I32"),
        prefix + ".scales": as_entry(scale.t().contiguous(), "F16"),
        prefix + ".g_idx": as_entry(g_idx, "I32"),
    }
    return t, deq


AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]


def awq_tensors(prefix, w, bits, group, gen):
    q, scale, zero = quantize_groups(w, bits, group, sym=False)
    deq = (q - zero.repeat_interleave(group, 1)).to(torch.float32) * scale.repeat_interleave(group, 1)
    t = {
        prefix + ".qweight": as_entry(pack_along_cols(q.t().contiguous(), bits, AWQ_ORDER), "I32"),
        prefix + ".qzeros": as_entry(pack_along_cols(zero.t().contiguous(), bits, AWQ_ORDER), "I32"),
        prefix + ".scales": as_entry(scale.t().contiguous(), "F16"),
    }
    return t, deq


# --- the model, written from the HuggingFace modeling files' math ---------------------------------------

def rms_norm(x, w, eps):
    var = x.pow(2).mean(-1, keepdim=True)
    return w * (x * torch.rsqrt(var + eps))


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


def inv_frequencies(cfg):
    d = cfg["head_dim"]
    base = cfg["rope_theta"]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    factor = 1.0
    rs = cfg.get("rope_scaling")
    if rs:
        kind = rs.get("rope_type", rs.get("type"))
        if kind == "linear":
            inv = inv / rs["factor"]
        elif kind == "llama3":
            f, lo, hi, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], \
                rs["original_max_position_embeddings"]
            low_wl, high_wl = old / lo, old / hi
            wl = 2 * math.pi / inv
            scaled = torch.where(wl > low_wl, inv / f, inv)
            smooth = (old / wl - lo) / (hi - lo)
            smoothed = (1 - smooth) * scaled / f + smooth * scaled
            medium = ~(wl < high_wl) * ~(wl > low_wl)
            inv = torch.where(medium, smoothed, scaled)
        elif kind == "yarn":
            f = rs["factor"]
            old = rs.get("original_max_position_embeddings", cfg["max_position_embeddings"])

            def correction_dim(rotations):
                return (d * math.log(old / (rotations * 2 * math.pi))) / (2 * math.log(base))
            low = max(math.floor(correction_dim(rs.get("beta_fast", 32))), 0)
            high = min(math.ceil(correction_dim(rs.get("beta_slow", 1))), d - 1)
            if low == high:
                high += 0.001
            ramp = torch.clamp((torch.arange(d // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
            extrapolation_factor = 1 - ramp
            pos_freqs = base ** (torch.arange(0, d, 2).float() / d)
            inv = (1.0 / (f * pos_freqs)) * (1 - extrapolation_factor) + (1.0 / pos_freqs) * extrapolation_factor
            factor = 0.1 * math.log(f) + 1.0
    return inv, factor


def forward(cfg, W, ids, embeds=None):
    """Full forward of a [1, L] prompt; returns logits [L, V]. `embeds` [1, L, H], when given, replaces the
    embedding lookup (a VLM's prompt with its image rows spliced in)."""
    L = ids.shape[1]
    H, nh, nkv, d = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
    eps = cfg["rms_norm_eps"]
    x = W["model.embed_tokens.weight"][ids] if embeds is None else embeds
    inv, attention_factor = inv_frequencies(cfg)
    pos = torch.arange(L).float()
    freqs = pos[:, None] * inv[None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * attention_factor, emb.sin() * attention_factor
    mask = torch.full((L, L), float("-inf")).triu(1)

    def lin(name, t):
        y = t @ W[name + ".weight"].t()
        if name + ".bias" in W:
            y = y + W[name + ".bias"]
        return y

    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        h = rms_norm(x, W[p + "input_layernorm.weight"], eps)
        q = lin(p + "self_attn.q_proj", h).view(1, L, nh, d)
        k = lin(p + "self_attn.k_proj", h).view(1, L, nkv, d)
        v = lin(p + "self_attn.v_proj", h).view(1, L, nkv, d)
        if cfg["_family"] == "qwen3":
            q = rms_norm(q, W[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, W[p + "self_attn.k_norm.weight"], eps)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = nh // nkv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d) + mask
        o = torch.softmax(att, dim=-1) @ v
        o = o.transpose(1, 2).reshape(1, L, nh * d)
        x = x + lin(p + "self_attn.o_proj", o)
        h = rms_norm(x, W[p + "post_attention_layernorm.weight"], eps)
        g = lin(p + "mlp.gate_proj", h)
        u = lin(p + "mlp.up_proj", h)
        x = x + lin(p + "mlp.down_proj", torch.nn.functional.silu(g) * u)
    x = rms_norm(x, W["model.norm.weight"], eps)
    head = W["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else W["lm_head.weight"]
    return (x @ head.t())[0]


# The checkpoints the unit tests use: name -> arguments (see tests/unit/llm/LlmPipelineTest.cpp).
LLAMA3_ROPE = ('{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, '
               '"original_max_position_embeddings": 16}')
SUITE = {
    "llama": "--family llama --attention_bias --seed 1",
    "llama3_rope": "--family llama --tie --layers 3 --rope_theta 500000 --seed 2 --rope_scaling " + LLAMA3_ROPE,
    "qwen2": "--family qwen2 --tie --kv_heads 1 --seed 3",
    "qwen3": "--family qwen3 --head_dim 32 --new_tokens 32 --seed 4",
    "qwen2_yarn": '--family qwen2 --seed 11 --rope_scaling {"type":"yarn","factor":4.0}',
    "llama_linear": '--family llama --seed 12 --rope_scaling {"type":"linear","factor":2.0}',
    "llama_sharded": "--family llama --shards 3 --layers 3 --kv_heads 1 --seed 13",
    "qwen3_bias": "--family qwen3 --attention_bias --kv_heads 4 --seed 14",
    "qwen2_long": "--family qwen2 --dtype f32 --prompt_len 20 --new_tokens 4 --seed 5",
    "gptq": "--family qwen3 --quant gptq --seed 6",
    "gptq_actorder": "--family llama --quant gptq-actorder --seed 7",
    "gptq8": "--family qwen2 --quant gptq8 --seed 8",
    "awq": "--family qwen2 --quant awq --seed 9",
    "autoround": "--family llama --quant autoround --seed 10",
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--suite", help="write every checkpoint of SUITE under this directory and exit")
    ap.add_argument("--family", choices=FAMILIES)
    ap.add_argument("--out")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv_heads", type=int, default=2)
    ap.add_argument("--head_dim", type=int, default=0)
    ap.add_argument("--inter", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--tie", action="store_true")
    ap.add_argument("--attention_bias", action="store_true", help="Llama's / Qwen3's attention_bias")
    ap.add_argument("--rope_theta", type=float, default=10000.0)
    ap.add_argument("--rope_scaling", default="", help="JSON object for config.json's rope_scaling")
    ap.add_argument("--dtype", choices=["bf16", "f32"], default="bf16")
    ap.add_argument("--quant", choices=["none", "gptq", "gptq-actorder", "gptq8", "awq", "autoround"],
                    default="none")
    ap.add_argument("--group", type=int, default=32)
    ap.add_argument("--shards", type=int, default=1, help="split the weights over this many files")
    ap.add_argument("--prompt_len", type=int, default=7)
    ap.add_argument("--new_tokens", type=int, default=8)
    args = ap.parse_args(argv)
    if args.suite:
        for name, options in SUITE.items():
            rope = options.split(" --rope_scaling ")
            extra = ["--rope_scaling", rope[1]] if len(rope) > 1 else []
            main(rope[0].split() + extra + ["--out", os.path.join(args.suite, name)])
        with open(os.path.join(args.suite, "manifest.txt"), "w") as f:
            f.write("\n".join(SUITE) + "\n")
        return
    if not args.family or not args.out:
        ap.error("--family and --out are required")

    gen = torch.Generator().manual_seed(args.seed)
    arch, model_type = FAMILIES[args.family]
    H, nh, nkv = args.hidden, args.heads, args.kv_heads
    d = args.head_dim or H // nh
    cfg = {
        "architectures": [arch], "model_type": model_type, "hidden_size": H,
        "intermediate_size": args.inter, "num_hidden_layers": args.layers, "num_attention_heads": nh,
        "num_key_value_heads": nkv, "head_dim": d, "vocab_size": args.vocab,
        "max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "rope_theta": args.rope_theta,
        "tie_word_embeddings": args.tie, "hidden_act": "silu",
        "torch_dtype": "bfloat16" if args.dtype == "bf16" else "float32",
        "bos_token_id": 1, "eos_token_id": 2,
    }
    if args.family != "qwen2":
        cfg["attention_bias"] = args.attention_bias
    if args.rope_scaling:
        cfg["rope_scaling"] = json.loads(args.rope_scaling)
    has_qkv_bias = args.family == "qwen2" or args.attention_bias
    has_o_bias = args.family != "qwen2" and args.attention_bias

    def randn(*shape, std=1.0):
        return torch.randn(*shape, generator=gen) * std

    W = {"model.embed_tokens.weight": randn(args.vocab, H), "model.norm.weight": 1 + randn(H, std=0.1)}
    if not args.tie:
        W["lm_head.weight"] = randn(args.vocab, H, std=1 / math.sqrt(H))
    linears = []
    for i in range(args.layers):
        p = f"model.layers.{i}."
        W[p + "input_layernorm.weight"] = 1 + randn(H, std=0.1)
        W[p + "post_attention_layernorm.weight"] = 1 + randn(H, std=0.1)
        for name, n, k in [("self_attn.q_proj", nh * d, H), ("self_attn.k_proj", nkv * d, H),
                           ("self_attn.v_proj", nkv * d, H), ("self_attn.o_proj", H, nh * d),
                           ("mlp.gate_proj", args.inter, H), ("mlp.up_proj", args.inter, H),
                           ("mlp.down_proj", H, args.inter)]:
            W[p + name + ".weight"] = randn(n, k, std=1 / math.sqrt(k))
            linears.append(p + name)
        if has_qkv_bias:
            for name, n in [("q_proj", nh * d), ("k_proj", nkv * d), ("v_proj", nkv * d)]:
                W[p + "self_attn." + name + ".bias"] = randn(n, std=0.1)
        if has_o_bias:
            W[p + "self_attn.o_proj.bias"] = randn(H, std=0.1)
        if args.family == "qwen3":
            W[p + "self_attn.q_norm.weight"] = 1 + randn(d, std=0.1)
            W[p + "self_attn.k_norm.weight"] = 1 + randn(d, std=0.1)

    store_dtype = "BF16" if args.dtype == "bf16" else "F32"
    if store_dtype == "BF16":  # the reference sees exactly the stored values
        W = {k: v.to(torch.bfloat16).to(torch.float32) for k, v in W.items()}
    tensors = {k: as_entry(v, store_dtype) for k, v in W.items()}
    dequant = {}
    if args.quant != "none":
        bits = 8 if args.quant == "gptq8" else 4
        qc = {"bits": bits, "group_size": args.group}
        if args.quant.startswith("gptq"):
            qc.update({"quant_method": "gptq", "sym": False, "desc_act": args.quant == "gptq-actorder"})
        elif args.quant == "awq":
            qc.update({"quant_method": "awq", "zero_point": True, "version": "gemm"})
        else:
            qc.update({"quant_method": "auto-round", "sym": False, "packing_format": "auto_round:auto_gptq"})
        cfg["quantization_config"] = qc
        for name in linears:
            w = W[name + ".weight"]
            if args.quant == "awq":
                t, deq = awq_tensors(name, w, bits, args.group, gen)
            else:
                t, deq = gptq_tensors(name, w, bits, args.group, False, args.quant == "gptq-actorder", True, gen)
            del tensors[name + ".weight"]
            tensors.update(t)
            W[name + ".weight"] = deq
            dequant[name] = deq.numpy()

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    with open(os.path.join(args.out, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 1, "eos_token_id": 2, "do_sample": False}, f, indent=2)
    if args.shards > 1:  # model-0000k-of-0000n.safetensors and the index naming each tensor's shard
        names = sorted(tensors)
        weight_map = {}
        for k in range(args.shards):
            file = f"model-{k + 1:05d}-of-{args.shards:05d}.safetensors"
            part = names[k::args.shards]
            write_safetensors(os.path.join(args.out, file), {n: tensors[n] for n in part})
            weight_map.update({n: file for n in part})
        with open(os.path.join(args.out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": sum(len(t[2]) for t in tensors.values())},
                       "weight_map": weight_map}, f, indent=2)
    else:
        write_safetensors(os.path.join(args.out, "model.safetensors"), tensors)
    if dequant:
        np.savez(os.path.join(args.out, "dequant.npz"), **dequant)

    cfg["_family"] = args.family
    ids = torch.randint(3, args.vocab, (1, args.prompt_len), generator=gen)
    with torch.no_grad():
        prompt_logits = forward(cfg, W, ids)
        seq = ids
        tokens, step_logits = [], []
        for _ in range(args.new_tokens):
            logits = forward(cfg, W, seq)[-1]
            tok = int(torch.argmax(logits))
            tokens.append(tok)
            step_logits.append(logits.numpy())
            seq = torch.cat([seq, torch.tensor([[tok]])], dim=1)
    np.savez(os.path.join(args.out, "reference.npz"), input_ids=ids.numpy().astype(np.int32),
             prompt_logits=prompt_logits.numpy(), tokens=np.array(tokens, dtype=np.int32),
             step_logits=np.stack(step_logits))


if __name__ == "__main__":
    main()
