#!/usr/bin/env python3
"""Cost model vs command-level simulator: for resnet18 and mobilenet_v2 (the asset cache's ONNX files), every
precision and chip, the plan's estimated latency next to the simulated latency of the model file deploy
writes (its engine trace). Usage: bench/sim_vs_plan.py build/bin/tpuc [workdir]"""
import json, os, subprocess, sys, tempfile

tpuc = os.path.abspath(sys.argv[1])
work = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
os.makedirs(work, exist_ok=True)
assets = os.environ.get("TPUC_ASSETS", os.path.expanduser("~/.cache/tpu-studio/assets"))
images = os.path.join(assets, "images")
pre = ["--mean", "123.675,116.28,103.53", "--scale", "0.0171,0.0175,0.0174", "--pixel_format", "rgb"]

def run(*args):
    subprocess.run([tpuc, *args], cwd=work, check=True, stdout=subprocess.DEVNULL)

print(f"{'model':<14}{'dtype':<6}{'chip':<9}{'plan ms':>9}{'sim ms':>9}{'sim/plan':>9}")
for model in ["resnet18", "mobilenet_v2"]:
    run("transform", "--model_name", model, "--model_def", f"{assets}/models/{model}.onnx", "--input_shapes",
        "[[1,3,224,224]]", *pre, "--mlir", f"{model}.mlir")
    run("calibrate", f"{model}.mlir", "--dataset", images, "--input_num", "8", "-o", f"{model}_cali")
    for dtype in ["INT8", "BF16", "F32"]:
        for chip in ["bm1684x", "bm1688", "cv186ah"]:
            stem = f"{model}_{dtype}_{chip}"
            run("deploy", "--mlir", f"{model}.mlir", "--quantize", dtype, "--calibration_table", f"{model}_cali",
                "--chip", chip, "--model", f"{stem}.tpum")
            plan = json.load(open(os.path.join(work, f"{stem}_plan.json")))
            trace = json.load(open(os.path.join(work, f"{stem}_trace.json")))
            planned = plan["latency_us"] / 1000
            simulated = trace["total_cycles"] / plan["chip"]["frequency_mhz"] / 1000
            print(f"{model:<14}{dtype:<6}{chip:<9}{planned:>9.3f}{simulated:>9.3f}{simulated / planned:>9.2f}")
