"""The retrieval pipeline: understand → candidates → metadata → rerank → threshold → diversity → k → figures.
Every stage is recorded in a Trace for `search --trace` and the debug page."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from rag.config import RetrievalSettings
from rag.embed import Embedder
from rag.retrieve import rerank
from rag.retrieve.query import STATEMENT_OF_WORD, STATEMENT_QUERIES, QueryIntent, known_companies_of, understand
from rag.retrieve.rerank import years_of
from rag.retrieve.search import SearchFilters
from rag.retrieve.trace import Trace


@dataclass
class Retrieval:
    question: str
    intent: QueryIntent
    chunks: list[dict]
    figures: list[dict]
    trace: Trace
    refused: bool = False
    message: str | None = None
    nearest: list[dict] = field(default_factory=list)
    candidates: list[dict] = field(default_factory=list)  # the scored pool, for the debug view
    timings_ms: dict = field(default_factory=dict)

    def to_json(self, with_trace: bool = False) -> dict:
        """The `search --json` contract, plus refusal fields; `trace` when asked."""
        out = {
            "query": self.question,
            "results": [_result_json(c) for c in self.chunks],
            "figures": [{"figure_id": f["figure_id"], "document": f["file_name"], "page": f["page"],
                         "caption": f["caption"], "score": round(f["similarity"], 4), "chunk_id": f["chunk_id"],
                         "why_shown": f.get("why_shown", "")} for f in self.figures],
            "timings_ms": self.timings_ms,
            "refused": self.refused,
            "message": self.message,
        }
        if with_trace:
            out["intent"] = self.intent.to_dict()
            out["trace"] = self.trace.to_list()
            out["nearest"] = [_result_json(c) for c in self.nearest]
        return out


def _result_json(c: dict) -> dict:
    return {
        "document": c["file_name"], "document_id": c["document_id"], "chunk_id": c["chunk_id"],
        "page": c["page_start"], "pages": list(range(c["page_start"], c["page_end"] + 1)),
        "section": c["section_type"], "heading": c["heading"], "score": round(c.get("final", c["fused_score"]), 4),
        "scores": {"cosine": round(c["cosine_similarity"], 4), "text_rank": round(c["text_rank"], 4),
                   "fused": round(c["fused_score"], 6), "semantic_rank": c["semantic_rank"],
                   "full_text_rank": c["full_text_rank"], "relevance": round(c.get("relevance", 0.0), 4),
                   **{k: round(v, 4) for k, v in c.get("factors", {}).items()},
                   "final": round(c.get("final", 0.0), 4)},
        "text": c["content"],
    }


def dynamic_k(intent: QueryIntent, cfg: RetrievalSettings) -> int:
    if cfg.k:
        return cfg.k
    words = len(intent.question.split())
    if intent.compare or len(intent.companies) > 1 or len(intent.years) > 2:
        return 7
    if words <= 8 and not intent.statement_words:
        return 3
    return 5


def _entities(intent: QueryIntent) -> list[dict]:
    """Sub-searches for a question naming several companies or periods: one per company (× year)."""
    if len(intent.companies) > 1:
        return [{"companies": [c]} for c in intent.companies]
    if intent.compare and len(intent.years) > 1 and intent.companies:
        return [{"companies": intent.companies, "year": y} for y in intent.years]
    return []


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower()))


def retrieve(store, embedder: Embedder, question: str, cfg: RetrievalSettings | None = None,
             filters: SearchFilters | None = None, history: list[str] | None = None,
             documents: list[dict] | None = None) -> Retrieval:
    cfg = cfg or RetrievalSettings()
    t_start = time.perf_counter()
    trace = Trace()
    docs = documents if documents is not None else store.list_documents()
    by_id = {d["document_id"]: d for d in docs}

    with trace.stage("query understanding") as st:
        intent = understand(question, known_companies_of(docs), history)
        st["notes"] = {"rewritten": intent.rewritten, "companies": intent.companies, "years": intent.years,
                       "quarters": intent.quarters, "doc_types": intent.doc_types, "latest": intent.latest,
                       "compare": intent.compare, "target_sections": intent.target_sections,
                       "related_sections": intent.related_sections, "statement": intent.statement_words,
                       "dates": intent.dates, "explain": intent.explain, "annual": intent.annual}
    result = Retrieval(question, intent, [], [], trace)

    # Filters: explicit ones from the user; detected ones only when documents match them.
    with trace.stage("metadata filters") as st:
        user = filters or SearchFilters()
        params = user.as_params()
        pool_docs = [d for d in docs if _doc_passes(d, user)]
        if (user.document_ids or user.companies or user.year_min or user.year_max or user.doc_types) and not pool_docs:
            result.refused = True
            result.message = "no document matches the filters " + _describe(user)
            st["notes"] = {"message": result.message}
            st["out"] = 0
            return result
        auto: dict = {}
        if intent.companies and not user.companies and not user.document_ids:
            if any(d.get("company_key") in intent.companies for d in pool_docs):
                params["filter_companies"] = intent.companies
                auto["companies"] = intent.companies
                pool_docs = [d for d in pool_docs if d.get("company_key") in intent.companies]
        dated = [d for d in pool_docs if d.get("published_date") and intent.dates
                 and any(abs(_days(d["published_date"], x)) <= 3 for x in intent.dates)]
        if dated and not user.document_ids:
            # a document named by its date ("the 8-K dated 1st July 2022")
            params["filter_document_ids"] = [d["document_id"] for d in dated]
            auto["dates"] = intent.dates
            pool_docs = dated
        ty = intent.target_year
        if ty and not dated and not (user.year_min or user.year_max) and len(intent.companies) <= 1 \
                and not intent.compare and auto.get("companies"):
            exact = [d for d in pool_docs if ty in years_of(d)]
            typed = [d for d in exact if not intent.doc_types or d["doc_type"] in intent.doc_types]
            if typed and not intent.quarters:
                # every document a reader may call FY<ty>: the issuer's label, the year its fiscal year ends
                params["filter_document_ids"] = [d["document_id"] for d in exact]
                auto["year"] = ty
                pool_docs = exact
        if intent.latest and not auto.get("year"):
            newest = max((rerank.doc_time(d) for d in pool_docs), default=0)
            auto["latest"] = newest
        st["notes"] = {"user": _describe(user), "detected": auto}
        st["out"] = len(pool_docs)

    with trace.stage("embed query") as st:
        vec = embedder.encode_query(intent.rewritten)
    pool = max(50, 2 * cfg.rerank_size)
    with trace.stage("candidates (hybrid SQL)") as st:
        cands = store.match_chunks(vec, intent.text_query, match_count=pool, candidate_count=pool, rrf_k=cfg.rrf_k,
                                   **params)
        seen = {c["chunk_id"] for c in cands}
        if intent.statement_words:
            # The statement the question names: a search by its title, so its own chunks are in the pool.
            title = STATEMENT_QUERIES[STATEMENT_OF_WORD[intent.statement_words[0]]]
            # Their fused scores answer the title query, not the question: they enter at the pool's median and
            # rank by the statement boost and their own text only.
            floor = float(np.median([c["fused_score"] for c in cands])) if cands else 0.0
            for c in store.match_chunks(vec, title, match_count=pool // 2, candidate_count=pool, rrf_k=cfg.rrf_k,
                                        full_text_weight=2.0, **params):
                if c["chunk_id"] not in seen:
                    seen.add(c["chunk_id"])
                    c["fused_score"] = min(c["fused_score"], floor)
                    cands.append(c)
        ents = _entities(intent)
        for e in ents:  # every named company / period gets its own candidates
            p = dict(params, filter_companies=e["companies"])
            if "year" in e:
                ids = [d["document_id"] for d in pool_docs if e["year"] in years_of(d)]
                if not ids:
                    continue
                p["filter_document_ids"] = ids
            for c in store.match_chunks(vec, intent.text_query, match_count=pool // 2, candidate_count=pool,
                                        rrf_k=cfg.rrf_k, **p):
                if c["chunk_id"] not in seen:
                    seen.add(c["chunk_id"])
                    cands.append(c)
        for c in cands:
            d = by_id.get(c["document_id"], {})
            c["company_key"] = d.get("company_key")
            c["doc_type"] = d.get("doc_type", c.get("doc_type"))
            c["year_labels"] = sorted(years_of(d) | years_of(c))
        st["in"], st["out"] = None, len(cands)
        st["notes"] = {"pool": pool, "sub_searches": len(ents)}

    with trace.stage("rerank", len(cands)) as st:
        newest = max((rerank.doc_time(d) for d in docs), default=0.0)
        rerank.score(cands, intent, cfg, auto, {d["document_id"]: d["chunks"] for d in docs}, newest)
        st["notes"] = {"statement": intent.statement_words[:1]}
        cands.sort(key=lambda c: -c["final"])
        st["out"] = len(cands)
        st["notes"]["cross_encoder"] = cfg.cross_encoder or "none (heuristics)"
    result.candidates = cands

    with trace.stage("coverage", len(cands)) as st:
        # A specific term of the question (DocVQA, Scope 1) that no searched document contains means the
        # documents do not say: better "insufficient data" than the nearest passage about something else.
        missing: list[str] = []
        if intent.key_terms:
            scope = [d["document_id"] for d in pool_docs] if len(pool_docs) < len(docs) else None
            missing = [r["term"] for r in store.rpc("terms_missing", {"p_terms": intent.key_terms,
                                                                        "p_document_ids": scope})]
        st["notes"] = {"key_terms": intent.key_terms, "missing": missing}
        st["out"] = 0 if missing else len(cands)
    if missing:
        where = "the documents of " + ", ".join(sorted({d.get("company") or d["file_name"] for d in pool_docs})[:5]) \
            if len(pool_docs) < len(docs) else "the documents"
        result.refused = True
        result.message = f"insufficient data: {where} do not mention " + ", ".join(f"'{m}'" for m in missing)
        result.nearest = cands[:5]
        result.timings_ms = {"total": round((time.perf_counter() - t_start) * 1000, 1)}
        return result

    with trace.stage("threshold", len(cands)) as st:
        passed = [c for c in cands if c["relevance"] >= cfg.threshold]
        st["out"] = len(passed)
        st["notes"] = {"threshold": cfg.threshold}
    if not passed:
        result.refused = True
        result.message = f"no relevant passages above threshold {cfg.threshold:.2f}"
        result.nearest = sorted(cands, key=lambda c: -c["relevance"])[:5]
        result.timings_ms = {"total": round((time.perf_counter() - t_start) * 1000, 1)}
        return result

    k = dynamic_k(intent, cfg)
    single_doc = len({c["document_id"] for c in passed[:10]}) == 1 or bool(user.document_ids and len(user.document_ids) == 1)
    with trace.stage("diversity", len(passed)) as st:
        pool_for_k = passed[: cfg.rerank_size]
        if len(intent.companies) > 1 or (intent.compare and len(intent.years) > 1):
            # every named company / year keeps its best candidates, wherever they ranked overall
            extra = [c for c in passed[cfg.rerank_size:]
                     if (c.get("company_key") in intent.companies or set(c["year_labels"]) & set(intent.years))]
            pool_for_k += extra[: cfg.rerank_size]
        chosen = _diversify(store, pool_for_k, k, cfg, intent, single_doc)
        st["out"] = len(chosen)
        st["notes"] = {"k": k, "mmr_lambda": cfg.mmr_lambda if cfg.diversity else None,
                       "distinct_documents": len({c["document_id"] for c in chosen}),
                       "distinct_pages": len({(c["document_id"], c["page_start"]) for c in chosen})}
    result.chunks = chosen

    with trace.stage("figures", len(chosen)) as st:
        result.figures = _figures(store, vec, chosen, cfg)
        st["out"] = len(result.figures)
    result.timings_ms = {"total": round((time.perf_counter() - t_start) * 1000, 1),
                         **{s["stage"]: s["ms"] for s in trace.stages}}
    return result


def _days(a, b) -> int:
    import datetime as dt

    return (dt.date.fromisoformat(str(a)[:10]) - dt.date.fromisoformat(str(b)[:10])).days


def _doc_passes(d: dict, f: SearchFilters) -> bool:
    if f.document_ids and d["document_id"] not in f.document_ids:
        return False
    if f.companies and d.get("company_key") not in f.companies:
        return False
    if f.year_min and (d.get("fiscal_year") or 0) < f.year_min:
        return False
    if f.year_max and (d.get("fiscal_year") or 9999) > f.year_max:
        return False
    if f.doc_types and d.get("doc_type") not in f.doc_types:
        return False
    return True


def _describe(f: SearchFilters) -> str:
    parts = [f"{k}={v}" for k, v in f.__dict__.items() if v not in (None, [], ())]
    return ", ".join(parts) or "(none)"


def _embeddings(store, ids: list[int]) -> dict[int, np.ndarray]:
    rows = store.rpc("chunk_embeddings", {"p_ids": ids})
    return {r["chunk_id"]: np.array(r["embedding"].strip("[]").split(","), dtype=np.float32)
            for r in rows if r.get("embedding")}


def _diversify(store, cands: list[dict], k: int, cfg: RetrievalSettings, intent: QueryIntent,
               single_doc: bool) -> list[dict]:
    """MMR over the pool with per-document caps, one chunk per location group (document, page,
    chunk_index // 3), near-duplicate removal, entity coverage and a character budget."""
    if not cfg.diversity:
        return _budget(cands[:k], cfg)
    embs = _embeddings(store, [c["chunk_id"] for c in cands])
    cap = k if single_doc else cfg.max_per_document
    groups: set = set()
    per_doc: dict[int, int] = {}
    chosen: list[dict] = []

    def allowed(c: dict) -> bool:
        g = (c["document_id"], c["page_start"], c["chunk_index"] // 3)
        if g in groups or per_doc.get(c["document_id"], 0) >= cap:
            return False
        w = _words(c["content"])
        for o in chosen:  # near-duplicate snippets (the same boilerplate in several filings)
            ow = _words(o["content"])
            if w and ow and len(w & ow) / len(w | ow) > 0.8:
                return False
        return True

    def take(c: dict) -> None:
        chosen.append(c)
        groups.add((c["document_id"], c["page_start"], c["chunk_index"] // 3))
        per_doc[c["document_id"]] = per_doc.get(c["document_id"], 0) + 1

    # Entity coverage first: the best chunk of each named company (or year, in a comparison).
    if len(intent.companies) > 1:
        for key in intent.companies:
            best = next((c for c in cands if c.get("company_key") == key and allowed(c)), None)
            if best:
                take(best)
    elif intent.compare and len(intent.years) > 1:
        for y in intent.years:
            best = next((c for c in cands if y in c.get("year_labels", ()) and allowed(c)), None)
            if best:
                take(best)
    lam = cfg.mmr_lambda
    while len(chosen) < k:
        best, best_score = None, -1e9
        for c in cands:
            if c in chosen or not allowed(c):
                continue
            e = embs.get(c["chunk_id"])
            sim = max((float(e @ embs[o["chunk_id"]]) for o in chosen if e is not None and o["chunk_id"] in embs),
                      default=0.0)
            s = lam * c["final"] - (1 - lam) * sim
            if s > best_score:
                best, best_score = c, s
        if best is None:
            break
        c = best
        c["mmr"] = best_score
        take(c)
    chosen.sort(key=lambda c: -c["final"])
    return _budget(chosen, cfg)


def _budget(chosen: list[dict], cfg: RetrievalSettings) -> list[dict]:
    out, used = [], 0
    for c in chosen:
        if out and used + len(c["content"]) > cfg.context_chars:
            break
        out.append(c)
        used += len(c["content"])
    return out


def _figures(store, vec, chunks: list[dict], cfg: RetrievalSettings) -> list[dict]:
    """Figures linked to the final chunks or matching the question by caption/context/OCR; at most
    max_figures, none below the floors. Each carries its chunk and a 'why shown'."""
    if not cfg.max_figures or not chunks:
        return []
    found = store.match_figures(vec, match_count=cfg.max_figures * 2, chunk_ids=[c["chunk_id"] for c in chunks],
                                document_ids=list({c["document_id"] for c in chunks}))
    rank = {c["chunk_id"]: i for i, c in enumerate(chunks)}
    keep = []
    for f in found:
        if f["linked"] and f["similarity"] >= cfg.linked_figure_floor:
            f["why_shown"] = f"linked to answer chunk #{rank[f['chunk_id']] + 1}; caption similarity {f['similarity']:.2f}"
        elif f["similarity"] >= cfg.figure_floor:
            f["why_shown"] = f"caption/context similarity {f['similarity']:.2f}"
        else:
            continue
        keep.append(f)
    keep.sort(key=lambda f: (-(f["similarity"] + (0.1 if f["linked"] else 0.0))))
    return keep[: cfg.max_figures]
