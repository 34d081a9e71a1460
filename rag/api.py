"""The HTTP API: answers and search for notebooks, spreadsheets and other tools (`python -m rag serve`).

FastAPI, because the request bodies are pydantic models like the rest of the settings (validation, one clear message
per bad field, and an OpenAPI page at /docs for free), and it runs on uvicorn, which Streamlit already installs.

- POST /api/answer  {"question", "filters"?, "offline"?, "trace"?}  → the `ask --json` object
- POST /api/search  {"question", "filters"?, "k"?, "raw"?, "trace"?} → the `search --json` object
- GET  /api/documents → the `docs --json` list (ids for the document filter);  GET /api/health

Every /api route needs the key from RAG_API_KEY, sent as `Authorization: Bearer KEY` or `X-API-Key: KEY`. The store,
the workspace and the model come from the same settings as the app (env, RAG_*). A bad request gets a 4xx with
{"error": one line}; no traceback leaves the server, the key is never logged, and no reply or log line carries a
secret of a URL (rag.errors.redact). `serve` times out slow clients: a request's headers and its body each have a
deadline (settings.api), which uvicorn alone does not give."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import threading
from contextlib import asynccontextmanager
from typing import Annotated, Any

import h11
from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    field_validator,
)
from starlette.exceptions import HTTPException as StarletteHTTPException
from uvicorn.protocols.http.h11_impl import H11Protocol

from rag.config import ApiSettings, Settings, settings_from_env
from rag.errors import RagError, redact, redact_json, redact_logs

log = logging.getLogger("rag.api")
MISSING_KEY = "RAG_API_KEY is not set: the API needs a key (export RAG_API_KEY=... and send it as a Bearer token)"
WEAK_KEY = "RAG_API_KEY must be at least 16 printable ASCII characters without spaces (e.g. secrets.token_urlsafe(24))"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
MAX_BODY = 64 * 1024  # bytes of a request body: a question and its filters
UNAUTHORISED = "missing or wrong API key: send 'Authorization: Bearer <RAG_API_KEY>'"


def _clean_text(v: str) -> str:
    """Text Postgres and UTF-8 can carry: no NUL byte, no lone surrogate."""
    if "\x00" in v:
        raise ValueError("contains a NUL byte")
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid Unicode text (a lone surrogate)") from None
    return v


Text = Annotated[str, StringConstraints(max_length=200), AfterValidator(_clean_text)]
DocumentId = Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]


class Filters(BaseModel):
    """The same filters as the CLI's --doc/--company/--year-min/--year-max/--type/--section."""
    model_config = ConfigDict(extra="forbid")
    documents: list[DocumentId] | None = Field(None, max_length=1000, description="document ids (GET /api/documents)")
    companies: list[Text] | None = Field(None, max_length=100, description="company names, e.g. '3M' or 'Adobe Inc.'")
    year_min: StrictInt | None = Field(None, ge=1900, le=2100)
    year_max: StrictInt | None = Field(None, ge=1900, le=2100)
    types: list[Text] | None = Field(None, max_length=50, description="document types, e.g. '10-K'")
    sections: list[Text] | None = Field(None, max_length=50, description="section types, e.g. 'results'")

    def to_search(self):
        from rag.domain import company_key
        from rag.retrieve.search import SearchFilters

        return SearchFilters(document_ids=self.documents or None,
                             companies=[company_key(c) for c in self.companies] if self.companies else None,
                             year_min=self.year_min, year_max=self.year_max, doc_types=self.types or None,
                             section_types=self.sections or None)


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str = Field(..., min_length=1, max_length=2000)
    filters: Filters = Field(default_factory=Filters)
    trace: StrictBool = Field(False, description="include the retrieval trace")

    @field_validator("question")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        from rag.assistant.core import check_question

        try:
            return _clean_text(check_question(v))  # the Ask page's refusal, word for word
        except RagError as exc:
            raise ValueError(str(exc)) from None


class AnswerRequest(Question):
    offline: StrictBool = Field(False, description="extractive answer even when an LLM is configured")


class SearchRequest(Question):
    k: StrictInt | None = Field(None, ge=1, le=50, description="chunks to return (default: dynamic 3/5/7)")
    raw: StrictBool = Field(False, description="plain hybrid SQL search, no reranking or diversity")


class Service:
    """The store and the model, opened once; one question at a time through the model (2 cores, one model)."""

    def __init__(self, settings: Settings):
        from rag.embed import Embedder
        from rag.store import open_store

        self.settings = settings
        self.store = open_store(settings)
        self.embedder = Embedder(settings.embedding)
        self.store.check_model(self.embedder.model_name)
        self.embedder.load()
        self.lock = threading.Lock()

    def answer(self, req: AnswerRequest) -> dict[str, Any]:
        from rag.assistant import answer

        with self.lock:
            a = answer(self.store, self.embedder, req.question, self.settings, filters=req.filters.to_search(),
                       use_llm=False if req.offline else None)
        return _redacted(a.to_json(with_trace=req.trace))

    def search(self, req: SearchRequest) -> dict[str, Any]:
        from rag.retrieve.pipeline import retrieve
        from rag.retrieve.search import hybrid_search

        with self.lock:
            if req.raw:
                raw = hybrid_search(self.store, self.embedder, req.question, k=req.k or 5,
                                    filters=req.filters.to_search(), cfg=self.settings.retrieval.raw)
                return _redacted(raw.to_json())
            cfg = self.settings.retrieval.model_copy(update={"k": req.k} if req.k else {})
            return _redacted(retrieve(self.store, self.embedder, req.question, cfg,
                                      filters=req.filters.to_search()).to_json(with_trace=req.trace))


    def workpaper(self, company: str | None, report: int | None):
        from rag.workpaper import load_workpaper

        with self.lock:
            return load_workpaper(self.store, self.embedder.encode, company=company, document_id=report)


