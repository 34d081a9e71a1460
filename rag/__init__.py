"""Grounded research over analysts' PDFs: ingestion, hybrid search and storage in Postgres + pgvector."""

from rag.config import Settings, settings_from_env
from rag.embed import Embedder
from rag.errors import EmbeddingModelMismatch, IngestError, PasswordRequiredError, RagError, SearchError, StoreError
from rag.ingest.pipeline import IngestResult, ingest_file
from rag.retrieve.search import SearchFilters, SearchResult, hybrid_search
from rag.store import Store, open_store

__all__ = [
    "Embedder", "EmbeddingModelMismatch", "IngestError", "IngestResult", "PasswordRequiredError", "RagError",
    "SearchError", "SearchFilters", "SearchResult", "Settings", "Store", "StoreError", "hybrid_search",
    "ingest_file", "open_store", "settings_from_env",
]
