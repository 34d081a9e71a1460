"""The tools a plan calls: small classes, each with a pydantic argument model (the LLM's JSON schema comes from
it) and `run(ctx, args) -> str` (the text the LLM reads). The offline plan calls the same tools in a fixed order."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from rag.answer.labels import document_label
from rag.answer.model import Evidence, Step
from rag.config import Settings
from rag.domain import company_key
from rag.records import Candidate, DocumentMeta, Related
from rag.retrieve.pipeline import Retrieval, retrieve, sub_search
from rag.retrieve.search import SearchFilters


@dataclass
class ToolContext:
    """What the tools share for one question: the store, the model, the settings, the evidence gathered so far
    (one marker per chunk) and the steps taken."""
    store: Any
    embedder: Any
    settings: Settings
    docs: list[DocumentMeta]
    question: str
    filters: SearchFilters | None = None
    history: list[str] | None = None
    tool_loop: bool = False  # the LLM's loop: its steps are always logged
    evidence: list[Evidence] = field(default_factory=list)
    markers: dict[int, int] = field(default_factory=dict)  # chunk id → marker
    gathered: dict[int, Candidate] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    searches: dict[str, Retrieval] = field(default_factory=dict)  # the first retrieval of each query text
    last: Retrieval | None = None
    computed: list[str] = field(default_factory=list)  # the compute tool's formulas, with their markers

    def search(self, query: str, filters: SearchFilters | None) -> Retrieval:
        """The retrieval pipeline; a query already searched reuses its parsed question and embedding."""
        first = self.searches.get(query)
        if first is not None:
            r = sub_search(first, filters or SearchFilters())
        else:
            r = retrieve(self.store, self.embedder, query, self.settings.retrieval, filters, self.history,
                         documents=self.docs)
            self.searches[query] = r
        self.last = r
        return r

    def cite(self, c: Candidate) -> Evidence:
        """The evidence of a chunk, under its marker (a new one the first time)."""
        self.gathered.setdefault(c.chunk_id, c)
        if c.chunk_id not in self.markers:
            self.markers[c.chunk_id] = len(self.evidence) + 1
            self.evidence.append(Evidence.of(c, len(self.evidence) + 1))
        return self.evidence[self.markers[c.chunk_id] - 1]

    def record(self, tool: str, args: dict[str, Any], t0: float, summary: str) -> Step:
        step = Step(len(self.steps) + 1, tool, args, round((time.perf_counter() - t0) * 1000, 1), summary)
        self.steps.append(step)
        log_step(self.settings, step, self.tool_loop)
        return step


def log_step(settings: Settings, step: Step, tool_loop: bool = False) -> None:
    """Append a step to the steps log: the configured file, or (for the LLM tool loop, always logged) the file
    llm_steps.jsonl in the data folder."""
    path = settings.llm.steps_log or (Path(settings.db.data_dir) / "llm_steps.jsonl" if tool_loop else None)
    if path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        with p.open("a") as f:
            f.write(json.dumps(step.to_json(), default=str) + "\n")


def summary(r: Retrieval) -> str:
    docs = sorted({document_label(c) for c in r.chunks})
    return f"{len(r.chunks)} passage(s) from {', '.join(docs[:4])}" if r.chunks else (r.message or "nothing found")


class Tool:
    name: ClassVar[str]
    description: ClassVar[str]
    Args: ClassVar[type[BaseModel]]

    def run(self, ctx: ToolContext, args: Any) -> str:
        raise NotImplementedError

    @classmethod
    def schema(cls) -> dict[str, Any]:
        """The OpenAI tool definition, its parameters from the argument model."""
        raw = cls.Args.model_json_schema()
        params = _plain(raw, raw.get("$defs", {}))
        return {"type": "function", "function": {"name": cls.name, "description": cls.description,
                                                 "parameters": params}}


def _plain(schema: Any, defs: dict[str, Any]) -> Any:
    """pydantic's schema in the plain form every OpenAI-compatible server reads: references inlined, an optional
    field as its type (not anyOf with null), no titles and no null defaults."""
    if isinstance(schema, list):
        return [_plain(v, defs) for v in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        return _plain(defs[schema["$ref"].split("/")[-1]], defs)
    any_of = [x for x in schema.get("anyOf", []) if x.get("type") != "null"]
    if len(any_of) == 1:
        schema = {**{k: v for k, v in schema.items() if k != "anyOf"}, **any_of[0]}
    return {k: _plain(v, defs) for k, v in schema.items()
            if k not in ("title", "$defs") and not (k == "default" and v in (None, [], ""))}


# A string argument a model may send as null: the empty string, as the old parsing did.
Text = Annotated[str, BeforeValidator(lambda v: "" if v is None else v)]


class SearchChunksArgs(BaseModel):
    # required in the schema the model sees; a call without it searches the user's question
    model_config = ConfigDict(json_schema_extra={"required": ["query"]})
    query: Text = Field("", description="what to look for, in the documents' words")
    company: str | None = Field(None, description="company name, optional")

    year: int | None = Field(None, description="fiscal year, optional")
    document_ids: list[int] | None = Field(None, description="only these documents, optional")


class SearchChunks(Tool):
    name, description, Args = "search_chunks", "Hybrid search over the documents' passages.", SearchChunksArgs

    def run(self, ctx: ToolContext, args: SearchChunksArgs) -> str:
        f = SearchFilters()
        if args.company:
            f.companies = [company_key(args.company) or args.company]
        if args.year:
            f.year_min = f.year_max = int(args.year)
        if args.document_ids:
            f.document_ids = [int(x) for x in args.document_ids]
        r = ctx.search(args.query or ctx.question, f if (f.companies or f.year_min or f.document_ids) else ctx.filters)
        lines = []
        for c in r.chunks:
            e = ctx.cite(c)
            lines.append(f"[{e.marker}] {e.source}\n{e.text}")
        return "\n\n".join(lines) or (r.message or "no passages")


class SearchFiguresArgs(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["query"]})
    query: Text = Field("", description="the chart or figure wanted")



class SearchFigures(Tool):
    name, description, Args = "search_figures", "Charts and figures matching a description.", SearchFiguresArgs

    def run(self, ctx: ToolContext, args: SearchFiguresArgs) -> str:
        figs = ctx.store.match_figures(ctx.embedder.encode_query(args.query or ctx.question), match_count=5)
        return json.dumps([{"figure_id": f.figure_id, "document_id": f.document_id, "page": f.page,
                            "caption": f.caption} for f in figs])


class RelatedArgs(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["document_id"]})
    document_id: int = 0
    depth: int = Field(3, description="how many periods away, at most 3")


class GetRelatedDocuments(Tool):
    name, description, Args = ("get_related_documents", "Previous / next periods of a document (depth up to 3).",
                               RelatedArgs)

    def run(self, ctx: ToolContext, args: RelatedArgs) -> str:
        rel = self.related(ctx, args.document_id, min(3, args.depth))
        return json.dumps([r.to_json() for r in rel], default=str)

    @staticmethod
    def related(ctx: ToolContext, document_id: int, depth: int) -> list[Related]:
        return ctx.store.related_graph(document_id, depth)


class NoArgs(BaseModel):
    pass


class ListDocuments(Tool):
    name, description, Args = ("list_documents", "Every document with company, type, fiscal year and counts.",
                               NoArgs)

    def run(self, ctx: ToolContext, args: NoArgs) -> str:
        keys = ("document_id", "file_name", "company", "doc_type", "fiscal_year", "fiscal_period", "page_count",
                "figures")
        return json.dumps([{k: getattr(d, k) for k in keys} for d in ctx.docs], default=str)


class RunSqlArgs(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["sql"]})
    sql: str = Field("", description="one read-only SELECT")


class RunSql(Tool):
    name, description, Args = ("run_sql", "One read-only SELECT over the views v_documents, v_chunks, v_figures.",
                               RunSqlArgs)

    def run(self, ctx: ToolContext, args: RunSqlArgs) -> str:
        from rag.sqlguard import SqlRejected, run_readonly

        try:
            return json.dumps(run_readonly(ctx.store, args.sql)[:50], default=str)
        except SqlRejected as exc:
            return f"rejected: {exc}"


class ComputeArgs(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["metric"]})
    metric: Text = Field("", description="the metric, e.g. operating margin, quick ratio, effective tax rate")
    company: str | None = Field(None, description="company name, optional")
    year: int | None = Field(None, description="fiscal year, optional (default: the latest with every input)")


class Compute(Tool):
    name, description, Args = ("compute", "Compute a metric from the documents' table facts, by code: returns the "
                               "formula with every input and the [n] marker of its passage. Never do arithmetic "
                               "yourself.", ComputeArgs)

    def run(self, ctx: ToolContext, args: ComputeArgs) -> str:
        from rag.answer.lead import computation_sentences, latest_year, resolver
        from rag.metrics import compute, metric_of, metrics
        from rag.retrieve.facts import item_facts

        m = metric_of(args.metric)
        if m is None:
            return "unknown metric; known: " + ", ".join(x.name for x in metrics())
        key = company_key(args.company) if args.company else None
        docs = [d for d in ctx.docs if key is None or d.company_key == key or (d.company_key or "").startswith(key)]
        by_id = {d.document_id: d for d in ctx.docs}
        ids = [d.document_id for d in docs]
        years = [args.year] if args.year else None
        resolve = resolver(lambda item: item_facts(ctx.store, item, ids, years), by_id, {})
        year = args.year or latest_year(resolve, m.inputs, range(2030, 1990, -1))
        c = compute(m, year, resolve) if year else None
        if c is None:
            return f"cannot compute {m.name}{f' for FY{year}' if year else ''}: an input is not in the documents' tables"
        for h in ctx.store.chunks_by_id(list(dict.fromkeys(f.chunk_id for f in c.facts if f.chunk_id))):
            ctx.cite(Candidate.of(h, by_id.get(h.document_id)))
        _, formula = computation_sentences(c, by_id.get(c.facts[0].document_id), ctx.markers)
        ctx.computed.append(formula)
        return f"{formula} Convention: {m.convention}."


class Citation(BaseModel):
    marker: int = 0
    quote: Text = ""



class AnswerArgs(BaseModel):
    model_config = ConfigDict(json_schema_extra={"required": ["answer"]})
    answer: str = Field("", description="the answer; every factual sentence ends with its [n] marker")
    citations: list[Citation] = Field(default_factory=list, description="an exact quote from each passage cited")

    @field_validator("citations", mode="before")
    @classmethod
    def _objects_only(cls, v: Any) -> Any:
        """A null list is no citation; an item that is not an object is skipped."""
        return [c for c in v if isinstance(c, dict)] if isinstance(v, list) else []


class AnswerWithEvidence(Tool):
    name, description, Args = ("answer_with_evidence", "The final answer with [n] markers and exact quotes.",
                               AnswerArgs)

    def run(self, ctx: ToolContext, args: AnswerArgs) -> str:
        return "ok"

    @staticmethod
    def reply(args: AnswerArgs) -> dict[str, Any]:
        return {"answer": args.answer, "citations": [c.model_dump() for c in args.citations], "inferred": "",
                "insufficient": False, "malformed": False}


TOOLS: dict[str, Tool] = {t.name: t for t in (SearchChunks(), SearchFigures(), GetRelatedDocuments(),
                                               ListDocuments(), RunSql(), Compute(), AnswerWithEvidence())}


def call(ctx: ToolContext, name: str, raw: dict[str, Any]) -> tuple[str, BaseModel | None]:
    """Run a tool by name with the model's raw arguments: the result text, and the parsed arguments."""
    tool = TOOLS.get(name)
    if tool is None:
        return f"unknown tool {name}", None
    try:
        args = tool.Args.model_validate(raw)
    except ValidationError as exc:
        return f"invalid arguments for {name}: {exc.errors()[0].get('msg', 'invalid')}", None
    return tool.run(ctx, args), args
