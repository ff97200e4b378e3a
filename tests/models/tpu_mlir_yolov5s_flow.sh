#!/usr/bin/env bash
# TPU-MLIR's documented yolov5s sequence (docs "Compile the ONNX model": model_transform -> run_calibration ->
# model_deploy F16, INT8 sym, INT8 asym -> model_runner -> npz_tool compare), with TPU-MLIR's flag spellings,
# file names and tolerances, run through tpuc against a YOLOv5s exported here from PyTorch
# (export_yolov5s.py). Fails on the first command that fails; prints each command as it runs.
#
# usage: tpu_mlir_yolov5s_flow.sh TPUC WORKDIR
set -euo pipefail
tpuc=$(realpath "$1")
work=$2
here=$(dirname "$(realpath "$0")")
assets=${TPUC_ASSETS:-${TPUC_ASSETS_DIR:-$HOME/.cache/tpu-studio/assets}}
images=$assets/images
[ -f "$images/dog.jpg" ] || { echo "tpu_mlir_yolov5s_flow: $images/dog.jpg is missing: run scripts/fetch-assets.sh" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/COCO2017" && cd "$work"
# The calibration set: the asset photos (TPU-MLIR uses 100 images of COCO2017; --input_num 100 takes all 21).
cp "$images"/*.jpg "$images"/*.png COCO2017/
run() { echo "+ $*"; "$@"; }

# The detector: its BatchNorms are normalized on photos that are not the test image.
outputs=$(/usr/bin/python3 "$here/export_yolov5s.py" yolov5s.onnx 640 \
  "$images"/{eagle,giraffe,horses,kite,person,astronaut,coffee,chelsea}.* 2>/dev/null)
# TPU-MLIR cuts at the three detection convolutions (its --output_names 350,498,646 are their ONNX names).
echo "detection convolutions: $outputs"

run "$tpuc" transform \
  --model_name yolov5s \
  --model_def yolov5s.onnx \
  --input_shapes [[1,3,640,640]] \
  --mean 0.0,0.0,0.0 \
  --scale 0.0039216,0.0039216,0.0039216 \
  --keep_aspect_ratio \
  --pixel_format rgb \
  --output_names "$outputs" \
  --test_input "$images/dog.jpg" \
  --test_result yolov5s_top_outputs.npz \
  --mlir yolov5s.mlir
test -s yolov5s_in_f32.npz # model_transform's preprocessed input, which model_deploy takes next

run "$tpuc" calibrate yolov5s.mlir \
  --dataset COCO2017 \
  --input_num 100 \
  -o yolov5s_cali_table

run "$tpuc" deploy \
  --mlir yolov5s.mlir \
  --quantize F16 \
  --processor bm1684x \
  --test_input yolov5s_in_f32.npz \
  --test_reference yolov5s_top_outputs.npz \
  --model yolov5s_1684x_f16.bmodel

run "$tpuc" deploy \
  --mlir yolov5s.mlir \
  --quantize INT8 \
  --calibration_table yolov5s_cali_table \
  --processor bm1684x \
  --test_input yolov5s_in_f32.npz \
  --test_reference yolov5s_top_outputs.npz \
  --tolerance 0.85,0.45 \
  --model yolov5s_1684x_int8_sym.bmodel

run "$tpuc" deploy \
  --mlir yolov5s.mlir \
  --quantize INT8 \
  --asymmetric \
  --calibration_table yolov5s_cali_table \
  --processor bm1684x \
  --test_input yolov5s_in_f32.npz \
  --test_reference yolov5s_top_outputs.npz \
  --tolerance 0.85,0.45 \
  --model yolov5s_1684x_int8_asym.bmodel

# model_runner on each model file, then npz_tool compare against the Top outputs.
for m in f16 int8_sym int8_asym; do
  run "$tpuc" run --input yolov5s_in_f32.npz --model yolov5s_1684x_$m.bmodel --output yolov5s_${m}_outputs.npz
  tolerance=0.85,0.45
  [ $m = f16 ] && tolerance=0.99,0.90
  run "$tpuc" compare yolov5s_${m}_outputs.npz yolov5s_top_outputs.npz --tolerance $tolerance
done
# The model_runner outputs are the deploy's: the model file ran the same commands.
run "$tpuc" compare yolov5s_int8_sym_outputs.npz yolov5s_1684x_int8_sym_model_outputs.npz --tolerance 0.99999,0.9999
# The dumps (~0.3 GB each) go once the flow has passed (tests/models/dumps.py: discard_dumps).
[ "${TPUC_KEEP_TEST_OUTPUTS:-0}" = 1 ] || rm -f ./*_outputs.npz
echo "tpu_mlir_yolov5s_flow: passed"
