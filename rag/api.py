"""The HTTP API: answers and search for notebooks, spreadsheets and other tools (`python -m rag serve`).

FastAPI, because the request bodies are pydantic models like the rest of the settings (validation, one clear message
per bad field, and an OpenAPI page at /docs for free), and it runs on uvicorn, which Streamlit already installs.

- POST /api/answer  {"question", "filters"?, "offline"?, "trace"?}  → the `ask --json` object
- POST /api/search  {"question", "filters"?, "k"?, "raw"?, "trace"?} → the `search --json` object
- GET  /api/documents → the `docs --json` list (ids for the document filter);  GET /api/health

Every /api route needs the key from RAG_API_KEY, sent as `Authorization: Bearer KEY` or `X-API-Key: KEY`. The store,
the workspace and the model come from the same settings as the app (env, RAG_*). A bad request gets a 4xx with
{"error": one line}; no traceback leaves the server and the key is never logged."""

from __future__ import annotations

import hmac
import logging
import threading
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
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

from rag.config import Settings, settings_from_env
from rag.errors import RagError

log = logging.getLogger("rag.api")
MISSING_KEY = "RAG_API_KEY is not set: the API needs a key (export RAG_API_KEY=... and send it as a Bearer token)"
WEAK_KEY = "RAG_API_KEY must be at least 16 printable ASCII characters without spaces (e.g. secrets.token_urlsafe(24))"
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
        if not v.strip():
            raise ValueError("the question is empty")
        return _clean_text(v.strip())


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
        return a.to_json(with_trace=req.trace)

    def search(self, req: SearchRequest) -> dict[str, Any]:
        from rag.retrieve.pipeline import retrieve
        from rag.retrieve.search import hybrid_search

        with self.lock:
            if req.raw:
                return hybrid_search(self.store, self.embedder, req.question, k=req.k or 5,
                                     filters=req.filters.to_search(), cfg=self.settings.retrieval.raw).to_json()
            cfg = self.settings.retrieval.model_copy(update={"k": req.k} if req.k else {})
            return retrieve(self.store, self.embedder, req.question, cfg,
                            filters=req.filters.to_search()).to_json(with_trace=req.trace)


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


def _errors(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _one_line(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        msg = exc.detail if exc.status_code != 404 else "no such route: POST /api/answer, POST /api/search, " \
                                                        "GET /api/documents, GET /api/health"
        return JSONResponse({"error": msg}, status_code=exc.status_code)

    @app.exception_handler(RagError)
    async def rag_error(_request: Request, exc: RagError) -> JSONResponse:
        return JSONResponse({"error": " ".join(str(exc).split())}, status_code=400)


def redact(text: str) -> str:
    """A message fit for a log: no password of a connection URL, no key of ours."""
    import os
    import re

    text = re.sub(r"(://[^:/@\s]+:)[^@\s]+@", r"\1***@", text)
    for name in ("RAG_API_KEY", "SUPABASE_KEY", "OPENAI_API_KEY"):
        secret = os.environ.get(name)
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text


def serve(settings: Settings, host: str = "127.0.0.1", port: int = 8000) -> None:
    import uvicorn

    app = create_app(settings)
    uvicorn.run(app, host=host, port=port, log_level="warning")
