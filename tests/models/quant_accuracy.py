"""Quantized accuracy of real models, end to end through the tpuc CLI: transform, calibrate on 20 real
photos (kl), deploy in INT8 symmetric, INT8 asymmetric, F16 and BF16 and simulate on a held-out image;
prints the output cosine against the float Top reference per model and precision, and fails when a model
falls below what issue #4 expects (F16/BF16 >= 0.999; INT8 >= 0.98 on resnet18 and the OCR models;
mobilenet_v2's INT8 is reported, with 0.95 as a floor against regressions). PP-OCRv4 det in symmetric
INT8 falls short (about 0.95: error is born in its hardswish/SE chains, see docs/quantization.md), so its
floor there guards the measured value and the asymmetric mode carries the 0.98 expectation.

A second calibration on the same photos with `--search search_threshold` (each tensor's threshold chosen
among kl+tune, octav, max and percentile9999 by cosine) is deployed in INT8 symmetric too, as the
"search" column; it must stay within SEARCH_SLACK of kl's INT8 sym cosine on the held-out image (it
scores each tensor on its own, not the network output, so it is not guaranteed to win everywhere:
docs/quantization.md, section 11, has the figures and the reasons).

With --cross_validate (by hand; the figures of docs/quantization.md, section 11): calibrate on the first 15
photos with kl, mse, max, percentile9999 and --search search_threshold, and print each table's INT8 sym
output cosine (mean, min, each image) on the 6 images held out (the other 5 photos, dog.jpg, page.png), for
the models whose output means something on photos (not PP-OCRv4 det, whose map is ~0 there).

usage: quant_accuracy.py [--cross_validate] TPUC WORKDIR [ASSETS]"""
import csv
import os
import subprocess
import sys

from dumps import discard_dumps

IMAGENET = ["--mean", "123.675,116.28,103.53", "--scale", "0.0171,0.0175,0.0174", "--pixel_format", "rgb"]
PADDLE = ["--mean", "127.5,127.5,127.5", "--scale", "0.0078431,0.0078431,0.0078431", "--pixel_format", "rgb"]
# name, onnx file, input shape, preprocessing, held-out test image, INT8 floors (symmetric, asymmetric)
MODELS = [
    ("resnet18", "resnet18.onnx", "[[1,3,224,224]]", IMAGENET, "dog.jpg", (0.98, 0.98)),
    ("mobilenet_v2", "mobilenet_v2.onnx", "[[1,3,224,224]]", IMAGENET, "dog.jpg", (0.95, 0.95)),
    ("ppocr_v4_det", "ch_PP-OCRv4_det_infer.onnx", "[[1,3,640,640]]", PADDLE, "page.png", (0.94, 0.98)),
    ("ppocr_mobile_cls", "ch_ppocr_mobile_v2.0_cls_infer.onnx", "[[1,3,48,192]]", PADDLE, "page.png", (0.98, 0.98)),
]
# label, deploy flags, calibration table suffix ("" = kl, "_search" = --search search_threshold)
MODES = [("INT8 sym", ["--quantize", "INT8"], ""), ("INT8 asym", ["--quantize", "INT8", "--asymmetric"], ""),
         ("F16", ["--quantize", "F16"], ""), ("BF16", ["--quantize", "BF16"], ""),
         ("search", ["--quantize", "INT8"], "_search")]
# How far below kl's INT8 sym output cosine the search_threshold table may land.
SEARCH_SLACK = 0.002
# Models where the search column is expected below that, with the reason (reported, not failed; an unexpected
# pass is reported too, so that the entry gets removed).
SEARCH_XFAIL = {
    "ppocr_mobile_cls": "2-way softmax on one page image: the output cosine swings by +-0.02 between threshold "
                        "methods with no consistent direction (calibrated on 15 photos, mean over 6 held-out "
                        "images: kl 0.9822, search_threshold 0.9802, mse 0.9683; docs/quantization.md, section 11)",
}


def run(args, cwd):
    done = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode not in (0, 1):  # 1: outside --tolerance, still measured
        sys.exit(f"{' '.join(args)}: exit {done.returncode}\n{done.stdout}")
    return done.stdout


CROSS_VALIDATED = ["resnet18", "mobilenet_v2", "ppocr_mobile_cls"]
CROSS_METHODS = [("kl", ["--cali_method", "kl"]), ("mse", ["--cali_method", "mse"]), ("max", ["--cali_method", "max"]),
                 ("percentile9999", ["--cali_method", "percentile9999"]),
                 ("search_threshold", ["--search", "search_threshold"])]


