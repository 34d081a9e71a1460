"""Several retrieval steps for one question.

- Offline (no LLM): a deterministic plan — the question's own search, then one sub-search per named company /
  period that the first search did not cover, and, for change-over-time questions about one issuer, its
  related documents (previous / next periods) — merged into one evidence list.
- With an LLM that supports tools: a loop of at most `max_steps` calls over search_chunks, search_figures,
  get_related_documents, list_documents and run_sql, ending in answer_with_evidence.
Every step (name, arguments, milliseconds, result summary) is returned and, when configured, appended to a log."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

from rag.answer.labels import document_label, source_label
from rag.answer.model import Evidence
from rag.config import Settings
from rag.retrieve.pipeline import retrieve
from rag.retrieve.rerank import years_of
from rag.retrieve.search import SearchFilters

_CHANGE = re.compile(r"\b(change[sd]?|trend|over time|grow(n|th)?|declin\w*|improv\w*|increas\w*|decreas\w*|"
                     r"compared? (to|with)|versus|vs\.?|year[- ]over[- ]year|prior year|previous year)\b", re.I)


def _log(settings: Settings, step: dict, tool_loop: bool = False) -> None:
    """Append a step to the steps log: the configured file, or (for the LLM tool loop, always logged) the file
    llm_steps.jsonl in the data folder."""
    path = settings.llm.steps_log or (Path(settings.db.data_dir) / "llm_steps.jsonl" if tool_loop else None)
    if path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("a") as f:
            f.write(json.dumps(step, default=str) + "\n")


def _summary(r) -> str:
    docs = sorted({document_label(c) for c in r.chunks})
    return f"{len(r.chunks)} passage(s) from {', '.join(docs[:4])}" if r.chunks else (r.message or "nothing found")


def plan_retrieval(store, embedder, question: str, settings: Settings, filters: SearchFilters | None,
                   history: list[str] | None, documents: list[dict] | None = None):
    docs = documents if documents is not None else store.list_documents()
    steps: list[dict] = []

    def run(q: str, f: SearchFilters | None, label: str):
        t0 = time.perf_counter()
        r = retrieve(store, embedder, q, settings.retrieval, f, history, documents=docs)
        step = {"step": len(steps) + 1, "tool": "search_chunks", "args": {"query": q, "filters": label},
                "ms": round((time.perf_counter() - t0) * 1000, 1), "summary": _summary(r)}
        steps.append(step)
        _log(settings, step)
        return r

    r = run(question, filters, "from the question")
    it = r.intent
    if r.refused or filters and (filters.document_ids or filters.companies):
        return r, steps
    have = {(c.get("company_key"), y) for c in r.chunks for y in years_of(c)}
    have_co = {c.get("company_key") for c in r.chunks}
    subs: list[tuple[SearchFilters, str]] = []
    if len(it.companies) > 1 or (it.compare and len(it.years) > 1):
        for co in it.companies or [None]:
            for y in (it.years if it.compare and len(it.years) > 1 else [None]):
                covered = (co in have_co) if y is None else ((co, y) in have if co else any(h[1] == y for h in have))
                if covered:
                    continue
                ids = [d["document_id"] for d in docs if (co is None or d.get("company_key") == co)
                       and (y is None or y in years_of(d))]
                if ids:
                    subs.append((SearchFilters(document_ids=ids), f"{co or 'any company'} {y or ''}".strip()))
    elif len(it.companies) == 1 and _CHANGE.search(question) and len({c["document_id"] for c in r.chunks}) == 1:
        top = r.chunks[0]["document_id"]
        t0 = time.perf_counter()
        rel = store.rpc("related_documents_graph", {"p_document_id": top, "p_max_depth": 1})
        step = {"step": len(steps) + 1, "tool": "get_related_documents", "args": {"document_id": top, "depth": 1},
                "ms": round((time.perf_counter() - t0) * 1000, 1), "summary": f"{len(rel)} related document(s)"}
        steps.append(step)
        _log(settings, step)
        prev = [x["document_id"] for x in rel if x["relation"] == "previous_period"]
        if prev:
            subs.append((SearchFilters(document_ids=prev), "previous period"))
    for f, label in subs[:4]:
        sub = run(question, f, label)
        seen = {c["chunk_id"] for c in r.chunks}
        extra = [c for c in sub.chunks if c["chunk_id"] not in seen][:2]
        r.chunks.extend(extra)
        r.figures.extend(x for x in sub.figures if x["figure_id"] not in {y["figure_id"] for y in r.figures})
    return r, steps


TOOLS = [
    {"type": "function", "function": {
        "name": "search_chunks", "description": "Hybrid search over the documents' passages.",
        "parameters": {"type": "object", "properties": {
            "query": {"type": "string"},
            "company": {"type": "string", "description": "company name, optional"},
            "year": {"type": "integer", "description": "fiscal year, optional"},
            "document_ids": {"type": "array", "items": {"type": "integer"}}}, "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "search_figures", "description": "Charts and figures matching a description.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
    {"type": "function", "function": {
        "name": "get_related_documents", "description": "Previous / next periods of a document (depth up to 3).",
        "parameters": {"type": "object", "properties": {"document_id": {"type": "integer"},
                                                        "depth": {"type": "integer"}}, "required": ["document_id"]}}},
    {"type": "function", "function": {
        "name": "list_documents", "description": "Every document with company, type, fiscal year and counts.",
        "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {
        "name": "run_sql", "description": "One read-only SELECT over the views v_documents, v_chunks, v_figures.",
        "parameters": {"type": "object", "properties": {"sql": {"type": "string"}}, "required": ["sql"]}}},
    {"type": "function", "function": {
        "name": "answer_with_evidence", "description": "The final answer with [n] markers and exact quotes.",
        "parameters": {"type": "object", "properties": {
            "answer": {"type": "string"},
            "citations": {"type": "array", "items": {"type": "object", "properties": {
                "marker": {"type": "integer"}, "quote": {"type": "string"}}}}}, "required": ["answer"]}}},
]


def tool_answer(store, embedder, question, settings: Settings, filters, history, on_token=None, documents=None,
                client=None):
    """The LLM tool loop; None when the server does not do tool calls (the caller answers in one shot)."""
    import openai

    from rag.answer import prompts
    from rag.answer.core import finish_llm, insufficient
    from rag.answer.llm import LLMError, make_client, parse_reply
    from rag.ingest.metadata import company_key
    from rag.sqlguard import SqlRejected, run_readonly

    cfg = settings.llm
    client = client or make_client(cfg)
    docs = documents if documents is not None else store.list_documents()
    messages = [{"role": "system", "content": prompts.TOOLS_SYSTEM.format(max_steps=cfg.max_steps)},
                {"role": "user", "content": question}]
    evidence: list[Evidence] = []
    chunk_marker: dict[int, int] = {}
    all_chunks: dict[int, dict] = {}
    steps: list[dict] = []
    last_r = None
    t_start = time.perf_counter()
    for _ in range(cfg.max_steps):
        try:
            resp = client.chat.completions.create(model=cfg.model, messages=messages, tools=TOOLS,
                                                  temperature=cfg.temperature, max_tokens=cfg.max_tokens)
        except (openai.BadRequestError, openai.NotFoundError, openai.UnprocessableEntityError):
            return None  # no tool calls on this server: the caller answers in one shot
        except openai.APITimeoutError as exc:
            raise LLMError(f"the LLM did not answer within {cfg.timeout_s:.0f} s") from exc
        except openai.APIConnectionError as exc:
            raise LLMError(f"cannot reach the LLM server at {cfg.base_url}") from exc
        except openai.APIStatusError as exc:
            if exc.status_code >= 500 and not steps:
                return None  # some servers fail on the tools field itself
            raise LLMError(f"the LLM server answered HTTP {exc.status_code}") from exc
        msg = resp.choices[0].message
        calls = msg.tool_calls or []
        if not calls:
            if not evidence:
                return None
            reply = parse_reply(msg.content or "")
            break
        messages.append({"role": "assistant", "content": msg.content or "",
                         "tool_calls": [{"id": c.id, "type": "function", "function": {
                             "name": c.function.name, "arguments": c.function.arguments}} for c in calls]})
        reply = None
        for call in calls:
            t0 = time.perf_counter()
            try:
                args = json.loads(call.function.arguments or "{}")
            except json.JSONDecodeError:
                args = {}
            name = call.function.name
            if name == "answer_with_evidence":
                reply = {"answer": str(args.get("answer", "")), "citations": [
                    {"marker": int(c.get("marker", 0)), "quote": str(c.get("quote", ""))}
                    for c in args.get("citations") or [] if isinstance(c, dict)], "inferred": "",
                    "insufficient": False, "malformed": False}
                result = "ok"
            elif name == "search_chunks":
                f = SearchFilters()
                if args.get("company"):
                    f.companies = [company_key(args["company"])]
                if args.get("year"):
                    f.year_min = f.year_max = int(args["year"])
                if args.get("document_ids"):
                    f.document_ids = [int(x) for x in args["document_ids"]]
                last_r = retrieve(store, embedder, str(args.get("query") or question), settings.retrieval,
                                  f if (f.companies or f.year_min or f.document_ids) else filters, history,
                                  documents=docs)
                lines = []
                for c in last_r.chunks:
                    all_chunks.setdefault(c["chunk_id"], c)
                    if c["chunk_id"] not in chunk_marker:
                        chunk_marker[c["chunk_id"]] = len(evidence) + 1
                        evidence.append(Evidence(marker=len(evidence) + 1, document=document_label(c),
                                                 file_name=c["file_name"], document_id=c["document_id"],
                                                 pages=list(range(c["page_start"], c["page_end"] + 1)),
                                                 chunk_id=c["chunk_id"], quote="", source=source_label(c),
                                                 text=c["content"]))
                    e = evidence[chunk_marker[c["chunk_id"]] - 1]
                    lines.append(f"[{e.marker}] {e.source}\n{e.text}")
                result = "\n\n".join(lines) or (last_r.message or "no passages")
            elif name == "search_figures":
                vec = embedder.encode_query(str(args.get("query") or question))
                figs = store.match_figures(vec, match_count=5)
                result = json.dumps([{k: f[k] for k in ("figure_id", "document_id", "page", "caption")} for f in figs])
            elif name == "get_related_documents":
                rel = store.rpc("related_documents_graph", {"p_document_id": int(args.get("document_id", 0)),
                                                            "p_max_depth": min(3, int(args.get("depth", 3)))})
                result = json.dumps(rel, default=str)
            elif name == "list_documents":
                result = json.dumps([{k: d.get(k) for k in ("document_id", "file_name", "company", "doc_type",
                                                             "fiscal_year", "fiscal_period", "page_count", "figures")}
                                     for d in docs], default=str)
            elif name == "run_sql":
                try:
                    rows = run_readonly(store, str(args.get("sql", "")))
                    result = json.dumps(rows[:50], default=str)
                except SqlRejected as exc:
                    result = f"rejected: {exc}"
            else:
                result = f"unknown tool {name}"
            step = {"step": len(steps) + 1, "tool": name, "args": args,
                    "ms": round((time.perf_counter() - t0) * 1000, 1), "summary": result[:200]}
            steps.append(step)
            _log(settings, step, tool_loop=True)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result[:12000]})
        if reply is not None:
            break
    else:
        reply = None
    if last_r is None:
        return None
    last_r.chunks = list(all_chunks.values()) or last_r.chunks
    if reply is None:  # out of steps: answer once from what was gathered
        from rag.answer.core import llm_answer

        a = llm_answer(last_r, settings, on_token, evidence=evidence, client=client)
    elif not evidence:
        a = insufficient(last_r)
    else:
        a = finish_llm(last_r, reply, evidence, t_start)
    a.steps = steps + a.steps
    a.trace = last_r.trace.to_list()
    a.retrieval = last_r
    return a
