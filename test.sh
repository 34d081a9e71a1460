#!/usr/bin/env bash
# Set up .venv with the dev requirements and run the whole test suite.
# Tests needing ../shared/corpus skip without it; RAG_REQUIRE_CORPUS=1 turns those skips into failures.
# The browser test needs Debian's chromium: installed here with apt when missing and we are root
# (RAG_REQUIRE_BROWSER=1 turns its skip into a failure).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh requirements-dev.txt
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing chromium for the browser test (apt)…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "could not install chromium: the browser test will skip"
fi
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}"
exec .venv/bin/python -m pytest "$@"
