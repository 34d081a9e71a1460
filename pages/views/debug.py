"""Debug (developers): the corpus, why the last question's chunks were chosen, the old-PDF-bias monitor,
similarities, feedback and the last evaluation against its baseline."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from pages import documents, get_store, sidebar
from rag.records import DocumentMeta

ROOT = Path(__file__).resolve().parents[2]


def _corpus(docs: list[DocumentMeta]) -> None:
    st.subheader("Corpus")
    rows = [{"document": d.file_name, "type": d.doc_type, "year": d.fiscal_year, "pages": d.page_count,
             "chunks": d.chunks, "figures": d.figures, "OCR pages": d.ocr_pages} for d in docs]
    st.dataframe(rows, hide_index=True, use_container_width=True)
    long = [{"document": r["document"], "count": r[k], "kind": k} for r in rows for k in ("chunks", "figures",
                                                                                          "OCR pages")]
    fig = px.bar(long, x="document", y="count", color="kind", barmode="group", height=360,
                 title="Chunks, figures and OCR pages per document")
    fig.update_layout(xaxis_tickangle=-35, margin=dict(l=10, r=10, t=40, b=10))
    st.plotly_chart(fig, use_container_width=True, key="corpus_counts")


def _question(r) -> None:
    st.subheader(f"Last question: {r.question}")
    i = r.intent
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Detected**")
        st.json({"companies": i.companies, "years": i.years, "quarters": i.quarters, "dates": i.dates,
                 "document types": i.doc_types, "latest": i.latest, "compare": i.compare,
                 "statement": i.statement_words[:1], "filing parts": i.filing_sections,
                 "target sections": i.target_sections, "related sections": i.related_sections,
                 "key terms": i.key_terms, "rewritten": i.rewritten}, expanded=False)
    with c2:
        st.markdown("**Pipeline**")
        st.dataframe([{"stage": s.stage, "in": s.n_in, "out": s.n_out, "ms": s.ms}
                      for s in r.trace.stages], hide_index=True, use_container_width=True)
    st.markdown("**Top 10 candidates, every score**")
    chosen = {c.chunk_id for c in r.chunks}
    top = [{"used": "✓" if c.chunk_id in chosen else "", "document": c.file_name, "page": c.page_start,
            "section": c.section_type, "cosine": round(c.cosine_similarity, 3),
            "text rank": round(c.text_rank, 3), "fused": round(c.fused, 5),
            **{k: round(v, 3) for k, v in c.factors.items() if k != "fused_norm"},
            "final": round(c.final, 3),
            "why": "; ".join(f"{k}: {why}" for k, why in c.reasons.items() if k != "fused_norm")}
           for c in r.candidates[:10]]
    st.dataframe(top, hide_index=True, use_container_width=True)
    st.caption(f"Distinct documents in the answer: {len({c.document_id for c in r.chunks})} · distinct pages: "
               f"{len({(c.document_id, c.page_start) for c in r.chunks})} · chunks: {len(r.chunks)}"
               + (f" · refused: {r.message}" if r.refused else ""))


def _bias_and_feedback(store) -> None:
    st.subheader("Where answers come from (recent questions)")
    share = [x for x in store.result_share(100) if x["results"] or x["corpus_share"] > 0]
    if share and any(x["results"] for x in share):
        names = [x["file_name"] for x in share]
        fig = go.Figure([go.Bar(name="share of results", x=names, y=[x["result_share"] for x in share]),
                         go.Bar(name="share of corpus (chunks)", x=names, y=[x["corpus_share"] for x in share])])
        fig.update_layout(barmode="group", height=340, margin=dict(l=10, r=10, t=30, b=10), xaxis_tickangle=-35,
                          title="A document far above its corpus share in every answer is the old-PDF bias")
        st.plotly_chart(fig, use_container_width=True, key="bias")
    else:
        st.caption("No questions asked yet.")
    sims = store.recent_similarities(100)
    c1, c2 = st.columns(2)
    with c1:
        if sims:
            fig = px.histogram(x=sims, nbins=20, height=280, title="Cosine similarity of the chunks used")
            fig.update_layout(margin=dict(l=10, r=10, t=40, b=10), xaxis_title="cosine", yaxis_title="chunks")
            st.plotly_chart(fig, use_container_width=True, key="sims")
    with c2:
        fb = store.feedback_stats()
        st.markdown("**Feedback**")
        st.metric("👍 / 👎", f"{fb['up']} / {fb['down']}", help=f"{fb['last_7_days']} in the last 7 days")


def _eval_report() -> None:
    st.subheader("Last evaluation against its baseline")
    reports = sorted((ROOT / "bench" / "results").glob("eval_*.json"), key=lambda p: p.stat().st_mtime)
    if not reports:
        st.caption("Run `python -m rag eval QUESTIONS.jsonl --baseline --json bench/results/eval_NAME.json`.")
        return
    pick = st.selectbox("Report", [p.name for p in reports][::-1], key="eval_pick")
    rep = json.loads((ROOT / "bench" / "results" / pick).read_text())
    plot = rep.get("plot") or {}
    metrics = [m for m, v in zip(plot.get("metrics", []), plot.get("system", [])) if v is not None]
    sys_v = [v for v in plot.get("system", []) if v is not None]
    base_v = [b for v, b in zip(plot.get("system", []), plot.get("baseline", [])) if v is not None]
    fig = go.Figure([go.Bar(name="system", x=metrics, y=sys_v),
                     go.Bar(name="plain cosine baseline", x=metrics, y=[b or 0 for b in base_v])])
    fig.update_layout(barmode="group", height=320, yaxis_range=[0, 1], margin=dict(l=10, r=10, t=30, b=10),
                      title=Path(rep.get("questions_file", pick)).name)
    st.plotly_chart(fig, use_container_width=True, key="eval")


def page() -> None:
    sidebar()
    st.title("Debug")
    store = get_store()
    docs = documents()
    if not docs:
        st.info("The library is empty.")
        return
    _corpus(docs)
    r = st.session_state.get("last_retrieval")
    if r is not None:
        _question(r)
    else:
        st.caption("Ask a question on the Ask page to see why its chunks were chosen.")
    _bias_and_feedback(store)
    _eval_report()


page()