def cross_validate(tpuc, work, assets):
    import numpy as np
    images = os.path.join(assets, "images")
    photos = sorted(f for f in os.listdir(images) if f.endswith((".jpg", ".png")) and f not in ("dog.jpg", "page.png"))
    calibration, held_out = photos[:15], photos[15:] + ["dog.jpg", "page.png"]
    for name, onnx, shape, pre, _, _ in MODELS:
        if name not in CROSS_VALIDATED:
            continue
        model, model_dir = os.path.join(assets, "models", onnx), os.path.join(work, name)
        os.makedirs(model_dir, exist_ok=True)
        with open(os.path.join(model_dir, "calibration.txt"), "w") as f:
            f.write("\n".join(os.path.join(images, p) for p in calibration) + "\n")
        run([tpuc, "transform", "--model_name", name, "--model_def", model, "--input_shapes", shape, *pre,
             "--mlir", name + ".mlir"], model_dir)
        for method, flags in CROSS_METHODS:
            run([tpuc, "calibrate", name + ".mlir", "--data_list", "calibration.txt", *flags, "-o", method + ".table"], model_dir)
            run([tpuc, "deploy", "--mlir", name + ".mlir", "--quantize", "INT8", "--calibration_table", method + ".table",
                 "--chip", "bm1684x", "--tpu_mlir", method + "_int8.mlir"], model_dir)
        cos = {method: [] for method, _ in CROSS_METHODS}
        for i, image in enumerate(held_out):
            sub = os.path.join(model_dir, f"held_out_{i}")
            os.makedirs(sub, exist_ok=True)
            # The float reference and the preprocessed input (<model_name>_in_f32.npz) of the image.
            run([tpuc, "transform", "--model_name", "x", "--model_def", model, "--input_shapes", shape, *pre,
                 "--tolerance", "0.5,0.1", "--test_input", os.path.join(images, image), "--test_result", "top.npz",
                 "--mlir", "x.mlir"], sub)
            top = np.load(os.path.join(sub, "top.npz"))
            for method, _ in CROSS_METHODS:
                run([tpuc, "run", "--model", os.path.join(model_dir, method + "_int8.mlir"), "--input", "x_in_f32.npz",
                     "--output", method + ".npz"], sub)
                out = np.load(os.path.join(sub, method + ".npz"))
                key = [k for k in out.files if k in top.files][-1]
                a, b = out[key].astype(np.float64).ravel(), top[key].astype(np.float64).ravel()
                cos[method].append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
        print(f"{name}: INT8 sym output cosine on {', '.join(held_out)} (calibrated on {len(calibration)} photos)")
        for method, values in cos.items():
            print(f"  {method:16} mean {np.mean(values):.6f} min {np.min(values):.6f}  " +
                  " ".join(f"{v:.6f}" for v in values))


def main():
    args = [a for a in sys.argv[1:] if a != "--cross_validate"]
    tpuc, work = args[0], args[1]
    assets = args[2] if len(args) > 2 else os.environ.get("TPUC_ASSETS") or \
        os.path.join(os.path.expanduser("~"), ".cache", "tpu-studio", "assets")
    os.makedirs(work, exist_ok=True)
    if len(args) < len(sys.argv) - 1:
        return cross_validate(tpuc, work, assets)
    images = os.path.join(assets, "images")
    failures, rows, notes = [], [], []
    for name, onnx, shape, pre, test_image, int8_floor in MODELS:
        model = os.path.join(assets, "models", onnx)
        test = os.path.join(images, test_image)
        if not os.path.exists(model) or not os.path.exists(test):
            sys.exit(f"{model} or {test} is missing: run scripts/fetch-assets.sh (or set TPUC_ASSETS)")
        photos = sorted(os.path.join(images, f) for f in os.listdir(images)
                        if f.endswith((".jpg", ".png")) and f != test_image)[:20]
        with open(os.path.join(work, name + "_photos.txt"), "w") as f:
            f.write("\n".join(photos) + "\n")
        run([tpuc, "transform", "--model_name", name, "--model_def", model, "--input_shapes", shape, *pre,
             "--test_input", test, "--test_result", name + "_top_outputs.npz", "--mlir", name + ".mlir"], work)
        run([tpuc, "calibrate", name + ".mlir", "--data_list", name + "_photos.txt", "-o", name + "_cali_table"],
            work)
        run([tpuc, "calibrate", name + ".mlir", "--data_list", name + "_photos.txt", "--search", "search_threshold",
             "-o", name + "_cali_table_search"], work)
        cos = {}
        for mode, flags, table_suffix in MODES:
            stem = name + "_" + mode.replace(" ", "_")
            run([tpuc, "deploy", "--mlir", name + ".mlir", *flags, "--calibration_table",
                 name + "_cali_table" + table_suffix, "--chip", "bm1684x", "--test_input", test,
                 "--test_reference", name + "_top_outputs.npz", "--tolerance", "0.5,0.1", "--compare_all",
                 "--tpu_mlir", stem + ".mlir"], work)
            table = list(csv.DictReader(open(os.path.join(work, stem + "_compare.csv"))))
            out = table[-1]
            cos[mode] = float(out["acc_cosine"])
            discard_dumps(work, stem)  # the verdict reads the compare table, not the dump
            if mode == "search":
                floor = cos["INT8 sym"] - SEARCH_SLACK
                if name in SEARCH_XFAIL:
                    verdict = "XFAIL" if cos[mode] < floor else "XPASS (remove it from SEARCH_XFAIL)"
                    notes.append(f"{verdict}: {name} {mode}: output cos {cos[mode]:.6f} vs kl {cos['INT8 sym']:.6f}: "
                                 + SEARCH_XFAIL[name])
                    continue
            else:
                floor = 0.999 if not mode.startswith("INT8") else int8_floor[1 if "asym" in mode else 0]
            if cos[mode] < floor:
                failures.append(f"{name} {mode}: output cos {cos[mode]:.6f} < {floor:.6f}")
        rows.append((name, cos))
    print(f"{'model':18} " + " ".join(f"{m:>10}" for m, _, _ in MODES) +
          "   (output cosine vs float Top, bm1684x; search: INT8 sym, --search search_threshold)")
    for name, cos in rows:
        print(f"{name:18} " + " ".join(f"{cos[m]:10.6f}" for m, _, _ in MODES))
    for n in notes:
        print(n)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
