#!/usr/bin/env bash
# Installs tui-tok as a user would and runs it from another directory: builds the sdist from this checkout, the
# wheel from that sdist (so both are checked), installs the wheel into a fresh venv outside the checkout, then runs
# `--version`, `info`, `encode`, `decode`, `chat` and `lint` on the bundled sample from a scratch directory, and
# starts the explorer in tmux (when tmux is there) to see it paint. Exits non-zero on the first failure.
# Used by .ci/run; by hand: bash tools/check_install.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/tui-tok-install.XXXXXX)
trap 'tmux kill-session -t tui-tok-install 2>/dev/null || true; rm -rf "$work"' EXIT
python3 -m venv "$work/build-venv"
"$work/build-venv/bin/python" -m pip install -q --upgrade pip build
"$work/build-venv/bin/python" -m build -q --sdist -o "$work/dist" "$here" >/dev/null
sdist=$(ls "$work"/dist/tui_tok-*.tar.gz)
"$work/build-venv/bin/python" -m pip wheel -q --no-deps -w "$work/dist" "$sdist" >/dev/null
wheel=$(ls "$work"/dist/tui_tok-*.whl)
# (no `unzip -l | grep -q`: grep's early exit is a SIGPIPE that pipefail counts as a failure)
"$work/build-venv/bin/python" -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); sys.exit("tui_tok/assets/qwen3-vocab.gguf" not in names)' "$wheel" \
  || { echo "check_install: the wheel holds no bundled sample" >&2; exit 1; }
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel"
mkdir "$work/elsewhere" && cd "$work/elsewhere"
bin="$work/venv/bin/tui-tok"
sample=$("$work/venv/bin/python" -c 'from tui_tok.samples import DEFAULT_SAMPLE; print(DEFAULT_SAMPLE)')
case "$sample" in "$work/venv/"*) ;; *) echo "check_install: sample resolved outside the venv: $sample" >&2; exit 1 ;; esac
"$bin" --version
"$bin" info "$sample" > "$work/info.txt" && sed -n 1,3p "$work/info.txt"
ids=$("$bin" encode --ids "$sample" "Hello, world!")
echo "encode: $ids"
[ "$ids" = "[9707, 11, 1879, 0]" ] || { echo "check_install: unexpected ids $ids" >&2; exit 1; }
"$bin" decode "$sample" "$ids"; echo
echo '[{"role": "user", "content": "Hi"}]' | "$bin" chat "$sample" --messages - > "$work/chat.txt" && sed -n 1,3p "$work/chat.txt"
"$bin" lint "$sample" > "$work/lint.txt" && tail -n 1 "$work/lint.txt"
for f in "$work"/venv/lib/python3*/site-packages/tui_tok/assets/*.gguf; do "$bin" encode "$f" "héllo wörld" >/dev/null; done
if command -v tmux >/dev/null && tmux new-session -d -s tui-tok-install -x 100 -y 30 "$bin; sleep 5"; then
  screen=""
  for _ in $(seq 100); do  # up to 20 s: the views, not only the loading screen
    screen=$(tmux capture-pane -p -t tui-tok-install 2>/dev/null || true)
    [[ $screen == *"arch qwen3"* ]] && break; sleep 0.2
  done
  [[ $screen == *"arch qwen3"* ]] || { echo "check_install: the explorer did not show the sample:" >&2; echo "$screen" >&2; exit 1; }
  echo "explorer: painted the bundled sample"
else
  echo "explorer: not checked (no tmux session could be started here)"
fi
echo "check_install: the wheel works from $work/elsewhere"
