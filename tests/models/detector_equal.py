"""A YOLO detector whole, detection head included (issue 18): YOLOv5s exported here from PyTorch
(export_yolov5s.py: CSP blocks, SPPF, PAN neck, Detect with the 5-D reshape 1x255xHxW -> 1x3x85xHxW, the
transpose to 1x3xHxWx85, the grid decode and the concat of the three scales), through transform (checked
against ONNX Runtime when it is installed), calibrate, and deploy to a model file in every precision on every
chip (bm1688 also on both cores). Each model file runs on the command-level simulator and every tensor must
be EQUAL to the Tpu functional simulation (deploy's own check, and numpy over both dumps); float precisions
must also keep the output within their tolerance of the Top reference. Prints one row per deploy.

usage: detector_equal.py TPUC WORKDIR [--size 320] [--chips ...] [--modes ...]"""
import os
import subprocess
import sys

from dumps import deploy_arguments, deploy_everywhere, print_rows, run

HERE = os.path.dirname(os.path.abspath(__file__))
CHIPS = ["bm1684x", "bm1688", "bm1688:2", "cv186ah"]  # chip[:num_core]
MODES = ["F32", "F16", "BF16", "INT8"]
FLOAT_TOLERANCE = {"F32": "0.99,0.99", "F16": "0.99,0.90", "BF16": "0.99,0.90"}


def main():
    ap = deploy_arguments(CHIPS, MODES)
    ap.add_argument("--size", type=int, default=320)
    a = ap.parse_args()
    assets = os.environ.get("TPUC_ASSETS") or os.path.join(os.path.expanduser("~"), ".cache", "tpu-studio", "assets")
    images = os.path.join(assets, "images")
    test = os.path.join(images, "dog.jpg")
    if not os.path.exists(test):
        sys.exit(f"{test} is missing: run scripts/fetch-assets.sh (or set TPUC_ASSETS)")
    os.makedirs(a.work, exist_ok=True)
    photos = [os.path.join(images, f) for f in ("eagle.jpg", "giraffe.jpg", "horses.jpg", "kite.jpg", "person.jpg",
                                                 "astronaut.png", "coffee.png", "chelsea.png")]
    export = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "export_yolov5s.py"),
                             os.path.join(a.work, "yolov5s.onnx"), str(a.size), *photos],
                            capture_output=True, text=True)
    if export.returncode != 0:
        sys.exit(f"export_yolov5s.py failed:\n{export.stderr[-2000:]}")
    with open(os.path.join(a.work, "photos.txt"), "w") as f:
        f.write("\n".join(photos) + "\n")
    shape = f"[[1,3,{a.size},{a.size}]]"
    for args in (["transform", "--model_name", "yolov5s", "--model_def", "yolov5s.onnx", "--input_shapes", shape,
                  "--mean", "0,0,0", "--scale", "0.0039216,0.0039216,0.0039216", "--keep_aspect_ratio",
                  "--pixel_format", "rgb", "--test_input", test, "--test_result", "yolov5s_top.npz",
                  "--mlir", "yolov5s.mlir"],
                 ["calibrate", "yolov5s.mlir", "--data_list", "photos.txt", "-o", "yolov5s_cali"]):
        rc, out = run([a.tpuc, *args], a.work)
        if rc != 0:
            sys.exit(f"tpuc {args[0]}: exit {rc}\n{out[-3000:]}")
        if args[0] == "transform":
            print(out.strip().splitlines()[-1])  # the ONNX Runtime check's verdict, or why it was skipped
    # Float precisions: the detections themselves within tolerance of the Top reference (INT8 accuracy on
    # random weights and eight photos is not this test's business).
    rows, failures = deploy_everywhere(a.tpuc, a.work, "yolov5s", test, a.chips.split(","), a.modes.split(","),
                                       FLOAT_TOLERANCE)
    sys.exit(print_rows(rows, failures))


if __name__ == "__main__":
    main()
