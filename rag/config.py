"""Settings: one pydantic-settings object with nested groups, read from env (RAG_*) or passed explicitly."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class DatabaseSettings(BaseModel):
    data_dir: Path = Field(Path(".rag-data"), description="Folder of the embedded Postgres (pgserver).")
    url: str | None = Field(None, description="postgresql:// URL of any Postgres with pgvector; overrides embedded.")
    supabase_url: str | None = Field(None, description="Supabase project URL; with supabase_key selects the RPC transport.")
    supabase_key: SecretStr | None = Field(None, description="Supabase service-role (writes) or anon key (reads).")
    statement_timeout_ms: int = Field(60_000, description="Per-statement timeout for direct connections.")
    workspace: str | None = Field(None, description="Workspace of the documents this app writes (direct "
                                  "connections); readers subject to row-level security see shared documents and "
                                  "their own workspace's. On Supabase the JWT claim 'workspace' decides.")
    reader_url: SecretStr | None = Field(None, description="postgresql:// URL that logs in as a reader role (033) for "
                                         "structured questions. Default: the store's URL with the reader role "
                                         "(rag_query, or the workspace's) as the user and reader_password.")
    reader_password: SecretStr | None = Field(None, description="Password of the reader role where the server asks "
                                              "for one; `python -m rag migrate` sets it on the role.")


class SqlSettings(BaseModel):
    """Caps of structured (user- or model-written) SQL. Each holds on its own; all of them hold together."""
    timeout_ms: int = Field(3000, description="Statement timeout of one structured question (the reader role's own "
                            "default, 5 s, is the ceiling).")
    max_rows: int = Field(200, description="Rows returned at most: LIMIT is added or lowered to this.")
    max_bytes: int = Field(1_000_000, description="Bytes of result at most, counted on the server row by row as JSON "
                           "before anything is sent; past it the question is refused with a clear message.")


class EmbeddingSettings(BaseModel):
    model: str = Field(DEFAULT_MODEL, description="sentence-transformers model name or local path.")
    max_seq_length: int = Field(256, description="Tokens per chunk seen by the model; longer text is truncated.")
    batch_size: int = Field(32, description="Texts per encode() call.")
    device: str = Field("cpu", description="torch device.")
    backend: Literal["auto", "onnx-int8", "torch"] = Field(
        "torch", description="torch: sentence-transformers, in bf16 where the CPU multiplies bf16 natively (see "
        "precision); onnx-int8 (or auto, for the default model): int8 ONNX on onnxruntime, built once from the "
        "shipped weights, 1.6-2.2x fp32 torch; auto gives any other model torch.")
    threads: int = Field(0, description="Threads for embedding, torch's or onnxruntime's (0: torch's default, and "
                         "one per core for onnxruntime); `rag worker --concurrency N` gives each process cores / N.")
    precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto", description="torch on the CPU: bf16 weights where the CPU multiplies bf16 natively (AMX or AVX-512 "
        "BF16: about 3x fp32, vectors at cosine 0.9999 to fp32), checked against fp32 on probe passages when the "
        "model loads; fp32 elsewhere. fp32 or bf16 force one.")


class ChunkingSettings(BaseModel):
    min_words: int = Field(150, description="A chunk below this is merged with its neighbour inside a section.")
    target_words: int = Field(250, description="Words at which a chunk is closed at the next unit boundary.")
    max_words: int = Field(350, description="Hard upper bound of words per chunk.")


class IngestSettings(BaseModel):
    ocr: bool = Field(True, description="OCR raster figures and pages without a text layer (rapidocr).")
    ocr_engine: str = Field("rapidocr", description="rapidocr (default) or easyocr when it is installed.")
    grid_tables: bool = Field(True, description="On a page where the layout broke a table apart (rows of values "
                                                "without labels), read its grid with PyMuPDF's find_tables.")
    keep_pdf: bool = Field(True, description="Store the original PDF in the database so the app can show the cited "
                           "region of a page.")
    keep_pdf_max_mb: float = Field(50.0, description="PDFs larger than this are not stored (crops then unavailable).")
    ocr_max_figures: int = Field(40, description="Figure images OCR'd per document at most, in page order: the same "
                                 "figures are read on any machine, however loaded; later ones keep their caption and "
                                 "context only.")
    ocr_budget_s: float = Field(180.0, description="Seconds of figure OCR per document at most: a safety net for a "
                                "document whose images are slow to read (ocr_max_figures is the budget that applies).")
    figure_dpi: int = Field(150, description="Resolution of figure crops.")
    max_figures_per_page: int = Field(12, description="Figures kept per page at most (largest first): a page of small "
                                      "multiples keeps each panel.")
    min_figure_pt: float = Field(72.0, description="Figures smaller than this (points, either side) are dropped.")
    overlap: bool = Field(True, description="Embed the chunks on one core while the other renders the figures; "
                          "false runs the stages one after the other.")
    max_file_mb: float = Field(200.0, description="Larger files are refused before parsing.")
    max_pages: int = Field(2000, description="Documents with more pages are refused before parsing.")
    max_seconds: float = Field(900.0, description="Reading a document longer than this stops it with a clear error; "
                               "nothing of it is stored. The reading child process is killed at this age, even in "
                               "the middle of one page.")
    max_parse_mb: float = Field(2048.0, description="The child process that reads a PDF is killed past this resident "
                                "memory (MB) and the file is refused with one line; nothing of it is stored.")



class CandidateSettings(BaseModel):
    """How many passages the SQL search proposes, and how sub-searches add theirs."""
    pool_min: int = Field(50, description="The SQL pool is at least this many chunks: reciprocal rank fusion needs "
                          "depth on both lists, and 50 keeps one round trip under ~100 ms on 12k chunks.")
    pool_factor: int = Field(2, description="The pool is this many times rerank_size, so the reranker can pull up a "
                             "chunk the fused score ranked just outside what it sees.")
    sub_search_share: float = Field(0.5, description="A sub-search (a named company, period or statement title) "
                                    "adds this share of the pool: enough for its entity, never more than the "
                                    "question's own search.")
    statement_title_text_weight: float = Field(2.0, description="Full-text weight of the statement-title search: "
                                               "the title words decide, not the question's meaning.")
    parallel_searches: int = Field(3, ge=1, le=8, description="The question's search and its sub-searches run at "
                                   "most this many at once, each on its own connection (1: one after another). "
                                   "They are independent; at a million chunks the statement-title search alone "
                                   "takes 100-200 ms.")


class FactorSettings(BaseModel):
    """The numbers of the rerank factors that are not boosts of a named target (those are on RetrievalSettings)."""
    recency_weight_latest: float = Field(1.0, description="Recency weight when the question asks for the latest: "
                                         "the newest document must win.")
    recency_weight_company: float = Field(0.5, description="Recency weight (at least) when a company is named "
                                          "without a period: readers mean the current filing.")
    statement_table_boost: float = Field(1.5, description="Extra multiple of statement_boost for the statement's own "
                                         "table rows, so the statement outranks discussions of it.")
    statement_title_chars: int = Field(120, description="A line of a chunk longer than this is text, not a "
                                       "statement's title (titles are short; sentences naming a statement are not).")
    statement_table_share: float = Field(0.3, description="Share of lines that must be table rows for a chunk to be "
                                         "the statement itself rather than text about it.")
    boilerplate_factor: float = Field(0.8, description="Exhibits, signatures and subsidiary lists of a filing, "
                                      "unless asked for: they match many questions' words and answer none.")
    table_boost: float = Field(0.3, description="A question that wants a number: × (1 + this × share of table rows), "
                               "since figures live in tables.")
    short_chunk_words: int = Field(40, description="Chunks shorter than this are usually headings or fragments.")
    short_chunk_factor: float = Field(0.75, description="Multiplier of a short chunk.")
    long_chunk_words: int = Field(420, description="Chunks longer than this dilute the passage that answers.")
    long_chunk_factor: float = Field(0.9, description="Multiplier of a long chunk.")
    first_chunk_intro: float = Field(1.1, description="The first chunk (title, abstract) for a question about the "
                                     "abstract or introduction.")
    first_chunk_other: float = Field(0.85, description="The first chunk otherwise: a cover page rarely answers.")
    early_position_bonus: float = Field(0.05, description="Up to this bonus for a chunk early in its document, where "
                                        "summaries and key figures tend to be.")
    comparand_boost: float = Field(1.15, description="A comparison of named things (two models, two measures): "
                                   "a chunk that names all of them, such as the results table with both rows.")
    text_rank_weight: float = Field(0.25, description="Relevance = cosine + this × full-text rank (0..1), so a short "
                                    "question fully matched by a long passage is not cut by a diluted cosine.")
    cross_encoder_chars: int = Field(2000, description="Characters of a chunk the cross-encoder reads: its window "
                                     "is 512 tokens, and the opening of a chunk carries its heading and topic.")
    cross_encoder_base: float = Field(0.5, description="Final × (this + cross-encoder probability); chunks the "
                                      "cross-encoder did not see get × this.")


class SelectionSettings(BaseModel):
    """Choosing the final chunks and figures from the ranked pool."""
    near_duplicate_jaccard: float = Field(0.8, description="Word overlap (Jaccard) above which a chunk repeats one "
                                          "already chosen (the same boilerplate in several filings).")
    location_group_chunks: int = Field(3, description="Chunks of one page within this many positions are one place: "
                                       "at most one of them is used.")
    k_short: int = Field(3, description="Chunks for a short question (up to short_question_words, no statement).")
    k_default: int = Field(5, description="Chunks for an ordinary question.")
    k_compare: int = Field(7, description="Chunks for a comparison: each company or period needs room.")
    short_question_words: int = Field(8, description="A question of at most this many words is short.")
    compare_years: int = Field(2, description="More years than this named in one question get comparison-sized k.")
    single_document_top: int = Field(10, description="When the best this many candidates all come from one "
                                     "document, the question is about that document: no per-document cap.")
    nearest: int = Field(5, description="Passages kept with a refusal, for 'Nearest pages: …'.")
    date_window_days: int = Field(3, description="A document published within this many days of a date in the "
                                  "question is the one it names (filing and press dates differ by a day or two).")
    figure_pool_factor: int = Field(4, description="Figures fetched are this many times max_figures, before floors.")
    linked_figure_bonus: float = Field(0.1, description="Sort bonus of a figure linked to a chosen chunk over one "
                                       "that only resembles the question.")


class RawSearchSettings(BaseModel):
    """`search --raw`: the plain hybrid SQL search, no pipeline."""
    candidates: int = Field(50, description="Candidates per list before fusion.")
    figure_floor: float = Field(0.35, description="Minimum similarity of a figure not linked to a returned chunk.")
    linked_figure_floor: float = Field(0.15, description="Minimum similarity of a linked figure (its chunk's rank "
                                       "already vouches for it).")


class RetrievalSettings(BaseModel):
    rerank: bool = Field(True, description="Rerank the SQL pool (metadata, recency, section, heuristics, "
                         "cross-encoder); off = the fused SQL score alone.")
    rerank_size: int = Field(30, description="Candidates the reranker sees; the SQL pool is max(50, 2 × this).")
    rrf_k: int = Field(60, description="Reciprocal rank fusion constant.")
    threshold: float = Field(0.30, description="Minimum relevance (cosine similarity for the bi-encoder, sigmoid of "
                             "the cross-encoder score) for a chunk to be used. Calibrated for all-MiniLM-L6-v2 on "
                             "../shared/eval: see docs/retrieval.md.")
    recency_weight: float = Field(0.15, description="0 = no recency preference; 1 = score fully scaled by age decay.")
    recency_half_life_years: float = Field(3.0, description="Age at which the recency factor halves.")
    section_boost: float = Field(2.0, description="Multiplier for chunks in a target section of the question.")
    related_section_boost: float = Field(1.3, description="Multiplier for chunks in a related section.")
    company_boost: float = Field(1.5, description="Multiplier for a company named in the question (when not a filter).")
    year_boost: float = Field(1.6, description="Multiplier for the fiscal year the question targets.")
    other_year_boost: float = Field(1.15, description="Multiplier for other years named in the question.")
    period_boost: float = Field(1.3, description="Multiplier for the quarter / document type the question names.")
    statement_boost: float = Field(1.6, description="Multiplier for chunks under the financial statement named.")
    filing_section_boost: float = Field(1.3, description="Multiplier for a filing's part the question is about: "
                                        "Risk Factors, Business, or Management's Discussion and Analysis.")
    mmr_lambda: float = Field(0.75, description="MMR trade-off: 1 = relevance only, 0 = diversity only.")
    diversity: bool = Field(True, description="Apply MMR, per-document caps and location groups.")
    max_per_document: int = Field(3, description="Chunks per document at most, unless the question targets one.")
    k: int | None = Field(None, description="Chunks in the answer; None = dynamic 3 / 5 / 7 by question.")
    context_chars: int = Field(9000, description="Character budget of the final chunks.")
    cross_encoder: str | None = Field(None, description="sentence-transformers CrossEncoder name or path; None = "
                                      "heuristic reranking only (no cross-encoder weights ship offline).")
    max_figures: int = Field(3, description="Figures per answer at most.")
    max_facts: int = Field(3000, description="Table facts of the chosen passages fetched for the answer at most.")
    figure_floor: float = Field(0.40, description="Minimum caption/context similarity for a figure not linked to a final chunk.")
    linked_figure_floor: float = Field(0.20, description="Minimum similarity for a figure linked to a final chunk.")
    candidates: CandidateSettings = Field(default_factory=CandidateSettings)
    factors: FactorSettings = Field(default_factory=FactorSettings)
    selection: SelectionSettings = Field(default_factory=SelectionSettings)
    raw: RawSearchSettings = Field(default_factory=RawSearchSettings)


class AnswerSettings(BaseModel):
    """The offline (extractive) answer: which sentences and table rows answer, and what confidence means."""
    title_line_words: int = Field(10, description="A capitalised line of at most this many words without end "
                                  "punctuation is a title, not a statement that answers.")
    min_sentence_words: int = Field(5, description="Shorter sentences are fragments (headings, captions).")
    uncited_words: int = Field(3, description="An LLM sentence of more words without a citation is dropped.")
    max_units: int = Field(4, description="Sentences or rows in an answer at most: an analyst reads the first few.")
    per_chunk: int = Field(2, description="Units from one chunk at most, so one passage does not crowd out others.")
    floor: float = Field(0.45, description="Score below which nothing answers (then the answer refuses).")
    relative: float = Field(0.6, description="A unit must score this share of the best one.")
    entity_floor_share: float = Field(0.5, description="In a comparison each named company or period's best unit "
                                      "is kept down to this share of the floor.")
    company_term_weight: float = Field(0.25, description="A company's own name inside its documents says little; in a "
                                       "comparison it still tells which company a sentence is about.")
    expansion_term_weight: float = Field(0.5, description="The filings' words for an analyst's term count half.")
    year_bonus: float = Field(0.3, description="A unit naming the year asked.")
    row_number_bonus: float = Field(0.3, description="A table row with a figure, for a question that wants a number.")
    sentence_number_bonus: float = Field(0.15, description="A sentence with a figure, for a question that wants one.")
    no_number_factor: float = Field(0.6, description="A unit without a figure, for a question that wants one.")
    explain_bonus: float = Field(0.3, description="A sentence with causal words ('due to', 'driven by') for a "
                                 "'why / what drove' question.")
    other_period_factor: float = Field(0.5, description="A unit from another period's document that does not name "
                                       "the period asked.")
    rank_base: float = Field(0.6, description="A unit's score × (this + (1 − this) × its chunk's final score).")
    position_step: float = Field(0.02, description="Per-position decay of units within a chunk (first ten).")
    position_cap: int = Field(10, description="Positions after this one decay no further.")
    max_sub_searches: int = Field(4, description="A plan's sub-searches at most (offline): each costs a search, "
                                  "and an answer cites a few passages of each entity.")
    extra_per_sub_search: int = Field(2, description="New chunks one sub-search adds at most: the best of what the "
                                      "first search lacked.")
    high_relevance: float = Field(0.55, description="'high' confidence needs the best cited passage at least this "
                                  "relevant (and every check passing).")
    high_unit_score: float = Field(0.9, description="…and the best unit scoring at least this.")
    medium_relevance: float = Field(0.40, description="'medium' needs every check passing and this relevance; "
                                    "below it, 'low'.")


class LLMSettings(BaseModel):
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp's "
                                 "server). None = offline extractive answers.")
    model: str = Field("gpt-4o-mini", description="Model name sent to the endpoint.")
    api_key: SecretStr | None = Field(None, description="API key; local servers accept any value.")
    timeout_s: float = Field(60.0, description="Seconds per request before falling back to the extractive answer.")
    max_tokens: int = Field(800, description="Tokens per answer at most.")
    temperature: float = Field(0.0, description="Sampling temperature.")
    response_format: str = Field("auto", description="auto (JSON schema, then JSON object, then plain text), "
                                 "json_schema, json_object or text.")
    tools: bool = Field(False, description="Multi-step mode with tool calls when the server supports them (off "
                        "by default: a small local model answers better in one request, and its arithmetic is never "
                        "used).")
    max_steps: int = Field(6, description="Tool calls per question at most.")
    formats_file: Path | None = Field(None, description="JSON file that keeps the response format each server "
                                      "accepted, so a new process does not detect it again (default: llm_formats.json "
                                      "in the data folder).")
    steps_log: Path | None = Field(None, description="JSON-lines file that records every multi-step call (default for the "
                                   "LLM tool loop: llm_steps.jsonl in the data folder).")


class JobSettings(BaseModel):
    heartbeat_s: float = Field(5.0, description="Seconds between a worker's heartbeats.")
    stalled_after_s: float = Field(30.0, description="A worker silent this long is taken for dead: its job is "
                                   "queued again.")
    poll_s: float = Field(2.0, description="Seconds between a worker's polls for jobs (workers do not LISTEN: any "
                          "login may NOTIFY, so no notification is trusted).")
    max_attempts: int = Field(3, description="A file on which workers died this many times fails.")


class ApiSettings(BaseModel):
    """Limits of `python -m rag serve` against slow or silent clients (uvicorn alone never times out a request's
    headers or body: 100 connections sending half their headers were held for as long as they liked)."""
    header_timeout_s: float = Field(10.0, gt=0, description="Seconds for a request's headers to arrive, from the "
                                    "connection (or the previous response); past it a 408 and the connection closed.")
    body_timeout_s: float = Field(30.0, gt=0, description="Seconds for a request's body to arrive after its headers "
                                  "(bodies are 64 KB at most); past it a 408 and the connection closed.")
    keep_alive_s: int = Field(5, gt=0, description="An idle keep-alive connection is closed after this many seconds.")
    max_connections: int = Field(100, gt=0, description="Open connections at most (uvicorn's limit_concurrency): a "
                                 "request beyond it gets 503 at once.")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RAG_", env_nested_delimiter="__", extra="ignore")

    db: DatabaseSettings = Field(default_factory=DatabaseSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    sql: SqlSettings = Field(default_factory=SqlSettings)
    jobs: JobSettings = Field(default_factory=JobSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)


def llm_formats_file(settings: Settings) -> Path:
    """Where the response format each LLM server accepted is kept."""
    return settings.llm.formats_file or Path(settings.db.data_dir) / "llm_formats.json"


def settings_from_env(env: dict[str, str] | None = None, **overrides) -> Settings:
    """Build Settings from RAG_* variables plus the conventional DATABASE_URL / SUPABASE_URL / SUPABASE_KEY / RAG_DATA_DIR."""
    import os

    env = os.environ if env is None else env
    s = Settings(**overrides)
    if env.get("RAG_DATA_DIR"):
        s.db.data_dir = Path(env["RAG_DATA_DIR"])
    if env.get("DATABASE_URL") and not s.db.url:
        s.db.url = env["DATABASE_URL"]
    if env.get("SUPABASE_URL") and not s.db.supabase_url:
        s.db.supabase_url = env["SUPABASE_URL"]
    if env.get("SUPABASE_KEY") and not s.db.supabase_key:
        s.db.supabase_key = SecretStr(env["SUPABASE_KEY"])
    if env.get("OPENAI_BASE_URL") and not s.llm.base_url:
        s.llm.base_url = env["OPENAI_BASE_URL"]
    if env.get("OPENAI_API_KEY") and not s.llm.api_key:
        s.llm.api_key = SecretStr(env["OPENAI_API_KEY"])
        s.llm.base_url = s.llm.base_url or "https://api.openai.com/v1"  # a key alone means OpenAI itself
    if env.get("OPENAI_MODEL") and "RAG_LLM__MODEL" not in env:
        s.llm.model = env["OPENAI_MODEL"]
    return s


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return settings_from_env()
