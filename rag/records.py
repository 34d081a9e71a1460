"""Typed records, parsed once at the store boundary: a document's metadata, a search hit, a candidate (the hit with
its factors, relevance and final score), a figure hit, a related document and a refusal. No chunk, document or
figure row is read by its string keys past the store (statistics rows, such as doctor's checks, stay plain);
`to_json()` gives the stable JSON shapes."""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field, fields
from typing import Any, NotRequired, TypedDict

from rag.domain import years_of


@functools.cache
def _init_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls) if f.init)


def _take(cls: type, row: dict[str, Any]) -> dict[str, Any]:
    names = _init_names(cls)
    return {k: v for k, v in row.items() if k in names}


def _iso(v: Any) -> str | None:
    if v is None:
        return None
    return v.isoformat() if isinstance(v, (dt.date, dt.datetime)) else str(v)


def _dated(r: dict[str, Any]) -> dict[str, Any]:
    """A row's dates as ISO strings, whichever transport returned them (date objects or JSON strings)."""
    for key in ("published_date", "uploaded_at"):
        if key in r:
            r[key] = _iso(r[key])
    return r


@dataclass(slots=True)
class DocumentMeta:
    """One document's metadata: a row of list_documents() (what the store knows of it), and what ingestion
    detects before storing it (rag.ingest.metadata.detect: document_id 0, and the issuer's other names in
    `aliases`, which the store keeps in the document's meta). Mutable while ingestion detects it; read-only by
    convention once read from the store."""
    document_id: int
    file_name: str
    title: str | None = None
    company: str | None = None
    company_key: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    doc_type: str = "other"
    published_date: str | None = None
    uploaded_at: str | None = None
    sha256: str | None = None
    page_count: int = 0
    ocr_pages: int = 0
    embedding_model: str | None = None
    status: str | None = None
    chunks: int = 0
    figures: int = 0
    # Every year a reader may call this document's fiscal year: the issuer's own label ("Fourth Quarter Fiscal
    # 2022"), the year its fiscal year ends and the year its period ends (a retailer whose year ends in January).
    year_labels: tuple[int, ...] = ()
    authors: tuple[str, ...] = ()  # a paper's authors, in printed order (rag.ingest.titles)
    aliases: tuple[str, ...] = ()  # every name the document gives its issuer (rag.ingest.names)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DocumentMeta:
        r = _dated(_take(cls, row))
        r["year_labels"] = tuple(r.get("year_labels") or ())
        r["authors"] = tuple(r.get("authors") or ())
        r["doc_type"] = r.get("doc_type") or "other"
        return cls(**r)

    @property
    def years(self) -> set[int]:
        return years_of(self)

    def to_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["year_labels"] = list(self.year_labels) or None
        out["authors"] = list(self.authors) or None
        del out["aliases"]  # ingestion's: a stored row's names are the issuers' (rag.issuers)
        return out


@dataclass(slots=True)
class Hit:
    """A row of match_chunks(): one chunk with its document's metadata and the SQL search's scores."""
    chunk_id: int
    document_id: int
    chunk_index: int
    page_start: int
    page_end: int
    heading: str | None
    section_type: str
    content: str
    file_name: str
    token_count: int | None = None
    title: str | None = None
    company: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    doc_type: str | None = None
    published_date: str | None = None
    uploaded_at: str | None = None
    cosine_similarity: float = 0.0
    text_rank: float = 0.0
    semantic_rank: int | None = None
    full_text_rank: int | None = None
    fused_score: float = 0.0

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Hit:
        r = _dated(_take(cls, row))
        r["text_rank"] = float(r.get("text_rank") or 0.0)
        r["cosine_similarity"] = float(r.get("cosine_similarity") or 0.0)
        r["fused_score"] = float(r.get("fused_score") or 0.0)
        return cls(**r)

    @property
    def pages(self) -> list[int]:
        return list(range(self.page_start, self.page_end + 1))


