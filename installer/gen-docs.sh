#!/usr/bin/env bash
# Writes the installed man pages and bash completion from the programs' own flag bindings:
#   gen-docs.sh BIN_DIR OUT_DIR
# tpuc(1) and tpuc-<command>(1) for every command `tpuc --help` lists (tpuc-view(1) and
# tpuc-view-calibration(1) come from tpuc-view's binding), tpu-studio(1) and tpuc-opt(1) by help2man from
# their --help; OUT_DIR/man1/*.1.gz and OUT_DIR/completion/tpuc.
set -euo pipefail
bin=${1:?usage: gen-docs.sh BIN_DIR OUT_DIR}
out=${2:?usage: gen-docs.sh BIN_DIR OUT_DIR}
rm -rf "$out/man1" "$out/completion"
mkdir -p "$out/man1" "$out/completion"
export QT_QPA_PLATFORM=offscreen
XDG_RUNTIME_DIR=$(mktemp -d)
export XDG_RUNTIME_DIR
trap 'rm -rf "$XDG_RUNTIME_DIR"' EXIT

commands=$("$bin/tpuc" --help | awk '/^commands:/ {on = 1; next} /^$/ {on = 0} on {print $1}')
[ -n "$commands" ] || { echo "gen-docs.sh: tpuc --help lists no commands" >&2; exit 1; }
"$bin/tpuc" --help-man > "$out/man1/tpuc.1"
for c in $commands view-calibration; do
  "$bin/tpuc" --help-man "$c" > "$out/man1/tpuc-$c.1"
done
# help2man: the Qt studio and the MLIR opt driver describe themselves with their own parsers.
help2man --no-info --section 1 --source "TPU Studio" \
  --name "desktop studio for deploying neural networks onto TPU-style accelerators" \
  "$bin/tpu-studio" > "$out/man1/tpu-studio.1"
help2man --no-info --no-discard-stderr --section 1 --source "TPU Studio" --version-string "$("$bin/tpuc" --version | awk '{print $2}')" \
  --name "MLIR opt driver with TPU Studio's Top and Tpu dialects and passes" \
  "$bin/tpuc-opt" > "$out/man1/tpuc-opt.1"
# Every page must format without a warning, as lintian checks them with groff (which, like lintian, lets
# lines that cannot be adjusted or broken pass: tpuc-opt's list of MLIR passes has many).
for page in "$out"/man1/*.1; do
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null |
    grep -v -e "cannot adjust line" -e "can't break line" -e "cannot break line" || true)
  if [ -n "$warnings" ]; then
    echo "gen-docs.sh: $page: $warnings" | head -20 >&2
    exit 1
  fi
done
gzip -9nf "$out"/man1/*.1

"$bin/tpuc" --help-bash > "$out/completion/tpuc"
bash -n "$out/completion/tpuc"
echo "gen-docs.sh: $(ls "$out/man1" | wc -l) man pages and the bash completion in $out"
