#!/usr/bin/python3
"""Renders chat conversations with a tokenizer_config.json's Jinja chat_template, the way
HuggingFace transformers does (sandboxed jinja2, trim_blocks, lstrip_blocks, tojson), so the
C++ chat formats can be compared with the real template.

Usage: chat_reference.py TOKENIZER_CONFIG_JSON CONVERSATIONS_JSON OUT_JSON
"""
import json
import sys

import jinja2
import jinja2.ext
import jinja2.sandbox


def token_text(value):
    if isinstance(value, dict):
        return value.get("content", "")
    return value or ""


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    config_path, conversations_path, out_path = sys.argv[1:]
    with open(config_path, encoding="utf-8") as f:
        config = json.load(f)
    with open(conversations_path, encoding="utf-8") as f:
        conversations = json.load(f)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, indent=None: json.dumps(x, ensure_ascii=False, indent=indent)
    env.globals["raise_exception"] = raise_exception
    template = env.from_string(config["chat_template"])

    chats = []
    for conv in conversations:
        kwargs = {
            "messages": conv["messages"],
            "add_generation_prompt": conv["add_generation_prompt"],
            "bos_token": token_text(config.get("bos_token")),
            "eos_token": token_text(config.get("eos_token")),
        }
        if "enable_thinking" in conv:
            kwargs["enable_thinking"] = conv["enable_thinking"]
        entry = dict(conv)
        try:
            entry["rendered"] = template.render(**kwargs)
        except Exception as e:  # a template that cannot render this case
            entry["rendered"] = None
            entry["error"] = str(e)
        chats.append(entry)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"chats": chats}, f, ensure_ascii=False)
    print(f"{out_path}: {len(chats)} chats")


if __name__ == "__main__":
    main()