def workpaper_json(wp) -> dict[str, Any]:
    """The workpaper as JSON: its summary, each measure's values by period with their sources (and the values a
    later document restated), the footing checks, and the computed metrics."""
    def value(v) -> dict[str, Any]:
        return {"value": v.value, "raw": v.raw, "unit": v.unit, "scale": v.scale, "document_id": v.source.document_id,
                "file_name": v.source.file_name, "page": v.source.page, "table_title": v.source.table_title}

    return {"summary": wp.summary(),
            "measures": [{"topic": m.topic, "label_path": m.label_path, "labels": list(m.labels),
                          "cells": {p: value(c.value) | {"restated_from": [value(v) for v in c.restated]}
                                    for p, c in m.cells.items()}} for m in wp.history.measures],
            "checks": [c.to_json() for c in wp.checks],
            "metrics": [{"metric": c.metric.name, "year": c.year, "value": c.value, "unit": c.metric.unit,
                         "scale": c.scale} for c in wp.computed]}


def _redacted(reply: dict[str, Any]) -> dict[str, Any]:
    """The last pass over a reply: its messages (reasons, notes, the trace) carry no secret of a URL or a key. The
    documents' own text (answer, quotes, results) is left as written."""
    return {k: redact_json(v) if k in ("reasons", "message", "unsupported", "steps", "trace") else v
            for k, v in reply.items()}


def key_ok(headers: dict[str, str], key: str) -> bool:
    given = headers.get("x-api-key") or ""
    auth = headers.get("authorization") or ""
    if auth.lower().startswith("bearer "):
        given = given or auth[7:].strip()
    return bool(given) and hmac.compare_digest(given.encode("utf-8", "replace"), key.encode())


class Guard:
    """ASGI middleware in front of every /api route: the key is checked before a byte of the body is read, the body
    is read at most MAX_BODY bytes (413 beyond), and an unexpected error becomes a 500 with one masked log line —
    never a traceback in the response or the log."""

    def __init__(self, app, key: str):
        self.app, self.key = app, key

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not key_ok(headers, self.key):
            return await JSONResponse({"error": UNAUTHORISED}, status_code=401)(scope, receive, send)
        body, more = b"", True
        while more:
            msg = await receive()
            body += msg.get("body", b"")
            more = msg.get("more_body", False)
            if len(body) > MAX_BODY:
                return await JSONResponse({"error": f"the body is over {MAX_BODY // 1024} KB"},
                                          status_code=413)(scope, receive, send)
        sent, replayed = [False], [False]

        async def replay():
            if replayed[0]:
                return await receive()
            replayed[0] = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def tracked(message):
            sent[0] = sent[0] or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, replay, tracked)
        except Exception as exc:  # the route's own errors are answered by the handlers; this is the rest
            from rag.store.transports import one_line

            log.error("unexpected error: %s: %s", type(exc).__name__, redact(one_line(exc)))
            if not sent[0]:
                await JSONResponse({"error": f"internal error ({type(exc).__name__}); the server log has the "
                                             "details"}, status_code=500)(scope, receive, send)


