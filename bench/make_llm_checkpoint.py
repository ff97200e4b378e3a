"""Writes a random Qwen2-shaped bf16 checkpoint of real size, streaming: config.json,
generation_config.json, model-0000k-of-0000n.safetensors shards and model.safetensors.index.json, laid out
as HuggingFace's save_pretrained does (tensors in module order, a shard closed before it passes
--shard_gb). Each tensor is generated and written in slices of a few MiB, so memory stays small whatever
the model's size (a Qwen2-7B shape is ~15 GB on disk, written with ~100 MB of RSS).

The weights are random bf16 bit patterns with magnitudes in [2^-7, 2^-4) and random signs (norm weights
1.0): values a quantizer and the compiler treat like trained ones; the model's output is meaningless.

    /usr/bin/python3 bench/make_llm_checkpoint.py --preset qwen2-7b --out /work/llm7b-data/qwen2-7b

Presets: qwen2-0.5b, qwen2-1.5b, qwen2-7b (shapes of the public configs); the shape flags override them.
Run with /usr/bin/python3 (Debian's python3-numpy)."""
import argparse
import json
import os
import struct

import numpy as np

PRESETS = {
    # layers, hidden, heads, kv_heads, inter, vocab, tied
    "qwen2-0.5b": (24, 896, 14, 2, 4864, 151936, True),
    "qwen2-1.5b": (28, 1536, 12, 2, 8960, 151936, True),
    "qwen2-7b": (28, 3584, 28, 4, 18944, 152064, False),
}
SLICE = 4 << 20  # elements generated at a time (8 MiB of bf16)


def tensor_list(a):
    """(name, shape, kind) in HuggingFace's module order; kind: weight, bias or norm."""
    d = a.hidden // a.heads
    out = [("model.embed_tokens.weight", (a.vocab, a.hidden), "weight")]
    for i in range(a.layers):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", (a.hidden,), "norm"),
            (p + "mlp.down_proj.weight", (a.hidden, a.inter), "weight"),
            (p + "mlp.gate_proj.weight", (a.inter, a.hidden), "weight"),
            (p + "mlp.up_proj.weight", (a.inter, a.hidden), "weight"),
            (p + "post_attention_layernorm.weight", (a.hidden,), "norm"),
            (p + "self_attn.k_proj.bias", (a.kv_heads * d,), "bias"),
            (p + "self_attn.k_proj.weight", (a.kv_heads * d, a.hidden), "weight"),
            (p + "self_attn.o_proj.weight", (a.hidden, a.heads * d), "weight"),
            (p + "self_attn.q_proj.bias", (a.heads * d,), "bias"),
            (p + "self_attn.q_proj.weight", (a.heads * d, a.hidden), "weight"),
            (p + "self_attn.v_proj.bias", (a.kv_heads * d,), "bias"),
            (p + "self_attn.v_proj.weight", (a.kv_heads * d, a.hidden), "weight"),
        ]
    out.append(("model.norm.weight", (a.hidden,), "norm"))
    if not a.tie:
        out.append(("lm_head.weight", (a.vocab, a.hidden), "weight"))
    return out


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def random_bf16(rng, n):
    """n random bf16 bit patterns: random sign and mantissa, exponent 120..123 (|x| in [2^-7, 2^-4))."""
    r = rng.integers(0, 1 << 16, size=n, dtype=np.uint16)
    exponent = (np.uint16(120) + ((r >> np.uint16(7)) & np.uint16(3))) << np.uint16(7)
    return (r & np.uint16(0x807F)) | exponent


def write_shard(path, entries, rng):
    header, offset = {}, 0
    for name, shape, _ in entries:
        size = numel(shape) * 2
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, shape, kind in entries:
            n = numel(shape)
            if kind == "norm":
                f.write(np.full(n, 0x3F80, dtype=np.uint16).tobytes())  # 1.0
                continue
            for start in range(0, n, SLICE):
                f.write(random_bf16(rng, min(SLICE, n - start)).tobytes())
    return offset


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--preset", choices=PRESETS)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--heads", type=int)
    ap.add_argument("--kv_heads", type=int)
    ap.add_argument("--inter", type=int)
    ap.add_argument("--vocab", type=int)
    ap.add_argument("--tie", action="store_true", default=None)
    ap.add_argument("--shard_gb", type=float, default=4.0, help="largest shard (HuggingFace's max_shard_size)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.preset:
        for key, value in zip(("layers", "hidden", "heads", "kv_heads", "inter", "vocab", "tie"), PRESETS[a.preset]):
            if getattr(a, key) is None:
                setattr(a, key, value)
    missing = [k for k in ("layers", "hidden", "heads", "kv_heads", "inter", "vocab") if getattr(a, k) is None]
    if missing:
        ap.error("give --preset or --" + ", --".join(missing))
    a.tie = bool(a.tie)
    os.makedirs(a.out, exist_ok=True)

    tensors = tensor_list(a)
    limit = int(a.shard_gb * (1 << 30))
    shards, current, size = [], [], 0
    for t in tensors:
        bytes_ = numel(t[1]) * 2
        if current and size + bytes_ > limit:
            shards.append(current)
            current, size = [], 0
        current.append(t)
        size += bytes_
    shards.append(current)

    rng = np.random.default_rng(a.seed)
    weight_map, total = {}, 0
    for k, entries in enumerate(shards):
        name = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        total += write_shard(os.path.join(a.out, name), entries, rng)
        for t in entries:
            weight_map[t[0]] = name
        print(f"{name}: {len(entries)} tensors", flush=True)
    with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)

    config = {
        "architectures": ["Qwen2ForCausalLM"],
        "model_type": "qwen2",
        "hidden_act": "silu",
        "hidden_size": a.hidden,
        "intermediate_size": a.inter,
        "num_attention_heads": a.heads,
        "num_hidden_layers": a.layers,
        "num_key_value_heads": a.kv_heads,
        "max_position_embeddings": 32768,
        "rms_norm_eps": 1e-06,
        "rope_theta": 1000000.0,
        "tie_word_embeddings": a.tie,
        "torch_dtype": "bfloat16",
        "use_sliding_window": False,
        "vocab_size": a.vocab,
        "bos_token_id": 151643,
        "eos_token_id": 151643,
    }
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(a.out, "generation_config.json"), "w") as f:
        json.dump({"bos_token_id": 151643, "eos_token_id": 151643}, f, indent=2)
    print(f"{a.out}: {len(tensors)} tensors, {total / (1 << 30):.2f} GiB in {len(shards)} shards")


if __name__ == "__main__":
    main()
