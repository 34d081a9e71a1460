#!/usr/bin/env bash
# Quick start: set up .venv and start the app on the embedded database (data in ./.rag-data).
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh requirements.txt
exec .venv/bin/python -m streamlit run streamlit_app.py --server.headless true --browser.gatherUsageStats false "$@"
