"""The answer evaluation's baseline, run in the same process as the system: plain cosine top 5 (the old
retriever) and the quotes answer (the extractive answer before table facts: the question's best sentences and
table rows in document order, each cited)."""

from __future__ import annotations

import time

from rag.answer.compose import extractive_answer
from rag.answer.finalize import insufficient
from rag.answer.model import Answer, PlacedFigure
from rag.config import Settings
from rag.issuers import issuers_of
from rag.records import Candidate, DocumentMeta, Hit
from rag.retrieve.pipeline import Retrieval
from rag.retrieve.query import understand
from rag.retrieve.stages import Figures
from rag.retrieve.trace import Trace


def baseline_answer(store, embedder, question: str, settings: Settings, docs: list[DocumentMeta]) -> Answer:
    t0 = time.perf_counter()
    intent = understand(question, issuers_of(store, docs))
    vec = embedder.encode_query(question)
    lit = "[" + ",".join(f"{x:.7g}" for x in vec) + "]"
    by_id = {d.document_id: d for d in docs}
    chunks = []
    for row in store.rpc("match_chunks_cosine", {"query_embedding": lit, "match_count": 5}):
        hit = Hit.from_row(row)
        c = Candidate.of(hit, by_id.get(hit.document_id))
        c.relevance = c.final = hit.cosine_similarity
        chunks.append(c)
    r = Retrieval(question, intent, chunks, [], Trace(), threshold=0.0)
    a = extractive_answer(r, settings) if chunks else insufficient(r, "nothing retrieved")
    if chunks and not a.insufficient:
        a.figures = _figures_as_before(store, vec, chunks, a, settings)
    a.timings_ms = {"retrieval": round((time.perf_counter() - t0) * 1000, 1), **a.timings_ms}
    return a


def _figures_as_before(store, vec, chunks: list[Candidate], a: Answer, settings: Settings) -> list[PlacedFigure]:
    """The figures as they were shown before figures had kinds: linked to a returned chunk or close to the question
    by caption, any kind, at most three, each after the paragraph of its document."""
    cfg = settings.retrieval
    found = store.match_figures(vec, match_count=cfg.max_figures * cfg.selection.figure_pool_factor,
                                chunk_ids=[c.chunk_id for c in chunks],
                                document_ids=list({c.document_id for c in chunks}))
    para: dict[int, int] = {}
    for i, p in enumerate(a.paragraphs):
        for e in a.evidence:
            if f"[{e.marker}]" in p:
                para.setdefault(e.document_id, i)
    return [PlacedFigure.of(f, f.file_name, para[f.document_id])
            for f in Figures.best(Figures.admit(found, chunks, cfg, kinds=False), cfg) if f.document_id in para]