@dataclass(slots=True)
class Candidate(Hit):
    """A hit in the reranked pool: the document's issuer and year labels, the pool score it entered with
    (`fused`: a title search's hit enters at most at the pool's median), each factor with its reason, the relevance
    the threshold reads and the final score."""
    company_key: str | None = None
    year_labels: tuple[int, ...] = ()
    fused: float = 0.0
    factors: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    relevance: float = 0.0
    final: float = 0.0
    mmr: float | None = None

    @classmethod
    def of(cls, hit: Hit, doc: DocumentMeta | None, fused: float | None = None) -> Candidate:
        """A hit joined with its document's metadata."""
        base = {f.name: getattr(hit, f.name) for f in fields(Hit)}
        if doc is not None:
            base["doc_type"] = doc.doc_type
        labels = tuple(sorted((doc.years if doc else set()) | years_of(hit)))
        return cls(**base, company_key=doc.company_key if doc else None, year_labels=labels,
                   fused=hit.fused_score if fused is None else fused)

    @property
    def years(self) -> set[int]:
        return years_of(self)


@dataclass(slots=True)
class FigureHit:
    """A row of match_figures(): a figure linked to a chunk, or close to the question by itself."""
    figure_id: int
    document_id: int
    page: int
    file_name: str
    chunk_id: int | None = None
    kind: str | None = None
    caption: str | None = None
    ocr_text: str | None = None
    chart_type: str | None = None
    bbox: list[float] | None = None
    similarity: float = 0.0
    linked: bool = False
    why_shown: str = ""
    figure_kind: str | None = None  # chart | diagram | table | photo | logo | decoration | map | cover
    kind_why: str = ""
    context: str | None = None
    own_similarity: float = 0.0  # the question against the figure's own words (caption, title, legend, labels)
    # what the question asks about (no issuer name, no "show me a chart": rag.words.measure_text) against them
    measure_similarity: float | None = None
    named: bool = False  # the question names it by its number ("Figure 3"): figures_numbered()

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FigureHit:
        r = _take(cls, row)
        r["similarity"] = float(r.get("similarity") or 0.0)
        r["linked"] = bool(r.get("linked"))
        return cls(**r)

    def score(self, linked_bonus: float) -> float:
        """How well the figure answers the question: its stored vector (caption, the paragraph around it, its
        text), its own words alone against what the question asks about (charts side by side share their paragraph,
        not their title and legend), and a bonus when a chosen passage holds it."""
        own = self.own_similarity if self.measure_similarity is None else self.measure_similarity
        return self.similarity + own + (linked_bonus if self.linked else 0.0)


