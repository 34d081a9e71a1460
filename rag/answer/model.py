"""The answer object: text with citation markers, evidence, confidence with reasons, figures placed after the
paragraph they support, timings and the retrieval trace. `to_json()` is the stable `ask --json` contract."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rag.answer.labels import document_label, source_label
from rag.answer.verify import Flag
from rag.errors import redact_json
from rag.ingest.chartread import reading_line
from rag.records import INSUFFICIENT, Candidate, FigureHit, SqlRows, refusal_text
from rag.retrieve.trace import TraceEntry

if TYPE_CHECKING:
    from rag.retrieve.pipeline import Retrieval


# The fields an error's text can reach (a reason, a tool's result, a stage's note), redacted once more on the way out;
# the document's own text (answer, quotes) is not a message and is left as written.
_MESSAGES = ("reasons", "message", "unsupported", "steps", "trace")


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

    @classmethod
    def of(cls, c: Candidate, marker: int, quote: str = "") -> Evidence:
        """The evidence a chunk gives under a marker (the one place evidence is built from a chunk)."""
        return cls(marker=marker, document=document_label(c), file_name=c.file_name, document_id=c.document_id,
                   pages=c.pages, chunk_id=c.chunk_id, quote=quote, source=source_label(c), text=c.content)

    def to_json(self) -> dict:
        return {"marker": self.marker, "document": self.document, "file_name": self.file_name,
                "document_id": self.document_id, "pages": self.pages, "chunk_id": self.chunk_id,
                "source": self.source, "quote": self.quote, "verified": self.verified}

    @classmethod
    def from_json(cls, d: dict) -> Evidence:
        return cls(**{k: d[k] for k in ("marker", "document", "file_name", "document_id", "pages", "chunk_id",
                                        "quote", "source")}, verified=bool(d.get("verified")))


@dataclass
class PlacedFigure:
    """A figure shown with an answer: after the paragraph that cites its chunk, with why it is shown."""
    figure_id: int
    document: str  # the readable label of its document
    file_name: str
    document_id: int
    page: int
    caption: str | None
    chunk_id: int | None
    after_paragraph: int
    why_shown: str = ""
    kind: str | None = None  # chart | diagram | map (what is shown); rag/ingest/figkind.py
    chart_type: str | None = None
    reads: str = ""  # a chart's values tied to their labels, read at ingestion (rag/ingest/chartread.py)

    @classmethod
    def of(cls, f: FigureHit, document: str, after_paragraph: int) -> PlacedFigure:
        return cls(f.figure_id, document, f.file_name, f.document_id, f.page, f.caption, f.chunk_id, after_paragraph,
                   f.why_shown, f.figure_kind, f.chart_type, reading_line(f.ocr_text) if f.figure_kind == "chart" else "")

    def to_json(self) -> dict[str, Any]:
        return {"figure_id": self.figure_id, "document": self.document, "file_name": self.file_name,
                "document_id": self.document_id, "page": self.page, "caption": self.caption,
                "chunk_id": self.chunk_id, "after_paragraph": self.after_paragraph, "why_shown": self.why_shown,
                "kind": self.kind, "chart_type": self.chart_type, "reads": self.reads}

    @classmethod
    def from_json(cls, d: dict) -> PlacedFigure:
        return cls(d["figure_id"], d["document"], d["file_name"], d.get("document_id") or 0, d["page"],
                   d.get("caption"), d.get("chunk_id"), d.get("after_paragraph", 0), d.get("why_shown") or "",
                   d.get("kind"), d.get("chart_type"), d.get("reads") or "")


@dataclass
class Step:
    """One tool call of a plan: its arguments, milliseconds and a summary of what it returned."""
    step: int
    tool: str
    args: dict[str, Any]
    ms: float | None
    summary: str

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.step, "tool": self.tool, "args": self.args}
        if self.ms is not None:
            out["ms"] = self.ms
        out["summary"] = self.summary
        return out

    @classmethod
    def from_json(cls, d: dict) -> Step:
        return cls(d["step"], d["tool"], d.get("args") or {}, d.get("ms"), d.get("summary") or "")


@dataclass
class Answer:
    question: str
    answer: str  # markdown with [n] markers; paragraphs separated by blank lines
    confidence: str  # high | medium | low | insufficient_data
    reasons: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    unsupported: list[Flag] = field(default_factory=list)  # sentences flagged or dropped, with why
    figures: list[PlacedFigure] = field(default_factory=list)
    mode: str = "extractive"  # extractive | llm | llm-fallback | sql
    timings_ms: dict = field(default_factory=dict)
    trace: list[TraceEntry] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)  # multi-step / tool calls
    numbers_total: int = 0
    numbers_verified: int = 0
    message: str | None = None
    rows: SqlRows | None = None  # structured (SQL) answers: the query's rows as it returned them
    computed: list[str] = field(default_factory=list)  # figures computed by code (formulas, changes), with markers
    signals: dict = field(default_factory=dict)  # what the confidence policy read (rag/answer/confidence.py)
    # the figure(s) code picked for the asked measure, entity and period, as printed (the offline lead's value; one
    # per entity compared): an LLM's answer must state them (rag/answer/compose.py)
    candidate: list[str] = field(default_factory=list)
    retrieval: Retrieval | None = field(default=None, repr=False)  # the Retrieval behind it (debug view), not exported

    @classmethod
    def refusal(cls, question: str, why: str, reasons: list[str], **kw: Any) -> Answer:
        """The one way an answer refuses: "Insufficient data: <why>.", confidence insufficient_data."""
        return cls(question=question, answer=refusal_text(why), confidence=INSUFFICIENT, reasons=reasons, **kw)

    @property
    def insufficient(self) -> bool:
        return self.confidence == INSUFFICIENT

    @property
    def paragraphs(self) -> list[str]:
        return [p for p in self.answer.split("\n\n") if p.strip()]

    def to_json(self, with_trace: bool = False) -> dict:
        out = {
            "question": self.question,
            "answer": self.answer,
            "confidence": self.confidence,
            "reasons": self.reasons,
            "signals": self.signals,
            "mode": self.mode,
            "evidence": [e.to_json() for e in self.evidence],
            "unsupported": self.unsupported,
            "figures": [f.to_json() for f in self.figures],
            "numbers": {"total": self.numbers_total, "verified": self.numbers_verified},
            "timings_ms": self.timings_ms,
        }
        if self.message:
            out["message"] = self.message
        if self.rows is not None:
            out["rows"] = self.rows
        if self.computed:
            out["computed"] = self.computed
        if self.steps:
            out["steps"] = [s.to_json() for s in self.steps]
        if with_trace:
            out["trace"] = self.trace
        for k in _MESSAGES:
            if k in out:
                out[k] = redact_json(out[k])
        return out

    @classmethod
    def from_json(cls, d: dict) -> Answer:
        """An answer read back from its JSON (a stored conversation): everything but the retrieval behind it."""
        numbers = d.get("numbers") or {}
        return cls(question=d["question"], answer=d["answer"], confidence=d["confidence"],
                   reasons=list(d.get("reasons") or []),
                   evidence=[Evidence.from_json(e) for e in d.get("evidence") or []],
                   unsupported=list(d.get("unsupported") or []),
                   figures=[PlacedFigure.from_json(f) for f in d.get("figures") or []],
                   mode=d.get("mode", "extractive"),
                   timings_ms=dict(d.get("timings_ms") or {}), trace=list(d.get("trace") or []),
                   steps=[Step.from_json(x) for x in d.get("steps") or []], numbers_total=numbers.get("total", 0),
                   numbers_verified=numbers.get("verified", 0), message=d.get("message"), rows=d.get("rows"),
                   computed=list(d.get("computed") or []))
