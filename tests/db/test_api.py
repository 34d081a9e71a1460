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
    for weak in ("", "   ", "x", "short-key", "a key with spaces in it", "ключ-ключ-ключ-ключ-ключ"):
        with pytest.raises(RagError, match="RAG_API_KEY"):
            create_app(api_key=weak)


def test_the_key_is_checked_before_the_body_is_read_and_bodies_are_capped(client):
    big = b'{"question": "x", "filters": {"documents": [' + b"1," * 2_000_000 + b'1]}}'
    r = client.post("/api/search", content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 401  # no key: refused before the 4 MB body is read
    r = client.post("/api/search", content=big, headers={**auth(), "Content-Type": "application/json"})
    assert r.status_code == 413 and "KB" in r.json()["error"]
    r = client.get("/api/health/", headers=auth(), follow_redirects=False)
    assert r.status_code == 404  # no redirect to whatever Host the client sent


def test_text_postgres_cannot_carry_is_refused_as_a_bad_request(client):
    for body, says in (({"question": "capex", "filters": {"sections": ["\ud800"]}}, "filters.sections.0"),
                       ({"question": "cap\u0000ex"}, "NUL"),
                       ({"question": "x", "filters": {"documents": [2**63]}}, "filters.documents.0"),
                       ({"question": "x", "filters": {"documents": [True]}}, "filters.documents.0"),
                       ({"question": "x", "trace": "yes"}, "trace")):
        raw = json.dumps(body).encode()  # ASCII JSON: the surrogate and the NUL travel as \\u escapes
        r = client.post("/api/search", content=raw, headers={**auth(), "Content-Type": "application/json"})
        assert r.status_code == 422 and says in r.json()["error"], (body, r.text)


def test_an_unexpected_error_is_a_500_with_one_masked_log_line(client, caplog):
    def boom():
        raise RuntimeError("could not connect to postgresql://app:s3cret@db/x")

    client.app.router.add_api_route("/api/boom", boom)  # a route that fails the way a lost database would
    with caplog.at_level("ERROR"):
        r = client.get("/api/boom", headers=auth())
    assert r.status_code == 500 and r.json()["error"].startswith("internal error (RuntimeError)")
    assert "s3cret" not in r.text and "s3cret" not in caplog.text and "Traceback" not in caplog.text
    assert [x.getMessage() for x in caplog.records] == [
        "unexpected error: RuntimeError: could not connect to postgresql://***@db/x"]