@dataclass(slots=True)
class Fact:
    """One value of a table row, with its label, period, unit and where it is printed: a row of match_facts(), or a
    fact ingestion reads from a table (rag.ingest.facts.facts_of_table: no ids yet, and the chunk it is printed in
    by its index, `chunk_index`, which the store turns into chunk_id)."""
    fact_id: int
    document_id: int
    chunk_id: int | None
    page: int
    label: str
    label_path: str
    col_header: str
    period: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    is_change: bool
    value: float
    raw: str
    unit: str | None
    scale: float
    table_title: str
    row_text: str
    col: int = 0  # 0-based among the row's values
    rank: float = 0.0
    chunk_index: int = -1  # while ingesting: the chunk's index in its document

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Fact:
        r = _take(cls, row)
        for k in ("value", "scale", "rank"):
            r[k] = float(r.get(k) or 0.0) if k != "scale" else float(r.get(k) or 1.0)
        r["is_change"] = bool(r.get("is_change"))
        return cls(**r)

    @property
    def scaled(self) -> float:
        """The value in its unit ("in millions" applied)."""
        return self.value * self.scale

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "chunk_index"}

    def to_row(self) -> FactRow:
        """The row ingest_document (and replace_document_facts) stores for it."""
        return {"label": self.label, "label_path": self.label_path, "col_header": self.col_header,
                "period": self.period, "fiscal_year": self.fiscal_year, "fiscal_period": self.fiscal_period,
                "is_change": self.is_change, "value": self.value, "raw": self.raw, "unit": self.unit,
                "scale": self.scale, "table_title": self.table_title[:200], "row_text": self.row_text[:500],
                "page": self.page, "column": self.col}


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A table's column: its header as printed (the header rows above it joined, top first) and the period it reads
    as ("FY2023", "Q2 FY2024", "2023 vs 2022"), or none."""
    header: str
    period: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None  # FY | Q1..Q4 | H1 | 9M | None
    is_change: bool = False

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> TableColumn:
        return cls(**_take(cls, row))

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class TableCell:
    """A value cell of a row: as printed, as read (with the sign of its parentheses), and the unit and scale it is in
    (the cell's own, else the row's, else the table's). `column` is its column in the table's columns, None when the
    row's cells do not line up with the header."""
    raw: str
    value: float
    unit: str | None
    scale: float
    column: int | None
    position: int  # 0-based among the row's value cells

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> TableCell:
        r = _take(cls, row)
        r["value"], r["scale"] = float(r["value"]), float(r.get("scale") or 1.0)
        return cls(**r)

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class TableRow:
    """A row of a table: its label, the group labels above it (top first) and its value cells, where it is printed."""
    label: str
    groups: tuple[str, ...]
    cells: tuple[TableCell, ...]
    page: int
    chunk_index: int
    text: str  # the row as the layout cut it ("label | v1 | v2")
    sub: str = ""  # under periods that span several columns, the column this row was cut from ("Net", "column 2 of 3")

    @property
    def label_path(self) -> str:
        return " › ".join((*self.groups, self.label))

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> TableRow:
        return cls(row["label"], tuple(row.get("groups") or ()), tuple(TableCell.from_json(c) for c in row["cells"]),
                   int(row["page"]), int(row["chunk_index"]), row.get("text") or "", row.get("sub") or "")

    def to_json(self) -> dict[str, Any]:
        out = {"label": self.label, "groups": list(self.groups), "cells": [c.to_json() for c in self.cells],
               "page": self.page, "chunk_index": self.chunk_index, "text": self.text}
        if self.sub:
            out["sub"] = self.sub
        return out


@dataclass(frozen=True, slots=True)
class Table:
    """A table as a record, read once at ingestion (rag/ingest/facts.py) and stored with its document (sql/migrations/001_baseline.sql (doc_tables)):
    a title, the unit and scale its header or caption states, its columns (with their periods) and its rows (with
    their label paths and cells). Every table fact derives from one of these."""
    title: str
    unit: str | None
    scale: float
    stub: str  # the header's first cell ("(in millions, except per share data)", "Key figures")
    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]
    table_id: int | None = None
    document_id: int | None = None
    table_no: int = 0  # its order in the document

    @property
    def page_start(self) -> int:
        return min((r.page for r in self.rows), default=0)

    @property
    def page_end(self) -> int:
        return max((r.page for r in self.rows), default=0)

    @property
    def chunk_indexes(self) -> list[int]:
        return sorted({r.chunk_index for r in self.rows})

    def grid(self) -> tuple[list[str], list[list[str]]]:
        """The table as a grid of text for display: a header (row label, then each column) and one line per row,
        each value as printed under its column (a row that does not line up lists its values from the left)."""
        head = ["" if not self.stub else self.stub] + [c.header for c in self.columns]
        width = max([len(self.columns)] + [(c.column if c.column is not None else c.position) + 1
                                             for r in self.rows for c in r.cells])
        head += [""] * (width - len(self.columns))
        lines = []
        for r in self.rows:
            vals = [""] * width
            for c in r.cells:
                vals[c.column if c.column is not None else c.position] = c.raw
            lines.append([r.label_path] + vals)
        return head, lines

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Table:
        cols, rows = row.get("columns") or [], row.get("rows") or []
        return cls(row.get("title") or "", row.get("unit"), float(row.get("scale") or 1.0), row.get("stub") or "",
                   tuple(TableColumn.from_json(c) for c in cols), tuple(TableRow.from_json(r) for r in rows),
                   row.get("table_id"), row.get("document_id"), int(row.get("table_no") or 0))

    def to_json(self) -> dict[str, Any]:
        return {"table_id": self.table_id, "document_id": self.document_id, "table_no": self.table_no,
                "title": self.title, "unit": self.unit, "scale": self.scale, "stub": self.stub,
                "columns": [c.to_json() for c in self.columns], "rows": [r.to_json() for r in self.rows],
                "page_start": self.page_start, "page_end": self.page_end, "chunk_indexes": self.chunk_indexes}


@dataclass(frozen=True, slots=True)
class Related:
    """A row of related_documents_graph(): another period's document of the same issuer."""
    document_id: int
    relation: str  # previous_period | next_period
    depth: int
    file_name: str
    company: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    doc_type: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Related:
        return cls(**_take(cls, row))

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True, slots=True)
class ConversationInfo:
    """A row of list_conversations(): one conversation of the caller's workspace."""
    conversation_id: int
    title: str
    created_at: str | None = None
    updated_at: str | None = None
    turns: int = 0

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ConversationInfo:
        r = _take(cls, row)
        for key in ("created_at", "updated_at"):
            r[key] = _iso(r.get(key))
        return cls(**r)


