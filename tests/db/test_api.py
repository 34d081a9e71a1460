"""The HTTP API on the real store and model: FastAPI's TestClient in process, and `python -m rag serve` as a real
server on a port (the way a notebook or a spreadsheet calls it)."""

import json
import os
import subprocess
import sys

import httpx
import pytest
from conftest import ROOT, free_port, wait_for_port
from fastapi.testclient import TestClient

from rag.api import create_app
from rag.errors import RagError

KEY = "test-key-0123456789"
Q = "What were Acme Widgets' purchases of property, plant and equipment in 2022?"


@pytest.fixture
def client(clean_store, ingest, pdfs, settings):
    assert ingest(pdfs["10k_2022"]).ok and ingest(pdfs["10k_2021"]).ok
    with TestClient(create_app(settings, api_key=KEY)) as c:
        yield c


def auth(key: str = KEY) -> dict:
    return {"Authorization": f"Bearer {key}"}


def test_an_answer_is_the_ask_json_object_with_verified_citations(client):
    r = client.post("/api/answer", json={"question": Q}, headers=auth())
    assert r.status_code == 200
    a = r.json()
    assert {"question", "answer", "confidence", "evidence", "figures"} <= set(a)
    assert "1,577" in a["answer"] and a["evidence"][0]["verified"]
    assert a["evidence"][0]["source"].startswith("Acme Widgets 10-K FY2022")


def test_search_returns_the_search_json_object_and_honours_filters(client, clean_store):
    r = client.post("/api/search", json={"question": "net sales", "k": 3}, headers={"X-API-Key": KEY})
    assert r.status_code == 200 and 0 < len(r.json()["results"]) <= 3
    docs = client.get("/api/documents", headers=auth()).json()
    only = next(d["document_id"] for d in docs if d["fiscal_year"] == 2021)
    r = client.post("/api/search", json={"question": "net sales", "filters": {"documents": [only]}}, headers=auth())
    assert {x["document_id"] for x in r.json()["results"]} == {only}
    r = client.post("/api/search", json={"question": "net sales", "raw": True, "k": 2}, headers=auth())
    assert r.status_code == 200 and len(r.json()["results"]) == 2


def test_without_the_right_key_nothing_is_answered(client):
    for headers in ({}, auth("wrong"), {"Authorization": "Basic " + KEY}):
        r = client.post("/api/answer", json={"question": Q}, headers=headers)
        assert r.status_code == 401 and "API key" in r.json()["error"]
    assert client.get("/api/documents").status_code == 401


def test_a_bad_request_gets_a_clear_4xx(client):
    cases = [({"question": ""}, "question"), ({"question": "   "}, "the question is empty"), ({}, "question"),
             ({"question": "x", "filters": {"year_min": "soon"}}, "filters.year_min"),
             ({"question": "x", "filters": {"colour": "red"}}, "filters.colour"),
             ({"question": "x", "k": 500}, "k")]
    for body, says in cases:
        r = client.post("/api/search", json=body, headers=auth())
        assert r.status_code == 422, body
        msg = r.json()["error"]
        assert says in msg and "\n" not in msg, (body, msg)
    r = client.post("/api/answer", content=b"{not json", headers={**auth(), "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["error"].startswith("the body is not valid JSON")
    r = client.get("/api/nothing", headers=auth())
    assert r.status_code == 404 and "POST /api/answer" in r.json()["error"]
    # a filter nothing matches is a plain refusal, not an error
    r = client.post("/api/answer", json={"question": Q, "filters": {"companies": ["Globex"]}}, headers=auth())
    assert r.status_code == 200 and r.json()["confidence"] == "insufficient_data"


def test_no_key_configured_means_no_server():
    with pytest.raises(RagError, match="RAG_API_KEY"):
        create_app(api_key="")


def test_python_m_rag_serve_answers_over_http(clean_store, ingest, pdfs, settings):
    """The real server on a port, as the README's curl example calls it."""
    assert ingest(pdfs["10k_2022"]).ok
    env = {**os.environ, "RAG_DATA_DIR": str(settings.db.data_dir), "PYTHONPATH": str(ROOT)}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    no_key = subprocess.run([sys.executable, "-m", "rag", "serve"], env={**env, "RAG_API_KEY": ""},
                            capture_output=True, text=True, timeout=120)
    assert no_key.returncode == 2 and no_key.stderr.strip().splitlines()[-1].startswith("error: RAG_API_KEY")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--port", str(port)],
                            env={**env, "RAG_API_KEY": KEY}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, 120)
        r = httpx.post(f"http://127.0.0.1:{port}/api/answer", json={"question": Q}, headers=auth(), timeout=120)
        assert r.status_code == 200 and "1,577" in r.json()["answer"]
        assert httpx.get(f"http://127.0.0.1:{port}/api/health", headers=auth(), timeout=30).json()["documents"] == 1
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert KEY not in err.decode()  # the key never reaches the log
    json.dumps(r.json())
