"""The store: typed calls to the SQL functions in sql/, over whichever transport the settings choose."""

from __future__ import annotations

import atexit
import threading
from typing import Any

import numpy as np

from rag.config import Settings
from rag.errors import EmbeddingModelMismatch, StoreError
from rag.issuers import Issuer
from rag.records import (
    Candidate,
    ChunkRow,
    ConversationInfo,
    DocumentMeta,
    Fact,
    FactRow,
    FigureHit,
    FigureRow,
    Hit,
    Related,
    SqlRows,
    StoredChunk,
    Table,
    Turn,
)
from rag.store import migrations
from rag.store.reader import SHARED_READER, ReaderPool, reader_url
from rag.store.transports import PostgresTransport, SupabaseTransport, embedded_url

__all__ = ["Store", "open_store"]


class Store:
    def __init__(self, transport, kind: str, settings: Settings | None = None):
        self.transport = transport
        self.kind = kind  # embedded | postgres | supabase
        self.settings = settings or Settings()
        self._reader = None
        self._reader_lock = threading.Lock()

    # -- plumbing -------------------------------------------------------------------------
    def rpc(self, fn: str, params: dict[str, Any] | None = None) -> Any:
        """The app's calls: as rag_app, under row-level security (shared documents and this app's workspace)."""
        return self.transport.rpc(fn, params or {})

    def admin_rpc(self, fn: str, params: dict[str, Any] | None = None) -> Any:
        """Store-wide administration (re-indexing, reader roles): as the login, never reachable through rpc()."""
        return self.transport.rpc(fn, params or {}, owner=True)

    def migrate(self) -> list[str]:
        if not isinstance(self.transport, PostgresTransport):
            raise StoreError(
                "migrations need a direct connection: run `DATABASE_URL=<its connection string> python -m rag migrate`, "
                "or paste the output of `python -m rag migrate --print` into the project's SQL editor (sql/README.md)"
            )
        with self.transport.connection() as conn:
            applied = migrations.migrate(conn)
        self.transport.use_app_role()
        password = self.settings.db.reader_password
        if password:  # a Postgres that asks for passwords: the reader logs in with this one
            self.admin_rpc("set_reader_password", {"p_role": self._reader_role(), "p_password": _secret(password)})
        return applied

    # -- structured questions ------------------------------------------------------------------
    def _reader_role(self) -> str:
        """The login role of this app's workspace (created on first use when the owner may create roles)."""
        workspace = self.settings.db.workspace
        if not workspace:
            return SHARED_READER
        try:
            return self.admin_rpc("ensure_workspace_reader", {"p_workspace": workspace})
        except StoreError as exc:
            raise StoreError(f"cannot prepare the reader role of workspace {workspace!r} ({exc}); have an admin run "
                             f"`select ensure_workspace_reader('{workspace}')`, or set RAG_DB__READER_URL") from exc

    def _restore_reader(self, role: str, password: str | None) -> None:
        """Put the reader role's own settings (and password) back as the migration made them: a role may change
        its own defaults and password, so the owner re-applies them whenever the app opens the reader pool."""
        try:
            self.admin_rpc("configure_reader_role", {"p_role": role})
            if password:
                self.admin_rpc("set_reader_password", {"p_role": role, "p_password": password})
        except StoreError:
            pass  # an owner without CREATEROLE: the login options still fix every setting that matters

    def reader(self) -> ReaderPool:
        """The pool that runs user- or model-written SQL, logged in as a reader role (rag/store/reader.py)."""
        with self._reader_lock:
            if self._reader is None:
                db = self.settings.db
                if db.reader_url:
                    url = _secret(db.reader_url)
                elif isinstance(self.transport, PostgresTransport):
                    password = _secret(db.reader_password) if db.reader_password else None
                    role = self._reader_role()
                    self._restore_reader(role, password)
                    url = reader_url(self.transport.url, role, password)
                else:
                    raise StoreError("structured (SQL) questions on Supabase need a direct login as the reader role: "
                                     "set RAG_DB__READER_URL to the project's Postgres connection string with the user "
                                     "rag_query and the password set by `python -m rag migrate` "
                                     "(RAG_DB__READER_PASSWORD); the RPC API runs no SQL text")
                self._reader = ReaderPool(url, self.settings.sql.timeout_ms)
            return self._reader

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        self.transport.close()
        if self in _open:
            _open.remove(self)

    # -- store facts ----------------------------------------------------------------------
    def store_info(self) -> dict:
        return self.rpc("get_store_info") or {}

    def check_model(self, model: str) -> None:
        """Refuse a store whose vectors were made by another model than the configured one."""
        stored = self.store_info().get("embedding_model")
        if stored and stored != model:
            raise EmbeddingModelMismatch(
                f"this store was built with embedding model '{stored}' but '{model}' is configured; "
                f"searching it would compare unrelated vectors. Set RAG_EMBEDDING__MODEL='{stored}', "
                f"or run `python -m rag reindex` to re-embed the store with '{model}'."
            )

    # -- documents ------------------------------------------------------------------------
    def ingest_document(self, doc: dict, chunks: list[ChunkRow], figures: list[FigureRow]) -> dict:
        return self.rpc("ingest_document", {"doc": doc, "chunks": chunks, "figures": figures})

    def document_by_sha256(self, sha256: str) -> int | None:
        return self.rpc("document_by_sha256", {"p_sha256": sha256})

    def list_documents(self) -> list[DocumentMeta]:
        return [DocumentMeta.from_row(r) for r in self.rpc("list_documents")]

    def issuer_names(self) -> list[Issuer]:
        """Every issuer with the names its documents give it (sql/functions/issuer_names.sql)."""
        return [Issuer(r["company_key"], r["company"] or r["company_key"], list(r["names"] or []))
                for r in self.rpc("issuer_names")]

    def delete_document(self, document_id: int) -> bool:
        return bool(self.rpc("delete_document", {"p_document_id": int(document_id)}))

    def related_documents(self, document_id: int) -> SqlRows:
        return self.rpc("related_documents", {"p_document_id": int(document_id)})

    def doctor(self, model: str, dim: int) -> SqlRows:
        return self.rpc("doctor", {"expected_model": model, "expected_dim": int(dim)})

    # -- search ---------------------------------------------------------------------------
    def match_chunks(self, embedding, text: str, match_count: int = 10, candidate_count: int = 50,
                     **filters) -> list[Hit]:
        params = {"query_embedding": list(map(float, embedding)), "query_text": text,
                  "match_count": int(match_count), "candidate_count": int(candidate_count)}
        for key, value in filters.items():
            if value not in (None, [], ()):
                params[key] = value
        return [Hit.from_row(r) for r in self.rpc("match_chunks", params)]

    def match_figures(self, embedding, match_count: int = 5, chunk_ids=None, document_ids=None) -> list[FigureHit]:
        rows = self.rpc("match_figures", {
            "query_embedding": list(map(float, embedding)), "match_count": int(match_count),
            "filter_chunk_ids": list(chunk_ids) if chunk_ids else None,
            "filter_document_ids": list(document_ids) if document_ids else None,
        })
        return [FigureHit.from_row(r) for r in rows]

    def figures_numbered(self, number: str, document_ids) -> list[FigureHit]:
        """The figures of these documents whose caption begins with the number ("Figure 3:", "Fig. 3."):
        sql/functions/figures_numbered.sql."""
        if not document_ids:
            return []
        rows = self.rpc("figures_numbered", {"figure_number": str(number),
                                             "filter_document_ids": [int(i) for i in document_ids]})
        return [FigureHit.from_row(r) for r in rows]

    def match_facts(self, query: str = "", document_ids=None, chunk_ids=None, fiscal_years=None,
                    match_count: int = 50) -> list[Fact]:
        """Table facts whose label or table title matches a word of the query (sql/functions/match_facts.sql), of these documents,
        chunks or fiscal years; an empty query gives every fact of the documents or chunks."""
        rows = self.rpc("match_facts", {
            "p_query": query or "", "p_document_ids": [int(i) for i in document_ids] if document_ids else None,
            "p_chunk_ids": [int(i) for i in chunk_ids] if chunk_ids else None,
            "p_fiscal_years": [int(y) for y in fiscal_years] if fiscal_years else None,
            "p_match_count": int(match_count)})
        return [Fact.from_row(r) for r in rows]

    def replace_document_facts(self, document_id: int, facts: list[FactRow]) -> int:
        """A document's facts read again: the old ones replaced in one transaction (sql/functions/replace_document_facts.sql)."""
        return int(self.rpc("replace_document_facts", {"p_document_id": int(document_id), "p_facts": facts}) or 0)

    def replace_document_tables(self, document_id: int, tables: list[Table], facts: list[FactRow]) -> int:
        """A document's tables and the facts derived from them read again, the old ones replaced in one transaction
        (sql/functions/document_tables.sql); returns the number of facts written."""
        return int(self.rpc("replace_document_tables", {"p_document_id": int(document_id), "p_tables": [t.to_json() for t in tables],
                                                        "p_facts": facts}) or 0)

    def tables_of_chunks(self, chunk_ids: list[int]) -> list[Table]:
        """The tables with a row in any of these chunks (a citation's table), parsed (sql/functions/document_tables.sql)."""
        if not chunk_ids:
            return []
        return [Table.from_row(r) for r in self.rpc("tables_of_chunks", {"p_chunk_ids": [int(i) for i in chunk_ids]})]

    def document_tables(self, document_id: int) -> list[Table]:
        """Every table of a document as read at ingestion, in order (sql/functions/document_tables.sql)."""
        return [Table.from_row(r) for r in self.rpc("document_tables", {"p_document_id": int(document_id)})]

    def chunks_by_id(self, chunk_ids: list[int]) -> list[Hit]:
        """Chunks by id with their document's metadata (sql/functions/chunks_by_id.sql)."""
        return [Hit.from_row(r) for r in self.rpc("chunks_by_id", {"p_ids": [int(i) for i in chunk_ids]})]

    def document_chunks(self, document_id: int) -> list[StoredChunk]:
        """Every chunk of a document in order: index, pages, heading and text (to read its facts again)."""
        return self.rpc("document_chunks", {"p_document_id": int(document_id)})

    def chunk_embeddings(self, chunk_ids: list[int]) -> dict[int, np.ndarray]:
        """The stored embedding of each chunk (for diversity), parsed here once: '[x,y,…]' text from SQL (or
        JSON from PostgREST) → float32 vectors."""
        rows = self.rpc("chunk_embeddings", {"p_ids": [int(i) for i in chunk_ids]})
        return {int(r["chunk_id"]): _vector(r["embedding"]) for r in rows if r.get("embedding")}

    def terms_missing(self, terms: list[str], document_ids: list[int] | None) -> list[str]:
        """The terms no chunk of the given documents (None = every document) contains."""
        return [r["term"] for r in self.rpc("terms_missing", {"p_terms": terms, "p_document_ids": document_ids})]

    # -- the app: feedback, query log, metadata corrections, original files ------------------
    def add_feedback(self, question: str, answer: str, chunk_ids: list[int], rating: int,
                     comment: str | None = None) -> int:
        return self.rpc("add_feedback", {"p_question": question, "p_answer": answer,
                                         "p_chunk_ids": [int(c) for c in chunk_ids], "p_rating": int(rating),
                                         "p_comment": comment})

    # -- conversations (sql/functions/*_conversation*.sql): the caller's workspace's, under row-level security ---------------
    def create_conversation(self, title: str | None = None) -> int:
        return int(self.rpc("create_conversation", {"p_title": title}))

    def add_conversation_turn(self, conversation_id: int, question: str, answer: dict,
                              follow_ups: list[str] | None = None) -> int | None:
        """Append a turn (the answer's JSON); None when the conversation is not the caller's."""
        return self.rpc("add_conversation_turn", {"p_conversation_id": int(conversation_id), "p_question": question,
                                                  "p_answer": answer, "p_follow_ups": list(follow_ups or [])})

    def list_conversations(self, limit: int = 50) -> list[ConversationInfo]:
        return [ConversationInfo.from_row(r) for r in self.rpc("list_conversations", {"p_limit": int(limit)})]

    def conversation(self, conversation_id: int) -> tuple[str, list[Turn]] | None:
        """Its title and turns in order; None when it is not the caller's (or does not exist)."""
        rows = self.rpc("get_conversation", {"p_conversation_id": int(conversation_id)})
        if not rows:
            return None
        turns = [Turn.from_row(r) for r in rows if r.get("turn") is not None]
        return rows[0]["title"], turns

    def delete_conversation(self, conversation_id: int) -> bool:
        return bool(self.rpc("delete_conversation", {"p_conversation_id": int(conversation_id)}))

    def feedback_stats(self) -> dict:
        rows = self.rpc("feedback_stats")
        return rows[0] if rows else {"total": 0, "up": 0, "down": 0, "last_7_days": 0}

    def log_query(self, question: str, chunks: list[Candidate], total_ms: float) -> int:
        return self.rpc("log_query", {"p_question": question,
                                      "p_document_ids": [int(c.document_id) for c in chunks],
                                      "p_chunk_ids": [int(c.chunk_id) for c in chunks],
                                      "p_similarities": [float(c.cosine_similarity or 0.0) for c in chunks],
                                      "p_total_ms": float(total_ms)})

    def result_share(self, last: int = 100) -> SqlRows:
        return self.rpc("result_share", {"p_last": int(last)})

    def recent_similarities(self, last: int = 100) -> list[float]:
        return [r["similarity"] for r in self.rpc("recent_similarities", {"p_last": int(last)})]

    def update_document_metadata(self, document_id: int, company: str | None = None, fiscal_year: int | None = None,
                                 fiscal_period: str | None = None, doc_type: str | None = None,
                                 title: str | None = None) -> bool:
        from rag.domain import company_key

        return bool(self.rpc("update_document_metadata", {
            "p_document_id": int(document_id), "p_company": company,
            "p_company_key": company_key(company) if company else None, "p_fiscal_year": fiscal_year,
            "p_fiscal_period": fiscal_period, "p_doc_type": doc_type, "p_title": title}))

    def put_document_file(self, document_id: int, pdf: bytes) -> None:
        import base64

        self.rpc("put_document_file", {"p_document_id": int(document_id),
                                       "p_pdf_b64": base64.b64encode(pdf).decode("ascii")})

    def document_file(self, document_id: int) -> bytes | None:
        import base64

        b64 = self.rpc("get_document_file", {"p_document_id": int(document_id)})
        return base64.b64decode(b64) if b64 else None

    def related_graph(self, document_id: int, depth: int = 3) -> list[Related]:
        rows = self.rpc("related_documents_graph", {"p_document_id": int(document_id), "p_max_depth": int(depth)})
        return [Related.from_row(r) for r in rows]

    def figure_image(self, figure_id: int) -> bytes | None:
        import base64

        b64 = self.rpc("get_figure_image", {"p_figure_id": int(figure_id)})
        return base64.b64decode(b64) if b64 else None


