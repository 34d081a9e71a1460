"""The Supabase transport, end to end through supabase-py's real HTTP requests.

PostgREST cannot be installed here, so a small stand-in HTTP server plays its part: it accepts
`POST {url}/rest/v1/rpc/<fn>` with a JSON body (exactly what supabase-py sends) and forwards the call to
the same SQL function in the embedded Postgres. Everything on both sides of it is real."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from rag.errors import StoreError
from rag.store import Store
from rag.store.transports import SupabaseTransport


@pytest.fixture
def standin(clean_store):
    seen = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            seen.append({"path": self.path, "apikey": self.headers.get("apikey"),
                         "auth": self.headers.get("Authorization"), "body": body})
            prefix = "/rest/v1/rpc/"
            if not self.path.startswith(prefix):
                self.send_response(404)
                self.end_headers()
                return
            fn = self.path[len(prefix):].split("?")[0]
            try:
                data = clean_store.transport.rpc(fn, body)
                status, payload = 200, json.dumps(data).encode()
            except StoreError as exc:
                status, payload = 400, json.dumps({"message": str(exc), "code": "P0001"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()


def test_ingest_and_search_through_supabase_client(standin, embedder, settings, pdfs):
    from rag.ingest.pipeline import ingest_file
    from rag.retrieve.search import hybrid_search

    url, seen = standin
    key = "test-service-role-key"
    store = Store(SupabaseTransport(url, key), "supabase")
    res = ingest_file(pdfs["esg"], store, embedder, settings)
    assert res.ok, res.error
    assert any(s["path"] == "/rest/v1/rpc/ingest_document" for s in seen)
    call = next(s for s in seen if s["path"].endswith("/ingest_document"))
    assert call["apikey"] == key and call["auth"] == f"Bearer {key}"
    assert set(call["body"]) == {"doc", "chunks", "figures"}

    again = ingest_file(pdfs["esg"], store, embedder, settings)
    assert again.already_ingested

    out = hybrid_search(store, embedder, "How many people did Greenfield employ?", k=3)
    assert out.results and "3,412" in out.results[0].content
    assert out.results[0].file_name == "esg.pdf"
    assert [d.file_name for d in store.list_documents()] == ["esg.pdf"]
    assert store.figure_image(out.figures[0].figure_id)[:4] == b"\x89PNG" if out.figures else True


def test_supabase_transport_cannot_migrate(standin):
    url, _ = standin
    store = Store(SupabaseTransport(url, "k"), "supabase")
    with pytest.raises(StoreError, match="direct connection"):
        store.migrate()


def test_supabase_errors_become_store_errors(standin):
    url, _ = standin
    store = Store(SupabaseTransport(url, "k"), "supabase")
    with pytest.raises(StoreError):
        store.rpc("no_such_function", {})


def test_structured_questions_on_supabase_need_a_reader_login(standin, store):
    """PostgREST (stand-in here) runs functions, never SQL text: without RAG_DB__READER_URL the question is refused
    with the reason; with it, the SQL runs on that login, checked to be a reader."""
    from rag.config import Settings
    from rag.sqlguard import SqlRejected, run_readonly
    from rag.store.reader import reader_url

    url, _ = standin
    sb = Store(SupabaseTransport(url, "k"), "supabase", Settings())
    with pytest.raises(SqlRejected, match="RAG_DB__READER_URL"):
        run_readonly(sb, "select count(*) from v_documents")
    s = Settings()
    s.db.reader_url = reader_url(store.transport.url, "rag_query")
    sb = Store(SupabaseTransport(url, "k"), "supabase", s)
    assert run_readonly(sb, "select count(*) as n from v_documents")[0]["n"] >= 0
    s.db.reader_url = store.transport.url  # the superuser: refused, whatever the SQL
    sb = Store(SupabaseTransport(url, "k"), "supabase", s)
    with pytest.raises(SqlRejected, match="not a reader"):
        run_readonly(sb, "select count(*) from v_documents")
    sb.close()
