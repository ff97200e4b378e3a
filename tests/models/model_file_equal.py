"""Codegen's proof on real models: every model compiled by `tpuc deploy --model` (layer groups, LMEM and
DDR planning, command streams) and run on the command-level simulator gives, tensor for tensor, exactly
what the Tpu functional simulation gives (status EQUAL for every layer of the Tpu dump, names included).
Models: resnet18, mobilenet_v2, PP-OCRv4 det (640x640) and PP-OCR mobile cls; precisions INT8 and BF16;
chips bm1684x, bm1688 (one core, and both cores: `bm1688:2` deploys with --num_core 2) and cv186ah.
Prints one row per model, precision and chip with the layer count,
the simulated latency and the wall time of the command-level run.

usage: model_file_equal.py TPUC WORKDIR [--models a,b] [--chips x,y] [--modes INT8,BF16] [ASSETS]"""
import argparse
import os
import re
import sys
import time

from dumps import compare_dumps, discard_dumps, run

IMAGENET = ["--mean", "123.675,116.28,103.53", "--scale", "0.0171,0.0175,0.0174", "--pixel_format", "rgb"]
PADDLE = ["--mean", "127.5,127.5,127.5", "--scale", "0.0078431,0.0078431,0.0078431", "--pixel_format", "rgb"]
MODELS = {
    "resnet18": ("resnet18.onnx", "[[1,3,224,224]]", IMAGENET, "dog.jpg"),
    "mobilenet_v2": ("mobilenet_v2.onnx", "[[1,3,224,224]]", IMAGENET, "dog.jpg"),
    "ppocr_v4_det": ("ch_PP-OCRv4_det_infer.onnx", "[[1,3,640,640]]", PADDLE, "page.png"),
    "ppocr_mobile_cls": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", "[[1,3,48,192]]", PADDLE, "page.png"),
}
CHIPS = ["bm1684x", "bm1688", "bm1688:2", "cv186ah"]  # chip[:num_core]
MODES = ["INT8", "BF16"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tpuc")
    ap.add_argument("work")
    ap.add_argument("assets", nargs="?")
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--chips", default=",".join(CHIPS))
    ap.add_argument("--modes", default=",".join(MODES))
    a = ap.parse_args()
    assets = a.assets or os.environ.get("TPUC_ASSETS") or \
        os.path.join(os.path.expanduser("~"), ".cache", "tpu-studio", "assets")
    os.makedirs(a.work, exist_ok=True)
    images = os.path.join(assets, "images")
    failures, rows = [], []
    for name in a.models.split(","):
        onnx, shape, pre, test_image = MODELS[name]
        model, test = os.path.join(assets, "models", onnx), os.path.join(images, test_image)
        if not os.path.exists(model) or not os.path.exists(test):
            sys.exit(f"{model} or {test} is missing: run scripts/fetch-assets.sh (or set TPUC_ASSETS)")
        photos = sorted(os.path.join(images, f) for f in os.listdir(images)
                        if f.endswith((".jpg", ".png")) and f != test_image)[:8]
        with open(os.path.join(a.work, name + "_photos.txt"), "w") as f:
            f.write("\n".join(photos) + "\n")
        for args in (["transform", "--model_name", name, "--model_def", model, "--input_shapes", shape, *pre,
                      "--test_input", test, "--test_result", name + "_top_outputs.npz", "--mlir", name + ".mlir"],
                     ["calibrate", name + ".mlir", "--data_list", name + "_photos.txt", "-o", name + "_cali"]):
            rc, out = run([a.tpuc, *args], a.work)
            if rc != 0:
                sys.exit(f"tpuc {args[0]} {name}: exit {rc}\n{out}")
        for mode in a.modes.split(","):
            for target in a.chips.split(","):
                chip, _, cores = target.partition(":")
                stem = f"{name}_{mode}_{chip}" + (f"_{cores}core" if cores else "")
                start = time.time()
                deploy_rc, out = run([a.tpuc, "deploy", "--mlir", name + ".mlir", "--quantize", mode,
                               "--calibration_table", name + "_cali", "--chip", chip, "--test_input", test,
                               "--test_reference", name + "_top_outputs.npz", "--tolerance", "0.5,0.1",
                               "--tpu_mlir", stem + ".mlir", "--model", stem + ".tpum",
                               *(["--num_core", cores] if cores else [])], a.work)
                seconds = time.time() - start
                summary = re.search(r"model file vs Tpu simulation: .*", out)
                if not summary:
                    failures.append(f"{stem}: deploy exit {deploy_rc}, no model-file check\n{out[-2000:]}")
                    continue
                # Independent of deploy's own verdict: numpy compares the two dumps; every tensor of the
                # Tpu simulation must be in the model-file dump and bit-equal where it was computed.
                compared, bad, missing, partial = compare_dumps(os.path.join(a.work, stem + "_model_outputs.npz"),
                                                                os.path.join(a.work, stem + "_tpu_outputs.npz"))
                latency = re.search(r"simulated ([0-9.]+) ms", summary.group(0))
                wall = re.search(r"wall ([0-9.]+) s", summary.group(0))
                rows.append((name, mode, target, compared, len(bad) + len(missing), len(partial),
                             latency.group(1) if latency else "?", wall.group(1) if wall else "?", seconds))
                # deploy exits 1 when the Tpu simulation misses the float reference (INT8 accuracy is
                # quant_accuracy's business); the model-file check itself must report nothing failing.
                equal = not (bad or missing or not compared or deploy_rc not in (0, 1) or
                             " 0 failing" not in summary.group(0))
                if not equal:
                    failures.append(f"{stem}: not EQUAL {bad[:5]}, missing from the model dump {missing[:5]}")
                discard_dumps(a.work, stem, passed=equal)
    print(f"{'model':18} {'mode':5} {'chip':10} {'layers':>6} {'unequal':>7} {'partial':>7} {'sim ms':>8} "
          f"{'run s':>6} {'deploy s':>8}")
    for r in rows:
        print(f"{r[0]:18} {r[1]:5} {r[2]:10} {r[3]:6d} {r[4]:7d} {r[5]:7d} {r[6]:>8} {r[7]:>6} {r[8]:8.1f}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