@dataclass(frozen=True, slots=True)
class Turn:
    """A row of get_conversation(): a question, its answer as `ask --json` gives it, the follow-ups offered."""
    turn: int
    question: str
    answer: dict
    follow_ups: tuple[str, ...] = ()
    created_at: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Turn:
        """A jsonb answer arrives as a dict (psycopg, PostgREST) or as text (some drivers)."""
        import json

        answer = row["answer"]
        return cls(int(row["turn"]), row["question"], json.loads(answer) if isinstance(answer, str) else dict(answer),
                   tuple(row.get("follow_ups") or ()), _iso(row.get("created_at")))


INSUFFICIENT = "insufficient_data"  # the confidence of an answer that refuses
CONFIDENCES = ("high", "medium", "low", INSUFFICIENT)  # an answer's confidence, from the strongest
REFUSAL_OPENING = "Insufficient data"  # how every refusal reads, for a reader and for the code that parses one


def refusal_text(why: str) -> str:
    """The one wording of a refusal: "Insufficient data: <why>."."""
    return f"{REFUSAL_OPENING}: {why.rstrip('.')}."


def refusal_reason(text: str) -> str | None:
    """The reason a refusal gives ("the documents do not mention 'X'"), or None when the text does not refuse (an
    LLM's reply is read with it)."""
    m = re.match(rf"\s*{REFUSAL_OPENING}\b:?\s*", text, re.I)
    return text[m.end():].rstrip(".").strip() if m else None


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why nothing is answered: the message shown, and the nearest passages (for "Nearest pages: …")."""
    message: str
    nearest: tuple[Candidate, ...] = ()


# -- rows that cross the store boundary as dicts (SQL functions take and give JSON) ------------------------------

SqlRows = list[dict[str, Any]]  # raw rows of a query passed straight through (a user's SQL, doctor's checks): never
#                                read field by field by the code that passes them on


class FactRow(TypedDict):
    """One fact as ingest_document and replace_document_facts store it (rag.records.Fact.to_row)."""
    label: str
    label_path: str
    col_header: str
    period: str | None
    fiscal_year: int | None
    fiscal_period: str | None
    is_change: bool
    value: float
    raw: str
    unit: str | None
    scale: float
    table_title: str
    row_text: str
    page: int
    column: int
    chunk_index: NotRequired[int]  # replace_document_tables: the chunk it is printed in, by its index


class ChunkRow(TypedDict):
    """One chunk as ingest_document stores it, with its embedding (pgvector text) and its table facts."""
    chunk_index: int
    page_start: int
    page_end: int
    heading: str
    section_type: str | None
    context: str
    content: str
    token_count: int
    embedding: str
    facts: list[FactRow]


class FigureRow(TypedDict):
    """One figure as ingest_document stores it: the image as base64 PNG, with its embedding."""
    chunk_index: int | None
    page: int
    bbox: list[float]
    kind: str
    caption: str | None
    context: str | None
    ocr_text: str | None
    chart_type: str | None
    image_b64: str
    sha256: str
    width: int
    height: int
    embedding: str
    figure_kind: str | None
    kind_why: str | None
    signals: Any


class StoredChunk(TypedDict):
    """A row of document_chunks(): a stored chunk's index, pages, heading and text (to read its facts again)."""
    chunk_index: int
    page_start: int
    page_end: int
    heading: str | None
    content: str


class StoredFigure(TypedDict):
    """A row of figures_of_document() (an admin's): a stored figure's region and what was read of it."""
    id: int
    page: int
    bbox: list[float]
    kind: str  # vector | raster
    caption: str | None
    ocr_text: str | None
    image_b64: str


class CropUpdate(TypedDict):
    """One figure's new display crop, for set_figure_images()."""
    id: int
    image_b64: str
    width: int
    height: int


class JobRow(TypedDict):
    """A row of list_ingest_jobs(): one ingestion job of the caller's workspace (never the file's bytes)."""
    id: int
    file_name: str
    status: str  # queued | running | done | failed
    stage: str | None
    done: int
    total: int
    attempts: int
    document_id: int | None
    error: str | None
    summary: Any
    size_bytes: int | None
    created_at: Any
    started_at: Any
    updated_at: Any
    finished_at: Any

