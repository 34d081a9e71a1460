"""Ask: the analyst's page. Chat with follow-ups; answers with citations that open to the quote and the page
region, the figures right after the paragraph they support, confidence, feedback, export and follow-ups."""

from __future__ import annotations

import streamlit as st

from pages import confidence_badge, get_embedder, get_store, library_or_stop, settings, sidebar
from rag.answer import answer
from rag.answer.export import to_json, to_markdown, untrusted
from rag.answer.suggest import follow_ups
from rag.domain import company_key
from rag.records import DocumentMeta
from rag.retrieve.search import SearchFilters


@st.cache_data(max_entries=8, show_spinner=False)
def _pdf(document_id: int) -> bytes | None:
    return get_store().document_file(document_id)  # fetched once per document, not once per citation


@st.cache_data(max_entries=256, show_spinner=False)
def _crop(document_id: int, page: int, quote: str) -> bytes | None:
    from rag.crops import region_png

    pdf = _pdf(document_id)
    return region_png(pdf, page, quote) if pdf else None


@st.cache_data(max_entries=64, show_spinner=False)
def _figure_png(figure_id: int) -> bytes | None:
    return get_store().figure_image(figure_id)


def _filters(docs: list[DocumentMeta]) -> SearchFilters:
    with st.expander("Filters"):
        c1, c2, c3, c4 = st.columns(4)
        labels = {d.document_id: d.file_name for d in docs}
        ids = c1.multiselect("Documents", list(labels), format_func=labels.get, key="f_docs")
        companies = sorted({d.company for d in docs if d.company})
        comp = c2.multiselect("Companies", companies, key="f_companies")
        years = sorted({d.fiscal_year for d in docs if d.fiscal_year})
        yr = c3.select_slider("Fiscal years", options=years, value=(years[0], years[-1]), key="f_years") \
            if len(years) > 1 else None
        types = c4.multiselect("Types", sorted({d.doc_type for d in docs}), key="f_types")
    narrowed = yr is not None and (yr[0] != years[0] or yr[1] != years[-1])
    return SearchFilters(document_ids=ids or None, companies=[company_key(c) for c in comp] or None,
                         year_min=yr[0] if narrowed else None, year_max=yr[1] if narrowed else None,
                         doc_types=types or None)


@st.dialog("Figure", width="large")
def _enlarge(png: bytes, label: str) -> None:
    """The figure at the dialog's full width (crops are rendered at least twice the width shown in the answer)."""
    st.image(png, caption=label, width="stretch")


def render_answer(a, i: int) -> None:
    """One answer: paragraphs, each followed by the figures that belong after it; then sources and actions."""
    if a.insufficient:
        st.warning(untrusted(a.answer))
    else:
        paras = a.paragraphs
        for p_i, para in enumerate(paras):
            st.markdown(untrusted(para))
            for f in [f for f in a.figures if f.after_paragraph == p_i][:3]:
                png = _figure_png(f.figure_id)
                if png:
                    label = f"{f.caption or 'Figure'} — {f.document}, p. {f.page}"
                    st.image(png, caption=label, width=520)
                    st.caption(f"Why shown: {f.why_shown}")
                    if st.button("Enlarge", key=f"enlarge-{i}-{p_i}-{f.figure_id}", icon=":material/zoom_in:"):
                        _enlarge(png, label)
    c1, c2 = st.columns([1, 5])
    with c1:
        confidence_badge(a.confidence)
    with c2:
        st.caption("; ".join(a.reasons))
    if a.message:
        st.caption(a.message)
    for e in a.evidence:
        with st.expander(f"[{e.marker}] {e.source}" + ("" if e.verified else " — quote not verified")):
            st.markdown("> " + untrusted(e.quote.strip()).replace("\n", "\n> "))
            png = _crop(e.document_id, e.pages[0], e.quote)
            if png:
                st.image(png, caption=f"{e.document}, p. {e.pages[0]}")
    if a.unsupported:
        with st.expander(f"{len(a.unsupported)} statement(s) not supported by the evidence"):
            for u in a.unsupported:
                st.text(f"{u.get('action', 'flagged')}: {u.get('sentence', '')} — {u['reason']}")
    c1, c2, c3 = st.columns([2, 2, 3])
    with c1:
        exports = st.session_state.setdefault("exports", {})  # built once per answer, not on every rerun
        if i not in exports:
            exports[i] = to_markdown(a, get_store())
        st.download_button("Export Markdown", exports[i], file_name="answer.md", mime="text/markdown", key=f"md-{i}")
    with c2:
        st.download_button("Export JSON", to_json(a), file_name="answer.json", mime="application/json",
                           key=f"json-{i}")
    with c3:
        rating = st.feedback("thumbs", key=f"fb-{i}")
        sent = st.session_state.setdefault("feedback_sent", set())
        if rating is not None and i not in sent:
            get_store().add_feedback(a.question, a.answer, [e.chunk_id for e in a.evidence], 1 if rating else -1)
            sent.add(i)
            st.toast("Thanks — feedback saved.")


def page() -> None:
    sidebar()
    st.title("Ask")
    docs = library_or_stop()
    filters = _filters(docs)
    chat = st.session_state.setdefault("chat", [])
    for i, turn in enumerate(chat):
        with st.chat_message(turn["role"]):
            if turn["role"] == "user":
                st.text(turn["content"])
            else:
                render_answer(turn["answer"], i)
    if chat and chat[-1]["role"] == "assistant" and chat[-1].get("follow_ups"):
        cols = st.columns(len(chat[-1]["follow_ups"]))
        for c, q in zip(cols, chat[-1]["follow_ups"]):
            if c.button(q, key=f"fu-{len(chat)}-{q}"):
                st.session_state["pending_question"] = q
                st.rerun()
    question = st.chat_input("Ask about the documents…") or st.session_state.pop("pending_question", None)
    if not question:
        return
    history = [t["content"] for t in chat if t["role"] == "user"]
    chat.append({"role": "user", "content": question})
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        s = settings()
        streamed = st.empty()
        buf: list[str] = []

        def on_token(t: str) -> None:
            buf.append(t)
            streamed.caption("".join(buf)[-400:])

        with st.spinner("Searching the documents…"):
            a = answer(get_store(), get_embedder(), question, s, filters=filters, history=history,
                       on_token=on_token if s.llm.base_url else None, documents=docs)
        streamed.empty()
        r = a.retrieval
        if r is not None:
            get_store().log_query(question, r.chunks, a.timings_ms.get("total", 0.0))
            st.session_state["last_retrieval"] = r
        st.session_state["last_answer"] = a
        chat.append({"role": "assistant", "answer": a,
                     "follow_ups": follow_ups(a, r.intent, docs) if r is not None else []})
    st.rerun()  # the conversation is drawn from the history, the new answer included


page()