_open: list[Store] = []


def _close_all() -> None:
    while _open:
        try:
            _open.pop().close()
        except Exception:  # already closed, or the server is gone: nothing left to release
            pass


atexit.register(_close_all)


def _vector(v: Any) -> np.ndarray:
    if isinstance(v, str):  # pgvector's text form '[x,y,…]'
        return np.array(v.strip("[]").split(","), dtype=np.float32)
    return np.asarray(v, dtype=np.float32)


def _secret(value) -> str:
    return value.get_secret_value() if hasattr(value, "get_secret_value") else str(value)


def open_store(settings: Settings, migrate: bool | None = None) -> Store:
    """Open the configured store: Supabase if its URL and key are set, else DATABASE_URL, else embedded.

    The embedded database is migrated automatically; others only when migrate=True.
    """
    db = settings.db
    if db.supabase_url and db.supabase_key:
        return _track(Store(SupabaseTransport(db.supabase_url, db.supabase_key.get_secret_value()), "supabase",
                            settings))
    if db.url:
        store = Store(PostgresTransport(db.url, db.statement_timeout_ms, workspace=db.workspace), "postgres",
                      settings)
        _track(store)
        if migrate:
            store.migrate()
        else:
            store.transport.use_app_role()
        return store
    store = Store(PostgresTransport(embedded_url(db.data_dir), db.statement_timeout_ms, workspace=db.workspace),
                  "embedded", settings)
    _track(store)
    if migrate is not False:
        store.migrate()
    else:
        store.transport.use_app_role()
    return store


def _track(store: Store) -> Store:
    _open.append(store)
    return store

