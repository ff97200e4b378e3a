#!/usr/bin/python3
"""Seed corpora for the fuzzers of issue 25, written into DIR: make_text_seeds.py KIND DIR.

KIND is one of hf-config, tokenizer, tables, pass-index, images, studio-json. Targets that read several
formats take a selector byte first (see each fuzzer's header comment); the seeds carry it."""
import io
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "common"))


def hf_config():
    qwen2 = {"architectures": ["Qwen2ForCausalLM"], "hidden_size": 64, "intermediate_size": 128,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 258,
             "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
             "tie_word_embeddings": True, "torch_dtype": "bfloat16", "hidden_act": "silu"}
    qwen3 = dict(qwen2, architectures=["Qwen3ForCausalLM"], head_dim=32, attention_bias=False)
    llama = dict(qwen2, architectures=["LlamaForCausalLM"], rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192}, bos_token_id=1, eos_token_id=[2, 3])
    gptq = dict(qwen2, quantization_config={"quant_method": "gptq", "bits": 4, "group_size": 128,
                                            "sym": True, "desc_act": False})
    internvl = {"architectures": ["InternVLChatModel"], "llm_config": qwen2, "downsample_ratio": 0.5,
                "select_layer": -1, "ps_version": "v2", "force_image_size": 112,
                "vision_config": {"image_size": 112, "patch_size": 14, "hidden_size": 32, "num_hidden_layers": 2,
                                  "num_attention_heads": 2, "intermediate_size": 64, "layer_norm_eps": 1e-6,
                                  "qkv_bias": True, "norm_type": "layer_norm", "hidden_act": "gelu",
                                  "qk_normalization": False}}
    generation = {"bos_token_id": 1, "eos_token_id": [2, 3], "pad_token_id": 0, "temperature": 0.7,
                  "top_k": 20, "top_p": 0.8, "max_new_tokens": 64, "do_sample": True}
    seeds = {"qwen2": b"\0" + json.dumps(qwen2).encode(), "qwen3": b"\0" + json.dumps(qwen3).encode(),
             "llama": b"\0" + json.dumps(llama).encode(), "gptq": b"\0" + json.dumps(gptq).encode(),
             "internvl": b"\0" + json.dumps(internvl).encode(),
             "generation": b"\1" + json.dumps(generation).encode()}
    return seeds


