"""`tpuc llm-convert -s 512 -q w4bf16 -c bm1684x` of random Qwen2-shaped checkpoints at real sizes (0.5B,
1.5B, 7B; written by make_llm_checkpoint.py into --data if absent, kept for the next run), each under
/usr/bin/time -v: wall time, CPU time (user + system: what a loaded machine does not inflate), peak RSS
and model file size, as the Markdown table of docs/LLM.md. The goal for the 7B is <= 30 min and <= 6 GB.
The model files are deleted after measuring (the 7B's is ~5.6 GB).

    /usr/bin/python3 bench/llm_convert_sizes.py --tpuc build/bin/tpuc --data /data --sizes 0.5b,1.5b,7b

Run with /usr/bin/python3."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def time_field(text, label):
    m = re.search(r"^\s*" + re.escape(label) + r": (.*)$", text, re.M)
    return m.group(1).strip() if m else None


def seconds(clock):
    """h:mm:ss or m:ss.ss -> seconds."""
    parts = [float(p) for p in clock.split(":")]
    total = 0.0
    for p in parts:
        total = total * 60 + p
    return total


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tpuc", required=True)
    ap.add_argument("--data", required=True, help="folder for the checkpoints (the 7B is ~15 GB)")
    ap.add_argument("--sizes", default="0.5b,1.5b")
    a = ap.parse_args(argv)
    os.makedirs(a.data, exist_ok=True)
    rows, ok = [], True
    for size in a.sizes.split(","):
        if size not in ("0.5b", "1.5b", "7b"):
            ap.error(f"--sizes: '{size}' is not one of 0.5b, 1.5b, 7b")
        model = os.path.join(a.data, "qwen2-" + size)
        if not os.path.exists(os.path.join(model, "model.safetensors.index.json")):
            subprocess.run([sys.executable, os.path.join(HERE, "make_llm_checkpoint.py"), "--preset",
                            "qwen2-" + size, "--out", model], check=True)
        out = os.path.join(a.data, "qwen2-" + size + "-out")
        shutil.rmtree(out, ignore_errors=True)
        timing = os.path.join(a.data, "time-" + size + ".txt")
        log = os.path.join(a.data, "convert-" + size + ".log")
        with open(log, "w") as f:
            status = subprocess.run(["/usr/bin/time", "-v", "-o", timing, a.tpuc, "llm-convert", "-m", model, "-s",
                                     "512", "-q", "w4bf16", "-c", "bm1684x", "-o", out], stdout=f,
                                    stderr=subprocess.STDOUT).returncode
        text = open(timing).read()
        wall = seconds(time_field(text, "Elapsed (wall clock) time (h:mm:ss or m:ss)"))
        cpu = float(time_field(text, "User time (seconds)")) + float(time_field(text, "System time (seconds)"))
        rss_kb = int(time_field(text, "Maximum resident set size (kbytes)"))
        rss = rss_kb * 1024 / 1e9  # GB, as the goal is stated
        rss_gib = rss_kb / (1024 * 1024)
        files = glob.glob(os.path.join(out, "*.tpum"))
        size_gb = os.path.getsize(files[0]) / 1e9 if files else 0.0
        goal = "" if size != "7b" else ("ok" if wall <= 1800 and rss <= 6 else "over")
        rows.append(f"| {size} | {wall:.0f} s | {cpu:.0f} s | {rss:.2f} GB ({rss_gib:.2f} GiB) | {size_gb:.2f} GB | {goal} |")
        if status != 0:
            print(f"llm_convert_sizes: tpuc llm-convert exited {status} (see {log})", file=sys.stderr)
            ok = False
        shutil.rmtree(out, ignore_errors=True)
    print("| shape | wall | CPU (user + sys) | peak RSS | model file | 7B goal (<= 30 min, <= 6 GB) |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
