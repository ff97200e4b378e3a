"""`tpuc llm-run` against an independent PyTorch implementation (make_tiny_llm.py's reference.npz: greedy
tokens and logits by full recomputation, no KV cache), all through compiled model files on the
command-level simulator:

  greedy    a tiny Qwen2 in f32 gives every reference token; in bf16 at least the first 32 (a later step
            may flip where the reference's top-2 margin is below bf16's rounding, which is reported);
            the logits of the steps that agree have cos >= 0.999 with the reference's;
  kv cache  decode through block_cache_ equals --no_kv_cache (the sequence recomputed every step);
  chunked   a 100-token prompt prefilled in chunks of 16 (--use_history_kv: block_ then block_kv_) gives
            the same tokens as one prefill of the whole prompt, logits cos >= 0.9999, and the first token's
            logits cos >= 0.9999 with the reference's (RoPE at positions up to 100 in bf16);
  weights   w8bf16 and w4bf16 (group 32): cos of the first generated token's logits vs the reference, and
            how many greedy tokens agree, printed; floors w8 >= 0.99, w4 >= 0.95.

Prints one line per check. usage: llm_generate.py TPUC WORKDIR"""
import glob
import os
import sys

import numpy as np

from dumps import run

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_TINY = os.path.join(HERE, "..", "unit", "llm", "make_tiny_llm.py")
failures = []


def check(ok, line):
    print(("ok    " if ok else "FAIL  ") + line, flush=True)
    if not ok:
        failures.append(line)


def cos(a, b):
    a, b = np.asarray(a, np.float64).ravel(), np.asarray(b, np.float64).ravel()
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))


def make(work, name, *flags):
    folder = os.path.join(work, name)
    rc, out = run([sys.executable, MAKE_TINY, "--out", folder, *flags], work)
    if rc != 0:
        sys.exit(f"make_tiny_llm {name}: {out}")
    return folder, np.load(os.path.join(folder, "reference.npz"))


def convert(tpuc, work, folder, out, *flags):
    rc, text = run([tpuc, "llm-convert", "-m", folder, "-o", out, *flags], work)
    if rc != 0:
        sys.exit(f"llm-convert {out}: exit {rc}\n{text}")
    models = glob.glob(os.path.join(work, out, "*.tpum"))
    if len(models) != 1:
        sys.exit(f"llm-convert {out}: expected one .tpum, found {models}")
    return models[0]


def generate(tpuc, work, model, prompt, count, *flags):
    """Greedy continuation of `prompt`: (tokens, logits [count, vocab])."""
    dump = model + "".join(f.strip("-") for f in flags) + f"_{count}.npz"
    ids = ",".join(str(int(t)) for t in prompt)
    rc, text = run([tpuc, "llm-run", "--model", model, "--prompt_ids", ids, "--max_new_tokens", str(count),
                    "--dump_logits", dump, *flags], work)
    if rc != 0:
        sys.exit(f"llm-run {model}: exit {rc}\n{text}")
    got = np.load(dump)
    return got["tokens"], got["logits"]


def agreeing(tokens, reference):
    n = 0
    while n < min(len(tokens), len(reference)) and tokens[n] == reference[n]:
        n += 1
    return n


def main():
    tpuc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)

    # Greedy against the reference, f32 and bf16.
    folder, ref = make(work, "qwen2", "--family", "qwen2", "--new_tokens", "40", "--prompt_len", "8")
    prompt, want, want_logits = ref["input_ids"].ravel(), ref["tokens"].ravel(), ref["step_logits"]
    count = len(want)
    for quantize, floor in (("f32", count), ("bf16", 32)):
        model = convert(tpuc, work, folder, "qwen2_" + quantize, "-s", "64", "-q", quantize)
        tokens, logits = generate(tpuc, work, model, prompt, count)
        n = agreeing(tokens, want)
        c = min(cos(logits[i], want_logits[i]) for i in range(n)) if n else 0.0
        detail = ""
        if n < count:
            top2 = np.sort(want_logits[n])[-2:]
            detail = f"; step {n}: reference top-2 margin {top2[1] - top2[0]:.4f}, got {tokens[n]} want {want[n]}"
        check(n >= floor and c >= 0.999,
              f"greedy {quantize}: {n}/{count} tokens equal the PyTorch reference (need {floor}), "
              f"min logits cos {c:.6f} over them{detail}")
        if quantize == "bf16":
            recomputed, _ = generate(tpuc, work, model, prompt, count, "--no_kv_cache")
            check(np.array_equal(tokens, recomputed),
                  f"kv cache bf16: decode through block_cache_ == full recompute for {count} tokens")

    # Weight-only int8 / int4 against the reference.
    for quantize, floor in (("w8bf16", 0.99), ("w4bf16", 0.95)):
        model = convert(tpuc, work, folder, "qwen2_" + quantize, "-s", "64", "-q", quantize, "-g", "32")
        tokens, logits = generate(tpuc, work, model, prompt, count)
        c = cos(logits[0], want_logits[0])
        check(c >= floor, f"{quantize} g32: first token logits cos {c:.6f} vs the float reference (floor {floor}), "
                          f"{agreeing(tokens, want)}/{count} greedy tokens equal")

    # Chunked prefill of a 100-token prompt == one prefill of it.
    folder, ref = make(work, "qwen3", "--family", "qwen3", "--new_tokens", "1", "--prompt_len", "100")
    prompt = ref["input_ids"].ravel()
    count = 16
    whole = convert(tpuc, work, folder, "qwen3_whole", "-s", "256", "-q", "bf16")
    chunked = convert(tpuc, work, folder, "qwen3_chunked", "-s", "256", "-q", "bf16", "--use_history_kv",
                      "--chunk_length", "16")
    a, la = generate(tpuc, work, whole, prompt, count)
    b, lb = generate(tpuc, work, chunked, prompt, count)
    c = min(cos(la[i], lb[i]) for i in range(count))
    first = cos(la[0], ref["step_logits"][0])
    check(np.array_equal(a, b) and c >= 0.9999 and first >= 0.9999,
          f"chunked bf16: 100-token prompt in chunks of 16 == one prefill: {agreeing(a, b)}/{count} tokens, "
          f"min logits cos {c:.6f}; first token vs the reference cos {first:.6f} (need 0.9999)")

    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
