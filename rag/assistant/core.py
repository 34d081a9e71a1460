"""answer(): the question's plan (tool calls that gather evidence) → the answer's text (extractive offline, or
the LLM's) → the finishing step (verification, confidence, figures, refusal)."""

from __future__ import annotations

import time
from collections.abc import Callable

from rag.answer.compose import fallback, finish_llm, llm_answer
from rag.answer.finalize import insufficient
from rag.answer.llm import LLMError
from rag.answer.model import Answer
from rag.answer.offline import offline_answer
from rag.assistant.plan import llm_plan, offline_plan
from rag.assistant.tools import ToolContext
from rag.config import Settings
from rag.errors import RagError
from rag.language import not_english
from rag.records import DocumentMeta
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.search import SearchFilters

MAX_QUESTION = 2000  # characters


def check_question(question: str) -> str:
    """The question as asked, trimmed; RagError with one line when there is none to answer (empty or only white
    space, too long, a NUL byte): the same refusal on every surface (the Ask page, the API, the CLI)."""
    q = (question or "").strip()
    if not q:
        raise RagError("the question is empty")
    if len(q) > MAX_QUESTION:
        raise RagError(f"the question is longer than {MAX_QUESTION} characters")
    if "\x00" in q:
        raise RagError("the question contains a NUL byte")
    return q


def answer(store, embedder, question: str, settings: Settings | None = None, filters: SearchFilters | None = None,
           history: list[str] | None = None, on_token: Callable[[str], None] | None = None,
           use_llm: bool | None = None, documents: list[DocumentMeta] | None = None) -> Answer:
    """use_llm: None = when one is configured. on_token receives the LLM's streamed text."""
    settings = settings or Settings()
    t0 = time.perf_counter()
    lang = not_english(question)
    if lang:  # the embedding model reads English: one line that says so, not a confident answer about something else
        return Answer.refusal(question, f"this question looks written in {lang}; the assistant reads questions in "
                              "English only (its embedding model is English). Please ask in English",
                              [f"question language: {lang}"])
    llm_on = bool(settings.llm.base_url) if use_llm is None else use_llm
    if llm_on and not (filters and filters.active):
        from rag.assistant.structured import is_structured, sql_answer

        if is_structured(question):  # about the collection itself: text → checked SQL
            return sql_answer(store, question, None, settings)
    docs = documents if documents is not None else store.list_documents()

    def context() -> ToolContext:
        return ToolContext(store, embedder, settings, docs, question, filters, history)

    failure = None
    if llm_on and settings.llm.tools:
        try:
            a = _tool_answer(context(), on_token)
        except LLMError as exc:
            a, failure = None, exc  # no second attempt: the extractive answer, with the reason
        if a is not None:
            a.timings_ms["total"] = round((time.perf_counter() - t0) * 1000, 1)
            return a
    ctx = context()
    r = offline_plan(ctx)
    t_ret = round((time.perf_counter() - t0) * 1000, 1)

    def offline() -> Answer:
        return offline_answer(r, settings, ctx.docs)

    if r.refused or not r.chunks:
        a = insufficient(r)
    elif failure is not None:
        a = fallback(r, str(failure), settings, offline)
    elif llm_on:
        a = llm_answer(r, settings, on_token, offline=offline)
    else:
        a = offline()
    _attach(a, ctx, r)
    a.timings_ms = {"retrieval": t_ret, **a.timings_ms, "total": round((time.perf_counter() - t0) * 1000, 1)}
    return a


def _attach(a: Answer, ctx: ToolContext, r: Retrieval) -> None:
    """The plan's steps, the retrieval and its trace go with every answer."""
    a.steps = ctx.steps + a.steps
    a.trace, a.retrieval = r.trace.to_list(), r


def _tool_answer(ctx: ToolContext, on_token, client=None) -> Answer | None:
    """The LLM's own plan; None when the server does not do tool calls (the caller answers in one shot)."""
    ctx.tool_loop = True
    settings = ctx.settings
    t0 = time.perf_counter()
    got = llm_plan(ctx, client)
    if got is None:
        return None
    r = got.retrieval

    def offline() -> Answer:
        return offline_answer(r, settings, ctx.docs)

    if got.reply is None:  # out of steps: answer once from what was gathered
        a = llm_answer(r, settings, on_token, evidence=ctx.evidence, client=client, question=ctx.question,
                       offline=offline)
    elif not ctx.evidence:
        a = insufficient(r)
    else:
        a = finish_llm(r, got.reply, ctx.evidence, t0, settings, ctx.computed, offline)
    a.question = ctx.question
    _attach(a, ctx, r)
    return a