def tokenizer():
    from make_chat_tokenizer import bytes_to_unicode
    spell = bytes_to_unicode()
    vocab = {spell[b]: b for b in range(256)}
    merges = []
    for pair in ["h e", "l l", "he ll", "o w", "Ġ w"]:
        a, b = pair.split(" ")
        if a in vocab and b in vocab:
            vocab[a + b] = len(vocab)
            merges.append(pair)
    added = [{"id": len(vocab), "content": "<|im_start|>", "special": True, "single_word": False,
              "lstrip": False, "rstrip": False, "normalized": False},
             {"id": len(vocab) + 1, "content": "<|im_end|>", "special": True, "single_word": False,
              "lstrip": False, "rstrip": False, "normalized": False}]
    tok = {"version": "1.0", "added_tokens": added, "normalizer": {"type": "NFC"},
           "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
               {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
                "behavior": "Isolated", "invert": False},
               {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
           "decoder": {"type": "ByteLevel"},
           "model": {"type": "BPE", "vocab": vocab, "merges": merges, "byte_fallback": False}}
    config = {"chat_template": "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
                               "{{ message['content'] }}<|im_end|>\n{% endfor %}",
              "eos_token": "<|im_end|>", "bos_token": None}
    llama = {"chat_template": "<|begin_of_text|>{% for m in messages %}<|start_header_id|>", "bos_token": "<|begin_of_text|>"}
    text = "Hello world! 你好, it's 2026.\n\tTabs & <|im_start|>special<|im_end|>"
    t = json.dumps(tok).encode()
    return {"chatml": t + b"\0" + json.dumps(config).encode() + b"\0" + text.encode(),
            "no-config": t + b"\0\0" + b"hello hello",
            "llama-config": t + b"\0" + json.dumps(llama).encode() + b"\0" + b"hi"}


def tables():
    cali = ("# genetated time: 2026-12-05 10:00:00\n# histogram number: 2048\n# sample number: 46\n"
            "# tune number: 5\n###\n# op_name    threshold    min    max\n"
            "x 0.9843000 -0.9843000 0.9843000\nconv1 2.5000000 -1.0000000 2.5000000\n"
            "relu1 1.2e-05 0.0000000 1.2e-05\n#int4_th\nconv1 1.1000000 -1.0 1.1\n"
            "#weight_scale\nconv1.w 2 0.01 0.02\n#asym_op\nconv1\n")
    qtable = "# op_name quantize_mode\nconv1 F16\nrelu1 bf16 # trailing comment\n\nfc W4BF16\n"
    mqbench = "conv1 2 0.1 0.2 2 0 0\n#tpu-mlir-fp8\nconv1 3.0 -3.0 3.0\n"
    return {"cali": cali.encode(), "qtable": qtable.encode(), "mqbench": mqbench.encode(),
            "crlf": cali.replace("\n", "\r\n").encode()}


def pass_index():
    index = {"format": "tpuc-pass-snapshots", "version": 1, "passes": [
        {"index": 0, "pass": "input", "argument": "", "anchor": "builtin.module", "pipeline": "top-pipeline",
         "wallMs": 0, "opCount": 12, "added": 0, "removed": 0, "changed": 0, "failed": False, "irChanged": True,
         "irFile": "000-input.mlir", "opsFile": "000-input.ops.json", "graphFile": "000-input.graph.json"},
        {"index": 1, "pass": "Canonicalizer", "argument": "canonicalize", "anchor": "func.func @main",
         "pipeline": "top-pipeline", "wallMs": 0.25, "opCount": 10, "added": 0, "removed": 2, "changed": 1,
         "failed": False, "irChanged": True, "irFile": "001-canonicalize.mlir",
         "opsFile": "001-canonicalize.ops.json"}]}
    ops = {"ops": [{"kind": "top.Conv", "name": "conv1", "names": ["conv1"], "loc": "loc(\"conv1\")",
                    "attrs": "{kernel_shape = [3, 3]}", "types": "tensor<1x8x32x32xf32>",
                    "operands": [["x", 0], ["w", 0]], "parent": "main", "hash": "00000000deadbeef"}]}
    return {"index": b"\0" + json.dumps(index).encode(), "ops": b"\1" + json.dumps(ops).encode()}


def images():
    from PIL import Image
    seeds = {}
    img = Image.new("RGB", (7, 5))
    for y in range(5):
        for x in range(7):
            img.putpixel((x, y), (x * 30, y * 50, (x + y) * 20))
    for fmt, mode in [("PNG", "RGB"), ("PNG", "RGBA"), ("PNG", "L"), ("PNG", "LA"), ("JPEG", "RGB"),
                      ("JPEG", "L"), ("BMP", "RGB"), ("GIF", "P"), ("PPM", "RGB"), ("TGA", "RGB"),
                      ("WEBP", "RGB"), ("WEBP", "RGBA")]:
        buf = io.BytesIO()
        img.convert(mode).save(buf, format=fmt)
        for selector in (0, 2):
            seeds[f"{fmt.lower()}-{mode}-{selector}"] = bytes([selector]) + buf.getvalue()
    return seeds


def studio_json():
    progress = b'{"stage": "calibrate", "fraction": 0.4, "message": "sample 3/8", "artifacts": ["a.npz"]}'
    request = b'{"id": "1", "type": "chat", "messages": [{"role": "user", "content": "hi"}], "max_new_tokens": 4}'
    event = b'{"id": "1", "type": "token", "text": "h", "sim_ms": 1.5, "wall_ms": 2.0}'
    result = (b'{"schema": "tpuc.result", "version": 1, "job": "deploy", "status": "passed", "exit_code": 0, '
              b'"message": "ok", "model": "net.tpum", "artifacts": ["net.tpum"], "outputs": [{"name": "y", '
              b'"status": "SIMILAR", "pass": true, "cosine": 0.99, "euclidean": 0.9, "sqnr": 20, '
              b'"max_abs_diff": 0.1}]}')
    compare = (b'{"layers": [{"name": "conv1", "accumulated": {"status": "SIMILAR", "pass": true, "cosine": 0.99, '
               b'"euclidean": 0.9, "sqnr": 20, "max_abs_diff": 0.1}, "isolated": {"status": "CLOSE", "pass": true, '
               b'"cosine": 0.999, "euclidean": 0.95, "sqnr": 30, "max_abs_diff": 0.01}}]}')
    options = b'{"test_input": "a.png", "tolerance": "0.9,0.8", "quant_input": true, "calibration_table": {"name": "t", "version": 1}}'
    return {"progress": b"\0" + progress, "serve-request": b"\1" + request, "serve-event": b"\1" + event,
            "result": b"\2" + result, "compare": b"\3" + compare, "options": b"\4" + options}


KINDS = {"hf-config": hf_config, "tokenizer": tokenizer, "tables": tables, "pass-index": pass_index,
         "images": images, "studio-json": studio_json}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in KINDS:
        sys.exit("usage: make_text_seeds.py {%s} DIR" % ",".join(KINDS))
    directory = sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    for name, data in KINDS[sys.argv[1]]().items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
