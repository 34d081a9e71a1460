#!/usr/bin/env bash
# Creates .venv with Python 3.11 and installs the given requirements file; re-runs only when it changed.
set -euo pipefail
cd "$(dirname "$0")/.."
req="${1:-requirements.txt}"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  for c in python3.11 python3; do
    if command -v "$c" >/dev/null && "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then py="$c"; break; fi
  done
fi
[ -n "$py" ] || { echo "Python 3.11 is required (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
[ -x .venv/bin/python ] || "$py" -m venv .venv
stamp=".venv/.installed-$(cat requirements.txt "$req" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # torch first and pinned: an unpinned torch pulls gigabytes of CUDA packages.
  # RAG_TORCH_INDEX=https://download.pytorch.org/whl/cpu picks the CPU-only build on Linux (see README)
  if [ -n "${RAG_TORCH_INDEX:-}" ]; then
    .venv/bin/python -m pip install --quiet "torch==2.13.0" --index-url "$RAG_TORCH_INDEX"
  else
    .venv/bin/python -m pip install --quiet "torch==2.13.0"
  fi
  .venv/bin/python -m pip install --quiet -r "$req"
  touch "$stamp"
fi
