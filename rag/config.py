"""Settings: one pydantic-settings object with nested groups, read from env (RAG_*) or passed explicitly."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

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


class ChunkingSettings(BaseModel):
    min_words: int = Field(150, description="A chunk below this is merged with its neighbour inside a section.")
    target_words: int = Field(250, description="Words at which a chunk is closed at the next unit boundary.")
    max_words: int = Field(350, description="Hard upper bound of words per chunk.")


class IngestSettings(BaseModel):
    ocr: bool = Field(True, description="OCR raster figures and pages without a text layer (rapidocr).")
    ocr_engine: str = Field("rapidocr", description="rapidocr (default) or easyocr when it is installed.")
    keep_pdf: bool = Field(True, description="Store the original PDF in the database so the app can show the cited "
                           "region of a page.")
    keep_pdf_max_mb: float = Field(50.0, description="PDFs larger than this are not stored (crops then unavailable).")
    ocr_budget_s: float = Field(60.0, description="Seconds of figure OCR per document at most; later figures keep their caption and context only.")
    figure_dpi: int = Field(150, description="Resolution of figure crops.")
    max_figures_per_page: int = Field(6, description="Figures kept per page at most (largest first).")
    min_figure_pt: float = Field(72.0, description="Figures smaller than this (points, either side) are dropped.")
    max_file_mb: float = Field(200.0, description="Larger files are refused before parsing.")
    max_pages: int = Field(2000, description="Documents with more pages are refused before parsing.")
    max_seconds: float = Field(900.0, description="Reading a document longer than this stops it with a clear error; "
                               "nothing of it is stored.")


class RetrievalSettings(BaseModel):
    rerank: bool = Field(True, description="Rerank the SQL pool (metadata, recency, section, heuristics, "
                         "cross-encoder); off = the fused SQL score alone.")
    rerank_size: int = Field(30, description="Candidates the reranker sees; the SQL pool is max(50, 2 × this).")
    rrf_k: int = Field(60, description="Reciprocal rank fusion constant.")
    threshold: float = Field(0.30, description="Minimum relevance (cosine similarity for the bi-encoder, sigmoid of "
                             "the cross-encoder score) for a chunk to be used. Calibrated for all-MiniLM-L6-v2 on "
                             "../shared/eval: see README 'Retrieval'.")
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
    figure_floor: float = Field(0.40, description="Minimum caption/context similarity for a figure not linked to a final chunk.")
    linked_figure_floor: float = Field(0.20, description="Minimum similarity for a figure linked to a final chunk.")


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
    tools: bool = Field(True, description="Multi-step mode with tool calls when the server supports them.")
    max_steps: int = Field(6, description="Tool calls per question at most.")
    steps_log: Path | None = Field(None, description="JSON-lines file that records every multi-step call (default for the "
                                   "LLM tool loop: llm_steps.jsonl in the data folder).")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RAG_", env_nested_delimiter="__", extra="ignore")

    db: DatabaseSettings = Field(default_factory=DatabaseSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    sql: SqlSettings = Field(default_factory=SqlSettings)


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
