"""Ingestion: a PDF → its metadata, chunks, figures, tables and facts, stored in one transaction
(`rag/ingest/pipeline.py`). `ingest_file()` is the entry point; `IngestResult` what it returns. Loaded on first use:
a module that needs `rag.ingest.layout` does not load the whole pipeline."""

__all__ = ["IngestResult", "ingest_file"]


def __getattr__(name: str):
    if name in __all__:
        from rag.ingest import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'rag.ingest' has no attribute {name!r}")