def _one_line(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = list(e.get("loc", ()))
        if e.get("type") == "json_invalid":
            parts.append(f"the body is not valid JSON (at character {loc[-1]})" if len(loc) > 1
                         else "the body is not valid JSON")
            continue
        where = ".".join(str(x) for x in loc if x != "body")
        msg = str(e.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{where}: {msg}" if where else f"the body must be a JSON object ({msg})")
    return "; ".join(parts)


def create_app(settings: Settings | None = None, api_key: str | None = None) -> FastAPI:
    """The app; `api_key` defaults to RAG_API_KEY. Without a key it refuses to be created."""
    import os

    key = api_key if api_key is not None else os.environ.get("RAG_API_KEY", "")
    if not key.strip():
        raise RagError(MISSING_KEY)
    if len(key) < 16 or not key.isascii() or not key.isprintable() or any(c.isspace() for c in key):
        raise RagError(WEAK_KEY)
    state: dict[str, Service] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        state["service"] = Service(settings or settings_from_env())
        yield
        state.clear()

    app = FastAPI(title="Research assistant API", version="1", lifespan=lifespan, redirect_slashes=False,
                  description="Answers and search over the library, with the app's settings.")
    app.add_middleware(Guard, key=key)

    def authorised(request: Request) -> Service:
        if not key_ok(dict(request.headers), key):  # Guard checked it already; a route never relies on that alone
            raise StarletteHTTPException(401, UNAUTHORISED)
        return state["service"]

    _routes(app, authorised)
    _errors(app)
    return app


def _routes(app: FastAPI, authorised) -> None:
    @app.get("/api/health")
    def health(svc: Service = Depends(authorised)) -> dict[str, Any]:
        return {"status": "ok", "store": svc.store.kind, "documents": len(svc.store.list_documents())}

    @app.get("/api/documents")
    def documents(svc: Service = Depends(authorised)) -> list[dict[str, Any]]:
        return [d.to_json() for d in svc.store.list_documents()]

    @app.post("/api/answer")
    def answer(req: AnswerRequest, svc: Service = Depends(authorised)) -> dict[str, Any]:
        return svc.answer(req)

    @app.post("/api/search")
    def search(req: SearchRequest, svc: Service = Depends(authorised)) -> dict[str, Any]:
        return svc.search(req)

    @app.get("/api/facts")
    def facts(company: str | None = Query(None, max_length=200), report: int | None = Query(None, ge=1),
              svc: Service = Depends(authorised)) -> dict[str, Any]:
        """An issuer's (or a report's) workpaper: values by period with sources, restatements, footing, metrics."""
        return _redacted(workpaper_json(svc.workpaper(company, report)))

    @app.get("/api/facts/export")
    def facts_export(company: str | None = Query(None, max_length=200), report: int | None = Query(None, ge=1),
                     svc: Service = Depends(authorised)) -> Response:
        """The workpaper as an Excel workbook, with its metrics as live formulas."""
        from rag.workpaper.workbook import workbook_bytes

        wp = svc.workpaper(company, report)
        name = re.sub(r"[^A-Za-z0-9_-]+", "_", company or f"report_{report}")[:60] + "_workpaper.xlsx"
        return Response(workbook_bytes(wp.history, wp.checks, wp.computed), media_type=XLSX,
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _errors(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": redact(_one_line(exc))}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        msg = exc.detail if exc.status_code != 404 else "no such route: POST /api/answer, POST /api/search, " \
                                                        "GET /api/documents, GET /api/health"
        return JSONResponse({"error": redact(str(msg))}, status_code=exc.status_code)

    @app.exception_handler(RagError)
    async def rag_error(_request: Request, exc: RagError) -> JSONResponse:
        return JSONResponse({"error": " ".join(redact(str(exc)).split())}, status_code=400)


class SlowClientTimeouts(H11Protocol):
    """uvicorn's h11 protocol with the deadlines uvicorn lacks (it times out only an idle keep-alive connection): a
    request's headers must be complete within `header_s` of the connection (or of the previous response), its body
    within `body_s` of its headers; a client that sends a byte now and then does not move them. Past either, the
    client gets a 408 (unless its response has begun) and the connection is closed. No deadline runs while a request
    is answered: that is the app's time, not the client's."""

    header_s: float = 10.0
    body_s: float = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._owed: str | None = None  # what the client owes now: "headers", "body" or nothing

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._follow()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._follow()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._follow()

    def connection_lost(self, exc: Exception | None) -> None:
        self._arm(None)
        super().connection_lost(exc)

    def _follow(self) -> None:
        """The client's state in h11 says what it owes: IDLE a request's headers, SEND_BODY its body; a deadline is
        armed when that changes, never pushed back by more bytes of the same part."""
        state = self.conn.their_state
        owed = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if owed != self._owed:
            self._arm(owed)

    def _arm(self, owed: str | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._owed, self._deadline = owed, None
        if owed is not None and not self.transport.is_closing():
            self._deadline = self.loop.call_later(self.header_s if owed == "headers" else self.body_s, self._expired)

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        seconds = self.header_s if self._owed == "headers" else self.body_s
        log.info("closed a connection from %s: the request's %s took over %g s", self.client, self._owed, seconds)
        if self.cycle is None or not self.cycle.response_started or self.cycle.response_complete:
            body = json.dumps({"error": f"the request's {self._owed} did not arrive within {seconds:g} s"}).encode()
            self.transport.write(b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                                 b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body))
        self.transport.close()


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000, announce=None) -> None:
    """uvicorn with the limits of settings.api: header and body deadlines (SlowClientTimeouts), the keep-alive
    timeout, and a cap on connections (503 beyond it). Its log lines go to the root handlers, redacted. `announce`
    is called once the app is built (its key checked), so "serving on" is never said before a refusal."""
    import uvicorn

    app = create_app(settings)
    if announce is not None:
        announce()
    cfg: ApiSettings = settings.api
    protocol = type("SlowClientTimeouts", (SlowClientTimeouts,), {"header_s": cfg.header_timeout_s,
                                                                   "body_s": cfg.body_timeout_s})
    if not logging.getLogger().handlers:  # called outside the CLI: one plain handler, so uvicorn's warnings are seen
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    redact_logs()
    uvicorn.run(app, host=host, port=port, log_level="warning", log_config=None, http=protocol, ws="none",
                timeout_keep_alive=cfg.keep_alive_s, limit_concurrency=cfg.max_connections)
