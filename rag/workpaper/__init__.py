"""The analyst's workpaper: an issuer's (or a report's) table values across periods with their sources and
restatements (history), the checks that its tables add up (footing), the metrics computed from them (computed),
and all of it as an Excel workbook with live formulas (workbook).

`load_workpaper` reads it from the store, as the caller: row-level security gives each workspace its own
documents' tables, and no other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rag.errors import RagError
from rag.issuers import display_names, issuers_of
from rag.records import DocumentMeta
from rag.workpaper.computed import Computed, computed_metrics
from rag.workpaper.footing import Check, check_document
from rag.workpaper.history import Embed, History, build_history

__all__ = ["Workpaper", "load_workpaper", "subjects", "History", "Check", "Computed"]


@dataclass
class Workpaper:
    history: History
    checks: list[Check]
    computed: list[Computed]

    def summary(self) -> dict[str, Any]:
        failed = [c for c in self.checks if not c.ok]
        tables = {(c.document_id, c.table_title) for c in self.checks}
        return {"title": self.history.title, "documents": [d.file_name for d in self.history.documents],
                "periods": self.history.periods, "measures": len(self.history.measures),
                "values": sum(len(m.cells) for m in self.history.measures),
                "restated": len(self.history.restatements()), "checks": len(self.checks),
                "tables_checked": len(tables), "checks_failed": len(failed),
                "failed_as_printed": sum(c.verdict == "as printed" for c in failed),
                "failed_likely_misread": sum(c.verdict == "likely misread" for c in failed),
                "metrics": len(self.computed)}


def subjects(docs: list[DocumentMeta]) -> dict[str, str]:
    """What a workpaper can be of: each issuer (key → its name) with two or more documents, and each document
    ("doc:ID" → its file name) — a sustainability report is a subject of its own."""
    names = display_names(docs)
    count: dict[str, int] = {}
    for d in docs:
        if d.company_key:
            count[d.company_key] = count.get(d.company_key, 0) + 1
    out = {k: f"{names.get(k, k)} ({n} documents)" for k, n in sorted(count.items()) if n > 1}
    out.update({f"doc:{d.document_id}": d.file_name for d in sorted(docs, key=lambda d: d.file_name)})
    return out


def _documents_of(store: Any, docs: list[DocumentMeta], company: str | None, document_id: int | None,
                  ) -> tuple[str, list[DocumentMeta]]:
    if document_id is not None:
        found = [d for d in docs if d.document_id == document_id]
        if not found:
            raise RagError(f"no document {document_id} in the library: `python -m rag list` shows the ids")
        return found[0].file_name, found
    if not company or not company.strip():
        raise RagError("name a company (--company NAME) or a document (--report ID)")
    keys = {d.company_key for d in docs if d.company_key}
    key = company.strip().lower() if company.strip().lower() in keys else None
    if key is None:
        named = issuers_of(store, docs).find(company)
        key = named[0].key if named else None
    if key is None:
        raise RagError(f"no issuer named '{company[:60]}' in the library: `python -m rag list` shows the companies")
    return display_names(docs).get(key, key), [d for d in docs if d.company_key == key]


def load_workpaper(store: Any, embed: Embed | None, company: str | None = None, document_id: int | None = None,
                   ) -> Workpaper:
    """The workpaper of an issuer's documents (by any name the library knows it by) or of one document."""
    docs = store.list_documents()
    title, mine = _documents_of(store, docs, company, document_id)
    pairs = [(d, store.document_tables(d.document_id)) for d in mine]
    history = build_history(title, pairs, embed=embed)
    checks = [c for d, tables in pairs for c in check_document(d, tables)]
    return Workpaper(history, checks, computed_metrics(history))
