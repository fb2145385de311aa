#!/usr/bin/env bash
# Check that SGLang's own argument parser (sglang==0.5.23) accepts the exact command `eaglekit serve`
# builds. SGLang cannot run here (GPU only), but its parser imports on CPU: this script builds a separate
# venv with `sglang==0.5.23 --no-deps` plus its light deps, reusing the main venv's CPU torch through a
# .pth file appended last (so nothing of the main venv shadows what is installed here), then runs
# eaglekit.cli.serve --parser-check inside it.
# Usage: bench/sglang_parser_check.sh [EXTRA eaglekit serve options...]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MAIN_PY="${MAIN_PY:-$ROOT/.venv/bin/python}"
VENV="${SGLANG_PARSER_VENV:-${EAGLEKIT_CACHE:-$HOME/.cache/eaglekit}/sglang-parser-venv}"
if [ ! -x "$VENV/bin/python" ] || [ ! -f "$VENV/.ready" ]; then
  echo "building $VENV (sglang==0.5.23 --no-deps + light deps)..." >&2
  "$MAIN_PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  "$VENV/bin/pip" install -q --no-deps sglang==0.5.23
  "$VENV/bin/pip" install -q numpy orjson psutil pybase64 requests triton packaging pillow starlette \
      msgspec pydantic pyzmq tqdm IPython aiohttp
  MAIN_SITE="$("$MAIN_PY" -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')"
  SITE="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  # torch (CPU, 2.13) and transformers from the main venv; appended after this venv's own packages
  echo "import sys; sys.path.append('$MAIN_SITE')" > "$SITE/zz_main_venv_torch.pth"
  touch "$VENV/.ready"
fi
cd "$ROOT"
PYTHONPATH="$ROOT" "$VENV/bin/python" -m eaglekit.cli.serve --parser-check "$@"
