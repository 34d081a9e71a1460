"""Typed records, parsed once at the store boundary: a document's metadata, a search hit, a candidate (the hit with
its factors, relevance and final score), a figure hit, a related document and a refusal. No chunk, document or
figure row is read by its string keys past the store (statistics rows, such as doctor's checks, stay plain);
`to_json()` gives the stable JSON shapes."""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass, field, fields
from typing import Any

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


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """A row of list_documents(): what the store knows of one document."""
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
    year_labels: tuple[int, ...] = ()
    authors: tuple[str, ...] = ()

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

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FigureHit:
        r = _take(cls, row)
        r["similarity"] = float(r.get("similarity") or 0.0)
        r["linked"] = bool(r.get("linked"))
        return cls(**r)


@dataclass(slots=True)
class Fact:
    """A row of match_facts(): one value of a table row, with its label, period, unit and where it is printed."""
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
    col: int = 0
    rank: float = 0.0

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
        return {f.name: getattr(self, f.name) for f in fields(self)}


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


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why nothing is answered: the message shown, and the nearest passages (for "Nearest pages: …")."""
    message: str
    nearest: tuple[Candidate, ...] = ()
