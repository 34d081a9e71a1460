"""The answer object: text with citation markers, evidence, confidence with reasons, figures placed after the
paragraph they support, timings and the retrieval trace. `to_json()` is the stable `ask --json` contract."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Evidence:
    marker: int
    document: str  # readable label ("Boeing 10-K FY2022")
    file_name: str
    document_id: int
    pages: list[int]
    chunk_id: int
    quote: str
    source: str  # "Boeing 10-K FY2022, p. 45, Item 8 › Cash Flows"
    text: str = ""  # the whole chunk (for verification and the prompt), not exported
    verified: bool = False

    def to_json(self) -> dict:
        return {"marker": self.marker, "document": self.document, "file_name": self.file_name,
                "document_id": self.document_id, "pages": self.pages, "chunk_id": self.chunk_id,
                "source": self.source, "quote": self.quote, "verified": self.verified}


@dataclass
class Answer:
    question: str
    answer: str  # markdown with [n] markers; paragraphs separated by blank lines
    confidence: str  # high | medium | low | insufficient_data
    reasons: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    unsupported: list[dict] = field(default_factory=list)  # sentences flagged or dropped, with why
    figures: list[dict] = field(default_factory=list)  # {figure_id, document, page, caption, after_paragraph, why}
    mode: str = "extractive"  # extractive | llm | llm-fallback | sql
    timings_ms: dict = field(default_factory=dict)
    trace: list[dict] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)  # multi-step / tool calls
    numbers_total: int = 0
    numbers_verified: int = 0
    message: str | None = None
    rows: list[dict] | None = None  # structured (SQL) answers
    retrieval: object = field(default=None, repr=False)  # the Retrieval behind it (debug view), not exported

    @property
    def insufficient(self) -> bool:
        return self.confidence == "insufficient_data"

    @property
    def paragraphs(self) -> list[str]:
        return [p for p in self.answer.split("\n\n") if p.strip()]

    def to_json(self, with_trace: bool = False) -> dict:
        out = {
            "question": self.question,
            "answer": self.answer,
            "confidence": self.confidence,
            "reasons": self.reasons,
            "mode": self.mode,
            "evidence": [e.to_json() for e in self.evidence],
            "unsupported": self.unsupported,
            "figures": [{k: f[k] for k in ("figure_id", "document", "file_name", "page", "caption", "after_paragraph",
                                           "why_shown") if k in f} for f in self.figures],
            "numbers": {"total": self.numbers_total, "verified": self.numbers_verified},
            "timings_ms": self.timings_ms,
        }
        if self.message:
            out["message"] = self.message
        if self.rows is not None:
            out["rows"] = self.rows
        if self.steps:
            out["steps"] = self.steps
        if with_trace:
            out["trace"] = self.trace
        return out
