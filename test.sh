#!/usr/bin/env bash
# Set up .venv with the dev requirements and run the whole test suite.
# Tests needing ../shared/corpus skip without it; RAG_REQUIRE_CORPUS=1 turns those skips into failures.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh requirements-dev.txt
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
exec .venv/bin/python -m pytest "$@"
