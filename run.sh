#!/usr/bin/env bash
# Quick start: set up .venv and start the app on the embedded database (data in ./.rag-data), with one ingestion
# worker next to it (uploads are queued; the worker reads them). RAG_WORKER=0 starts the app alone (workers elsewhere).
# The server's settings are .streamlit/config.toml's: headless, no file watching, no rerun on save, no usage stats.
# Stopping the app (Ctrl+C, or the app dying) stops its worker, and the embedded Postgres with the last of them.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh requirements.txt
if [ -z "${XDG_RUNTIME_DIR:-}" ]; then  # a private runtime folder, as a login session has: no warning at each start
    export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/rag-runtime-$(id -u)"
    mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
fi
if [ "${RAG_WORKER:-1}" != 0 ]; then
    # the worker stops when the app (this shell, replaced by streamlit below: same PID) stops
    .venv/bin/python -m rag worker --exit-with $$ &
fi
exec .venv/bin/python -m streamlit run streamlit_app.py "$@"
