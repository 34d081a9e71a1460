"""Questions about the collection itself ("How many sustainability reports are from 2023?", "Which documents
have the most figures?"): with an LLM, natural language → SQL; without one, SQL the user writes. Either way
the SQL goes through rag.sqlguard and the answer cites the rows it summarises."""

from __future__ import annotations

import re
import time

from rag.answer.model import Answer, Step
from rag.config import Settings
from rag.records import SqlRows
from rag.sqlguard import SqlRejected, run_readonly

SCHEMA = """v_documents(document_id, file_name, title, company, fiscal_year, fiscal_period, doc_type
            ['10-K','10-Q','8-K','earnings release','sustainability report','annual report','research paper','other'],
            published_date, uploaded_at, page_count, ocr_pages, chunk_count, figure_count)
v_chunks(chunk_id, document_id, chunk_index, page_start, page_end, heading, section_type, token_count)
v_figures(figure_id, document_id, page, kind ['raster','vector'], caption, chart_type, width, height)"""

_STRUCTURED = re.compile(r"^\s*(how many (documents|reports|filings|papers|10-?[kq]s?|8-?ks?|sustainability|"
                         r"earnings|figures|charts|pages)|which (documents|reports|filings|papers)\b.*\b(most|least|"
                         r"fewest|largest|longest|newest|oldest)|list (all |the )?(documents|reports|filings|papers)|"
                         r"count (the )?(documents|reports|filings|figures))", re.I)


def is_structured(question: str) -> bool:
    return bool(_STRUCTURED.search(question))


def _table(rows: SqlRows, limit: int = 20) -> str:
    if not rows:
        return "(no rows)"
    cols = list(rows[0].keys())
    lines = ["| # | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for i, r in enumerate(rows[:limit], 1):
        lines.append(f"| r{i} | " + " | ".join(str(r[c]) if r[c] is not None else "" for c in cols) + " |")
    if len(rows) > limit:
        lines.append(f"| … | {len(rows) - limit} more row(s) |" + " |" * (len(cols) - 1))
    return "\n".join(lines)


def sql_answer(store, question: str, sql: str | None, settings: Settings) -> Answer:
    t0 = time.perf_counter()
    steps = []
    if sql is None:
        if not settings.llm.base_url:
            return Answer.refusal(question, "structured questions need SQL when no LLM is configured (ask --sql "
                                  "\"SELECT … FROM v_documents …\")", ["no LLM configured to write the SQL"], mode="sql")
        from rag.answer import prompts
        from rag.answer.llm import LLMError, chat

        try:
            text = chat(settings.llm, [{"role": "system", "content": prompts.SQL_SYSTEM.format(schema=SCHEMA)},
                                       {"role": "user", "content": question}])
        except LLMError as exc:
            return Answer.refusal(question, str(exc), [str(exc)], mode="sql")
        m = re.search(r"```(?:sql)?\s*(.+?)```", text, re.S)
        sql = (m.group(1) if m else text).strip().rstrip(";")
        steps.append(Step(1, "text_to_sql", {"question": question}, None, sql[:200]))
    try:
        rows = run_readonly(store, sql)
    except SqlRejected as exc:
        return Answer.refusal(question, f"the SQL was refused — {exc}", [f"SQL refused: {exc}"], mode="sql",
                              steps=steps, message=str(exc))
    if len(rows) == 1 and len(rows[0]) == 1:
        (k, v), = rows[0].items()
        text = f"**{v}** ({k}) [r1]"
    else:
        text = f"{len(rows)} row(s) [r1–r{len(rows)}]:\n\n{_table(rows)}" if rows else "No rows match."
    return Answer(question=question, answer=text, confidence="high" if rows else "low",
                  reasons=[f"{len(rows)} row(s) from a checked read-only query", f"SQL: {sql}"], mode="sql",
                  rows=rows, steps=steps, timings_ms={"total": round((time.perf_counter() - t0) * 1000, 1)})
