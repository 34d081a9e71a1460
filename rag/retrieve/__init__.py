"""Retrieval: a question → the passages, figures and facts that answer it, in stages, each with its trace
(`rag/retrieve/stages.py`). `retrieve()` is the entry point; `Retrieval` what it returns. Loaded on first use: a
module that needs `rag.retrieve.measure` does not load the whole pipeline."""

__all__ = ["Retrieval", "retrieve"]


def __getattr__(name: str):
    if name in __all__:
        from rag.retrieve import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module 'rag.retrieve' has no attribute {name!r}")
