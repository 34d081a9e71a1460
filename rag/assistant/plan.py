"""One plan for a question: a sequence of tool calls that gathers evidence.

- Offline, the sequence is fixed: the question's own search; then one sub-search per named company / period the
  first search did not cover or, for one issuer's change over time, the previous period (get_related_documents);
  each sub-search runs the same retrieval stages with the question already understood and embedded, and what it
  adds is a stage of the first search's trace.
- With an LLM that supports tools, the model chooses the calls (at most `max_steps`), ending in
  answer_with_evidence.
Every step (tool, arguments, milliseconds, result summary) is returned and, when configured, logged."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rag.answer import prompts
from rag.answer.llm import Rejected, llm_errors, make_client, parse_reply
from rag.assistant import tools
from rag.assistant.tools import ToolContext
from rag.domain import years_of
from rag.retrieve.pipeline import Retrieval, refresh_facts, sub_search
from rag.retrieve.search import SearchFilters

if TYPE_CHECKING:  # openai is imported when a model is called
    from openai.types.chat import ChatCompletionMessageParam

_CHANGE = re.compile(r"\b(change[sd]?|trend|over time|grow(n|th)?|declin\w*|improv\w*|increas\w*|decreas\w*|"
                     r"compared? (to|with)|versus|vs\.?|year[- ]over[- ]year|prior year|previous year)\b", re.I)


class PlanMerge:
    """The kind of the trace entry that records a sub-search's chunks joining the first search's
    (`retrieval.trace.of(PlanMerge)` finds the last one)."""
    name = "plan: sub-search"


def offline_plan(ctx: ToolContext) -> Retrieval:
    """The fixed sequence: search the question, then fill what it did not cover."""
    t0 = time.perf_counter()
    r = ctx.search(ctx.question, ctx.filters)
    ctx.record("search_chunks", {"query": ctx.question, "filters": "from the question"}, t0, tools.summary(r))
    f = ctx.filters
    if r.refused or (f and (f.document_ids or f.companies)):
        return r
    first = [c.chunk_id for c in r.chunks]
    for filters, label in _gaps(ctx, r)[: ctx.settings.answer.max_sub_searches]:
        t0 = time.perf_counter()
        sub = sub_search(r, filters)
        ctx.record("search_chunks", {"query": ctx.question, "filters": label}, t0, tools.summary(sub))
        _merge(r, sub, label, ctx.settings.answer.extra_per_sub_search)
    if [c.chunk_id for c in r.chunks] != first:
        refresh_facts(r)  # the facts of the passages the sub-searches added
    return r


def _gaps(ctx: ToolContext, r: Retrieval) -> list[tuple[SearchFilters, str]]:
    """The named companies / periods the first search did not cover, or the previous period of a change."""
    it, docs = r.intent, ctx.docs
    have = {(c.company_key, y) for c in r.chunks for y in years_of(c)}
    have_co = {c.company_key for c in r.chunks}
    subs: list[tuple[SearchFilters, str]] = []
    if it.entities:
        for e in it.entity_pairs:
            co, y = e.company, e.year
            covered = (co in have_co) if y is None else ((co, y) in have if co else any(h[1] == y for h in have))
            if covered:
                continue
            ids = [d.document_id for d in docs if (co is None or d.company_key == co) and (y is None or y in d.years)]
            if ids:
                subs.append((SearchFilters(document_ids=ids), f"{co or 'any company'} {y or ''}".strip()))
    elif len(it.companies) == 1 and _CHANGE.search(ctx.question) and len({c.document_id for c in r.chunks}) == 1:
        top = r.chunks[0].document_id
        t0 = time.perf_counter()
        rel = tools.GetRelatedDocuments.related(ctx, top, 1)
        ctx.record("get_related_documents", {"document_id": top, "depth": 1}, t0, f"{len(rel)} related document(s)")
        prev = [x.document_id for x in rel if x.relation == "previous_period"]
        if prev:
            subs.append((SearchFilters(document_ids=prev), "previous period"))
    return subs


def _merge(r: Retrieval, sub: Retrieval, label: str, extra_chunks: int) -> None:
    """A sub-search's best new chunks (and figures) join the answer's, as a stage of the trace."""
    with r.trace.stage(f"{PlanMerge.name} {label}", PlanMerge, len(r.chunks)) as entry:
        seen = {c.chunk_id for c in r.chunks}
        extra = [c for c in sub.chunks if c.chunk_id not in seen][:extra_chunks]
        r.chunks.extend(extra)
        have = {f.figure_id for f in r.figures}
        r.figures.extend(x for x in sub.figures if x.figure_id not in have)
        entry.n_out = len(r.chunks)
        entry.notes = {"filters": label, "added_chunks": [c.chunk_id for c in extra], "trace": sub.trace.to_list()}


@dataclass
class Gathered:
    """What the LLM's plan gathered: its last search, the evidence (one marker per chunk) and its final reply
    (None when it ran out of steps)."""
    retrieval: Retrieval
    reply: dict[str, Any] | None


def llm_plan(ctx: ToolContext, client=None) -> Gathered | None:
    """The model chooses the tool calls. None when the server does not do tool calls (the caller answers in one
    shot); LLMError when the server fails."""
    import openai

    cfg = ctx.settings.llm
    client = client or make_client(cfg)
    messages: list[ChatCompletionMessageParam] = [
        {"role": "system", "content": prompts.TOOLS_SYSTEM.format(max_steps=cfg.max_steps)},
        {"role": "user", "content": ctx.question}]
    schemas = [t.schema() for t in tools.TOOLS.values()]
    rejected = (openai.BadRequestError, openai.NotFoundError, openai.UnprocessableEntityError)
    reply: dict[str, Any] | None = None
    for _ in range(cfg.max_steps):
        try:  # some servers fail on the tools field itself (a 5xx before any step)
            with llm_errors(cfg, rejected, shape_5xx=not ctx.steps):
                resp = client.chat.completions.create(model=cfg.model, messages=messages, tools=schemas,
                                                      temperature=cfg.temperature, max_tokens=cfg.max_tokens)
        except Rejected:
            return None  # no tool calls on this server
        msg = resp.choices[0].message
        if not msg.tool_calls:
            if not ctx.evidence:
                return None
            reply = parse_reply(msg.content or "")
            break
        reply = _call_tools(ctx, msg, messages)
        if reply is not None:
            break
    last = ctx.last
    if last is None:
        if not ctx.evidence:
            return None
        last = ctx.search(ctx.question, ctx.filters)  # the model only computed: the question's own search frames it
    was = [c.chunk_id for c in last.chunks]
    last.chunks = list(ctx.gathered.values()) or last.chunks
    if [c.chunk_id for c in last.chunks] != was:
        refresh_facts(last)
    return Gathered(last, reply)


def _call_tools(ctx: ToolContext, msg, messages: list[ChatCompletionMessageParam]) -> dict[str, Any] | None:
    """Run the tool calls of one model turn; the final answer's reply when it called answer_with_evidence."""
    calls = msg.tool_calls
    messages.append({"role": "assistant", "content": msg.content or "",
                     "tool_calls": [{"id": c.id, "type": "function", "function": {
                         "name": c.function.name, "arguments": c.function.arguments}} for c in calls]})
    reply = None
    for call in calls:
        t0 = time.perf_counter()
        try:
            raw = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError:
            raw = {}
        raw = raw if isinstance(raw, dict) else {}
        result, args = tools.call(ctx, call.function.name, raw)
        if isinstance(args, tools.AnswerArgs):
            reply = tools.AnswerWithEvidence.reply(args)
        ctx.record(call.function.name, raw, t0, result[:200])
        messages.append({"role": "tool", "tool_call_id": call.id, "content": result[:12000]})
    return reply


__all__ = ["Gathered", "PlanMerge", "llm_plan", "offline_plan"]
