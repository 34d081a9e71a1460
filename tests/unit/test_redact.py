"""redact(): the one function every message goes through before a user, a log or an API client sees it."""

import logging

import pytest

from rag.errors import RedactLogs, redact

SECRET = "S3cr3t-pw"


@pytest.mark.parametrize("text, kept", [
    ("cannot reach the LLM server at http://user:S3cr3t-pw@host/v1", "cannot reach the LLM server at http://***@host/v1"),
    ("https://S3cr3t-pw@github.com/o/r.git", "https://***@github.com/o/r.git"),  # userinfo without a password
    ("http://us%40er:S3cr3t-pw%3A%2F%40x@example.com:8080/v1", "http://***@example.com:8080/v1"),  # percent-encoded
    ("http://u:S3cr3t-pw@@host/v1", "http://***@host/v1"),  # an '@' left unencoded in the password
    ("http://u:S3cr3t-pw/x@host/v1", "http://***@host/v1"),  # a '/' left unencoded in the password
    ("http://u:S3cr3t-pw@[::1]:8091/v1", "http://***@[::1]:8091/v1"),  # IPv6 host
    ("HTTPS://U:S3cr3t-pw@HOST/", "HTTPS://***@HOST/"),
    ("postgresql://app:S3cr3t-pw@db:5432/rag?sslmode=require", "postgresql://***@db:5432/rag?sslmode=require"),
    ("url='http://u:S3cr3t-pw@h/v1'", "url='http://***@h/v1'"),
    ('{"url":"http://u:S3cr3t-pw@h/v1","e":"x"}', '{"url":"http://***@h/v1","e":"x"}'),
])
def test_userinfo_is_removed_from_every_url_shape(text, kept):
    assert redact(text) == kept


@pytest.mark.parametrize("name", ["key", "api_key", "apikey", "API-Key", "token", "access_token", "refresh_token",
                                  "password", "passwd", "pwd", "secret", "client_secret", "sig", "signature",
                                  "X-Amz-Signature", "auth", "authorization", "credential", "api%5Fkey"])
def test_secret_query_parameters_are_removed_by_the_kind_of_their_name(name):
    out = redact(f"GET https://h.example/v1/models?model=gpt-4o-mini&{name}=S3cr3t-pw&page=2#top")
    assert SECRET not in out
    assert out == f"GET https://h.example/v1/models?model=gpt-4o-mini&{name}=***&page=2#top"


@pytest.mark.parametrize("text", [
    "https://h/cb#access_token=S3cr3t-pw&state=1",  # a fragment
    "/v1/chat/completions?key=S3cr3t-pw",  # a path without scheme or host
    "host=db port=5432 user=app password=S3cr3t-pw dbname=rag",  # a libpq connection string
    "password='S3cr3t-pw x' sslmode=require",
    "OpenAI(api_key=S3cr3t-pw)",
    "{'api_key': 'S3cr3t-pw', 'model': 'x'}",
    '{"Authorization": "Bearer S3cr3t-pw"}',
    "Authorization: Bearer S3cr3t-pw",
    "authorization: Basic S3cr3t-pw==",
    "X-API-Key: S3cr3t-pw",
    "the proxy said: bearer eyJhbGciOiJIUzI1NiJ9.S3cr3t-pw.sig",
    "Incorrect API key provided: sk-proj-AbCdEf0123456789S3cr3t-pw",
])
def test_tokens_keys_and_authorization_values_are_removed(text):
    assert SECRET not in redact(text)


def test_several_urls_in_one_message_each_lose_their_secrets():
    text = ("tried http://a:S1-secret@h1/v1 then postgresql://b:S2-secret@h2/db?sslpassword=S3-secret and "
            "https://h3/x?token=S4-secret; http://127.0.0.1:8091/v1 is fine")
    out = redact(text)
    assert not any(s in out for s in ("S1-secret", "S2-secret", "S3-secret", "S4-secret"))
    assert out == ("tried http://***@h1/v1 then postgresql://***@h2/db?sslpassword=*** and https://h3/x?token=***; "
                   "http://127.0.0.1:8091/v1 is fine")


@pytest.mark.parametrize("text", [
    "cannot reach the LLM server at http://127.0.0.1:8091/v1",
    "https://example.com/a/b?model=gpt-4o-mini&page=2&max_tokens=800#section-2",
    "postgresql://db.example.com:5432/rag?sslmode=require",
    "http://[::1]:8080/v1 and https://registry.example.com/@scope/pkg",
    "write to ops@example.com; the answer cites [1] at p. 45; capex was $1,577 million",
    "missing or wrong API key: send 'Authorization: Bearer <RAG_API_KEY>'",
    "RAG_API_KEY is not set (export RAG_API_KEY=... and send it as a Bearer token)",
    "",
])
def test_a_message_without_a_secret_is_unchanged(text):
    assert redact(text) == text


def test_a_key_from_the_environment_is_removed_wherever_it_appears(monkeypatch):
    monkeypatch.setenv("RAG_API_KEY", "plain-S3cr3t-pw-0123456789")
    assert redact("got plain-S3cr3t-pw-0123456789 in a header") == "got *** in a header"


def test_log_lines_and_their_tracebacks_are_redacted(capsys):
    logger = logging.getLogger("rag.test-redact")
    handler = logging.StreamHandler()
    handler.addFilter(RedactLogs())
    logger.addHandler(handler)
    try:
        logger.warning("calling %s", "http://u:S3cr3t-pw@h/v1")
        try:
            raise ConnectionError("refused by http://u:S3cr3t-pw@h/v1?token=S3cr3t-pw")
        except ConnectionError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
    err = capsys.readouterr().err
    assert "calling http://***@h/v1" in err and "ConnectionError: refused by http://***@h/v1?token=***" in err
    assert SECRET not in err
