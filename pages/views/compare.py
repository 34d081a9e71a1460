"""Compare: one question under two settings, side by side — found → after filtering → used, and time."""

from __future__ import annotations

import time

import streamlit as st

from pages import base_settings, get_embedder, get_store, library_or_stop, sidebar
from rag.answer.labels import duration_label, shorten, source_label
from rag.answer.markup import answer_markdown, neutral
from rag.assistant import answer
from rag.retrieve.stages import Candidates, Threshold

NO_LLM = ("Needs a language model: without retrieval there is nothing to quote, so only an LLM can answer. "
          "Set OPENAI_BASE_URL (and OPENAI_API_KEY) to enable it.")


def _controls(side: str, llm: bool) -> dict:
    st.markdown(f"**Setting {side}**")
    k = st.slider("Top-k", 1, 10, 5 if side == "A" else 3, key=f"{side}_k")
    thr = st.slider("Similarity threshold", 0.0, 0.9, 0.30 if side == "A" else 0.50, 0.05, key=f"{side}_thr")
    rr = st.toggle("Rerank", value=side == "A", key=f"{side}_rr")
    rec = st.slider("Recency weight", 0.0, 1.0, 0.15, 0.05, key=f"{side}_rec")
    div = st.toggle("Diversity", value=side == "A", key=f"{side}_div")
    no_ret = st.toggle("Without retrieval (LLM only)", value=False, key=f"{side}_noret", disabled=not llm,
                       help=None if llm else NO_LLM)
    return {"k": k, "threshold": thr, "rerank": rr, "recency_weight": rec, "diversity": div, "no_retrieval": no_ret}


def _run(question: str, knobs: dict) -> dict:
    s = base_settings()
    t0 = time.perf_counter()
    if knobs["no_retrieval"]:
        from rag.answer.llm import LLMError, chat

        try:
            text = chat(s.llm, [{"role": "user", "content": question}])
        except LLMError as exc:
            text = f"LLM error: {exc}"
        return {"answer": text, "shown": neutral(text), "found": 0, "filtered": 0, "used": 0,
                "ms": (time.perf_counter() - t0) * 1000, "chunks": [], "sources": [], "confidence": "no evidence"}
    s.retrieval = s.retrieval.model_copy(update={k: v for k, v in knobs.items() if k != "no_retrieval"})
    a = answer(get_store(), get_embedder(), question, s, use_llm=bool(s.llm.base_url))
    r = a.retrieval
    found = r.trace.of(Candidates) if r is not None else None
    kept = r.trace.of(Threshold) if r is not None else None
    return {"answer": a.answer, "shown": answer_markdown(a), "confidence": a.confidence,
            "found": (found.n_out if found else 0) or 0, "filtered": (kept.n_out if kept else 0) or 0,
            "used": len(r.chunks) if r is not None else 0, "ms": (time.perf_counter() - t0) * 1000,
            "sources": [{"marker": e.marker, "source": e.source, "quote": e.quote, "verified": e.verified}
                        for e in a.evidence],
            "chunks": [{"source": source_label(c), "score": f"{c.final:.3f}", "cosine": f"{c.cosine_similarity:.3f}"}
                       for c in (r.chunks if r is not None else [])]}


def _side(res: dict) -> None:
    top, bottom = st.columns(2), st.columns(2)
    top[0].metric("Found", res["found"])
    top[1].metric("After filtering", res["filtered"])
    bottom[0].metric("Used", res["used"])
    bottom[1].metric("Time", duration_label(res["ms"]))
    st.caption(f"Confidence: {res['confidence'].replace('_', ' ')}")
    st.markdown(res["shown"])  # the answer as Markdown, the document's text in it neutralised
    if res["sources"]:
        st.markdown("**Sources**")
        for e in res["sources"]:
            st.markdown(f"**[{e['marker']}]** {neutral(e['source'])}" + ("" if e["verified"] else " *(quote not "
                                                                                               "verified)*"))
            if e["quote"]:
                st.caption(neutral(shorten(e["quote"], 300)))
    if res["chunks"]:
        with st.expander(f"The {len(res['chunks'])} passages used"):
            st.table(res["chunks"])  # static: wrapped to the column, no cell cut, no column off-screen


def page() -> None:
    sidebar()
    st.title("Compare settings")
    library_or_stop()
    llm = bool(base_settings().llm.base_url)
    question = st.text_input("Question", key="cmp_q")
    cols = st.columns(2)
    knobs = {}
    for side, col in zip("AB", cols, strict=True):
        with col:
            knobs[side] = _controls(side, llm)
    if not llm:
        st.caption("“Without retrieval” is unavailable. " + NO_LLM)
    if st.button("Compare", type="primary") and question:
        st.session_state["cmp"] = {side: _run(question, knobs[side]) for side in "AB"}
    out = st.session_state.get("cmp")
    if not out:
        return
    for side, col in zip("AB", st.columns(2), strict=True):
        with col, st.container(border=True):
            st.markdown(f"**Setting {side}**")
            _side(out[side])


page()
