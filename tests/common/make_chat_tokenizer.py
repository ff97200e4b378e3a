#!/usr/bin/env python3
"""Writes a byte-level ChatML tokenizer for a tiny checkpoint of tests/unit/llm made with --vocab 258.

Ids 0..255 are the bytes (GPT-2's byte-to-unicode spelling, no merges); 256 is <|im_start|> and 257
<|im_end|>, the eos. Used by the chat tests (lit LLM/llm-serve.test, gui tst_llmchat): the tiny random models
answer with random bytes, but prompts, chat template, eos and the cache reuse are those of a real Qwen
checkpoint.

With --image_tokens, ids 258..260 are InternVL's <img>, </img> and <IMG_CONTEXT> (a checkpoint with
--vocab 261; tests/unit/llm/make_tiny_vlm.py).

usage: make_chat_tokenizer.py FOLDER [--image_tokens]
"""
import json
import os
import sys


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


def main():
    folder = sys.argv[1]
    os.makedirs(folder, exist_ok=True)
    spell = bytes_to_unicode()
    vocab = {spell[b]: b for b in range(256)}
    tokenizer = {
        "version": "1.0",
        "added_tokens": [
            {"id": 256, "content": "<|im_start|>", "special": True, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False},
            {"id": 257, "content": "<|im_end|>", "special": True, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False},
        ],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
        "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "vocab": vocab, "merges": []},
    }
    config = {
        "eos_token": "<|im_end|>",
        "chat_template": "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
                         "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
                         "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
    }
    if "--image_tokens" in sys.argv[2:]:
        for i, content in enumerate(["<img>", "</img>", "<IMG_CONTEXT>"]):
            tokenizer["added_tokens"].append({"id": 258 + i, "content": content, "special": True,
                                              "single_word": False, "lstrip": False, "rstrip": False,
                                              "normalized": False})
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f, ensure_ascii=False)
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump(config, f)


if __name__ == "__main__":
    main()
