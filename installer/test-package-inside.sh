#!/usr/bin/env bash
# Run by test-package.sh inside the clean Debian root where the package was installed: what a user does
# first. Nothing here may come from the build tree (it is not in the root).
set -euo pipefail
fail() { echo "inside the root: FAIL: $*" >&2; exit 1; }
ex=/usr/share/tpu-studio/example
mkdir -p /tmp/work && cd /tmp/work

echo "-- tpuc --help, --version"
tpuc --help | grep -q "^commands:" || fail "tpuc --help lists no commands"
tpuc --version | grep -q "^tpuc " || fail "tpuc --version"

echo "-- man pages"
for page in tpuc tpuc-transform tpuc-deploy tpuc-run tpuc-view tpu-studio tpuc-opt; do
  [ -s /usr/share/man/man1/$page.1.gz ] || fail "no man page $page(1)"
done
if command -v man >/dev/null; then man -w tpuc >/dev/null || fail "man -w tpuc"; fi
# The installed page is what the installed tpuc writes from its flag binding.
zcat /usr/share/man/man1/tpuc-deploy.1.gz | cmp -s - <(tpuc --help-man deploy) ||
  fail "tpuc-deploy(1) differs from 'tpuc --help-man deploy'"
zcat /usr/share/man/man1/tpuc-deploy.1.gz | grep -q '^\\fB\\-\\-calibration_table\\fR' ||
  fail "tpuc-deploy(1) lacks --calibration_table"

echo "-- bash completion"
completion=/usr/share/bash-completion/completions/tpuc
[ -s $completion ] || fail "no bash completion"
words=$(bash -c "source $completion; COMP_WORDS=(tpuc dep); COMP_CWORD=1; _tpuc; echo \${COMPREPLY[*]}")
[ "$words" = deploy ] || fail "completing 'tpuc dep' gave '$words'"
words=$(bash -c "source $completion; COMP_WORDS=(tpuc deploy --quantize IN); COMP_CWORD=3; _tpuc; echo \${COMPREPLY[*]}")
[ "$words" = INT8 ] || fail "completing 'tpuc deploy --quantize IN' gave '$words'"

echo "-- desktop integration"
for f in /usr/share/applications/tpu-studio.desktop /usr/share/mime/packages/tpu-studio-project.xml \
  /usr/share/metainfo/io.tpustudio.studio.metainfo.xml /usr/share/icons/hicolor/48x48/apps/tpu-studio.png \
  /usr/share/icons/hicolor/scalable/apps/tpu-studio.svg /usr/share/doc/tpu-studio/copyright \
  /usr/share/doc/tpu-studio/changelog.Debian.gz /usr/share/doc/tpu-studio/README.md \
  /usr/share/tpu-studio/chips/bm1684x.json; do
  [ -s "$f" ] || fail "missing $f"
done

echo "-- transform -> calibrate -> deploy INT8 -> run the example's model"
tpuc transform --model_name ppocr --model_def $ex/models/ch_ppocr_mobile_v2.0_cls_infer.onnx \
  --input_shapes [[1,3,48,192]] --mean 127.5,127.5,127.5 --scale 0.0078431373,0.0078431373,0.0078431373 \
  --pixel_format bgr --resize_dims 48,192 --keep_aspect_ratio --test_input $ex/test/line.png \
  --test_result ppocr_top_outputs.npz --mlir ppocr.mlir >transform.log 2>&1 || { cat transform.log; fail "transform"; }
tpuc calibrate ppocr.mlir --dataset $ex/text-lines -o ppocr_cali_table >calibrate.log 2>&1 ||
  { cat calibrate.log; fail "calibrate"; }
# --chip finds its profile in /usr/share/tpu-studio/chips, beside the installed tpuc.
tpuc deploy --mlir ppocr.mlir --quantize INT8 --calibration_table ppocr_cali_table --chip bm1684x \
  --test_input ppocr_in_f32.npz --test_reference ppocr_top_outputs.npz --model ppocr_int8.tpum >deploy.log 2>&1 ||
  { cat deploy.log; fail "deploy (exit 1: out of the INT8 tolerance)"; }
tail -3 deploy.log
tpuc run --model ppocr_int8.tpum --input ppocr_in_f32.npz --output out.npz --profile trace.json >run.log 2>&1 ||
  { cat run.log; fail "run"; }
tail -1 run.log
# The model file alone on the simulator gives what deploy's check of it gave, and stays within INT8's tolerance
# of the float model.
tpuc compare out.npz ppocr_int8_model_outputs.npz >/dev/null || fail "run's outputs differ from deploy's"
tpuc compare out.npz ppocr_top_outputs.npz --tolerance 0.9,0.8 >/dev/null || fail "run's outputs vs float"

echo "-- tpuc graph (Graphviz's layout plugins at run time)"
tpuc graph ppocr.mlir --format svg -o graph.svg 2>graph.log || { cat graph.log; fail "tpuc graph"; }
grep -q "<svg" graph.svg || fail "tpuc graph wrote no SVG"

echo "-- tpuc view (tpuc-view beside tpuc, offscreen)"
tpuc view timeline --trace trace.json -o timeline.svg 2>view.log || { cat view.log; fail "tpuc view timeline"; }
grep -q "<svg" timeline.svg || fail "tpuc view wrote no SVG"

echo "-- tpu-studio --example --screenshot (offscreen, as a user)"
# --example copies the read-only installed example to the user's data folder and opens it; exit 0 only when
# the project opened.
useradd --create-home tester
runuser -u tester -- env HOME=/home/tester QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=/tmp \
  tpu-studio --example --screenshot /tmp/studio.png 2>studio.log || { cat studio.log; fail "tpu-studio --example --screenshot"; }
mv /tmp/studio.png /tmp/work/studio.png
copy=$(find /home/tester -name ppocr-cls.tpuproj -path '*example*' | head -1)
[ -n "$copy" ] || fail "--example made no copy of the example in the user's folder"
[ -s "$(dirname "$copy")/test/line.png" ] || fail "the example's copy lacks its test input"
echo "example copied to $copy"
echo "inside the root: all checks passed"
