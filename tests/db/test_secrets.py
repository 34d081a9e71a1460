"""Secrets in a URL never reach a message: an LLM server whose URL carries a password and a key, unreachable (a
closed port), asked through the real answer path; its reasons, trace, Markdown export, the API's reply and the CLI's
output and log lines name the server without them."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, free_port
from fastapi.testclient import TestClient

from rag.answer.export import to_markdown
from rag.api import create_app
from rag.assistant import answer
from rag.config import Settings

PASSWORD, QUERY_KEY, API_KEY = "hunter2-S3CRET-pw", "QUERYKEY-9f8e7d6c", "sk-test-APIKEY0123456789abcdef"
SECRETS = (PASSWORD, QUERY_KEY, API_KEY)
KEY = "test-key-0123456789"
Q = "What were Acme Widgets' purchases of property, plant and equipment in 2022?"


def _secret_url() -> str:
    return f"http://llmuser:{PASSWORD}@127.0.0.1:{free_port()}/v1?api_key={QUERY_KEY}"


@pytest.fixture
def acme(clean_store, ingest, pdfs):
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["10k_2021"]).ok
    return clean_store


def _settings(settings: Settings, tools: bool = False) -> Settings:
    from pydantic import SecretStr

    s = settings.model_copy(deep=True)
    s.llm.base_url, s.llm.api_key, s.llm.timeout_s, s.llm.tools = _secret_url(), SecretStr(API_KEY), 2, tools
    s.llm.formats_file = Path(tempfile.gettempdir()) / "rag-test-llm-formats.json"
    return s


def _assert_clean(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret!r} leaked in: {text[:2000]}"


@pytest.mark.parametrize("tools", [False, True])
@pytest.mark.parametrize("question", [Q, "How many documents are from 2022?"])
def test_an_unreachable_llm_with_a_password_in_its_url_leaks_it_nowhere(acme, embedder, settings, tools, question):
    a = answer(acme, embedder, question, _settings(settings, tools))
    assert a.mode in ("llm-fallback", "sql") and a.reasons
    assert any("cannot reach the LLM server at http://***@127.0.0.1:" in r for r in a.reasons), a.reasons
    _assert_clean(json.dumps(a.reasons))
    _assert_clean(json.dumps(a.trace, default=str))
    _assert_clean(a.message or "")
    _assert_clean(json.dumps(a.to_json(with_trace=True), default=str))
    _assert_clean(to_markdown(a, acme.figure_image))


def test_the_api_answer_reply_carries_no_secret(acme, settings):
    with TestClient(create_app(_settings(settings), api_key=KEY)) as client:
        r = client.post("/api/answer", json={"question": Q, "trace": True}, headers={"Authorization": f"Bearer {KEY}"})
    assert r.status_code == 200
    reply = r.json()
    assert reply["mode"] == "llm-fallback" and "cannot reach the LLM server" in reply["reasons"][0]
    assert reply["trace"]
    _assert_clean(r.text)


def test_the_cli_prints_and_logs_no_secret(acme, settings, tmp_path):
    env = {**os.environ, "OPENAI_BASE_URL": _secret_url(), "OPENAI_API_KEY": API_KEY, "RAG_LLM__TIMEOUT_S": "2",
           "RAG_LLM__FORMATS_FILE": str(tmp_path / "formats.json")}
    md = tmp_path / "answer.md"
    base = [sys.executable, "-m", "rag", "--data-dir", str(settings.db.data_dir), "-v", "ask", Q]
    for extra in ([], ["--json", "--trace", "--markdown", str(md)]):
        out = subprocess.run(base + extra, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
        assert out.returncode == 0, out.stderr
        assert "cannot reach the LLM server" in out.stdout
        _assert_clean(out.stdout + out.stderr)
    _assert_clean(md.read_text())
