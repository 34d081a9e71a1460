"""Ask: the analyst's page. A conversation kept in the database (reload keeps it; new chat, past conversations,
export of the whole conversation); answers whose [n] markers link to their citations, each citation showing its
quote on a crop of the page and opening the whole page with the quote marked; the figures right after the
paragraph they support; confidence, feedback, export and follow-ups. A first run offers the sample documents."""

from __future__ import annotations

import streamlit as st

from pages import confidence_badge, documents, get_embedder, get_store, settings, sidebar, table_frame
from pages.viewer import open_cited_page, pdf_of
from rag.answer.export import conversation_json, conversation_markdown, export_name, to_json, to_markdown
from rag.answer.labels import document_label, shorten, time_label
from rag.answer.markup import answer_markdown, markers_in, neutral
from rag.answer.model import Answer
from rag.answer.suggest import example_questions, follow_ups
from rag.assistant import MAX_QUESTION, answer, check_question
from rag.domain import company_key
from rag.errors import RagError
from rag.library import library_summary, load_samples, sample_files
from rag.records import DocumentMeta, Table
from rag.retrieve.search import SearchFilters


@st.cache_data(max_entries=256, show_spinner=False)
def _crop(document_id: int, pages: tuple[int, ...], quote: str) -> bytes | None:
    from rag.crops import region_png

    pdf = pdf_of(document_id)
    return region_png(pdf, list(pages), quote) if pdf else None


@st.cache_data(max_entries=256, show_spinner=False)
def _tables(chunk_id: int) -> list[Table]:
    return get_store().tables_of_chunks([chunk_id])


@st.cache_data(max_entries=64, show_spinner=False)
def _figure_png(figure_id: int) -> bytes | None:
    return get_store().figure_image(figure_id)


def _filters(docs: list[DocumentMeta]) -> SearchFilters:
    with st.expander("Filters"):
        c1, c2, c3, c4 = st.columns(4)
        labels = {d.document_id: document_label(d) for d in docs}
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


@st.dialog("Cited table", width="large")
def _open_tables(e, tables: list[Table]) -> None:
    """The table(s) of the cited passage as read at ingestion: each value under its column, with the table's title,
    unit and pages. Shown as a data grid (plain text), never as Markdown."""
    for t in tables:
        pages = f"p. {t.page_start}" + (f"–{t.page_end}" if t.page_end != t.page_start else "")
        unit = " ".join(x for x in (t.unit or "", {1e3: "thousands", 1e6: "millions", 1e9: "billions"}.get(t.scale, ""))
                        if x)
        st.markdown(f"**{neutral(t.title or 'Table')}** — {neutral(e.document)}, {pages}"
                    + (f" · in {neutral(unit)}" if unit else ""))
        head, lines = t.grid()
        st.dataframe(table_frame(head, lines), hide_index=True, width="stretch")


_ANCHOR_STYLE = "scroll-margin-top: 5rem"


def _chosen(key: str) -> None:
    """A marker's chip clicked: its citation opens (below, in the same run), and the chip is unselected again."""
    st.session_state["open_citation"] = (key, st.session_state.get(key))
    st.session_state[key] = None


def _open_buttons(i: int, p_i: int, cited: list) -> None:
    """Under a paragraph, one chip per [n] marker in it ("[2] p. 45"): a click opens the cited document at its
    quote. (The marker itself links to its citation card below the answer.)"""
    if not cited:
        return
    key = f"open-{i}-{p_i}"
    pages = {e.marker: e.pages[0] for e in cited}
    st.pills("Open the cited document", list(pages), format_func=lambda n: f"[{n}] p. {pages[n]}", key=key,
             on_change=_chosen, args=(key,), label_visibility="collapsed")
    asked = st.session_state.get("open_citation")
    if asked and asked[0] == key and asked[1] in pages:
        st.session_state.pop("open_citation")
        open_cited_page(next(e for e in cited if e.marker == asked[1]))


def _paragraphs(a: Answer, i: int) -> None:
    """Each paragraph, its [n] markers linked to their citation below the answer (the document's text in it is
    neutralised: rag/answer/markup.py), then its figures."""
    by_marker = {e.marker: e for e in a.evidence}
    for p_i, para in enumerate(a.paragraphs):
        st.markdown(answer_markdown(a, para, lambda n: f"#src-{i}-{n}" if n in by_marker else None))
        _open_buttons(i, p_i, [by_marker[n] for n in markers_in(para) if n in by_marker])
        for f in [f for f in a.figures if f.after_paragraph == p_i][:3]:
            png = _figure_png(f.figure_id)
            if png:
                label = neutral(f"{f.caption or 'Figure'} — {f.document}, p. {f.page}")  # a caption is Markdown
                st.image(png, caption=label, width=520)
                st.caption("Why shown: " + neutral(f.why_shown))
                if st.button("Enlarge", key=f"enlarge-{i}-{p_i}-{f.figure_id}", icon=":material/zoom_in:"):
                    _enlarge(png, label)


def _citations(a: Answer, i: int) -> None:
    if not a.evidence:
        return
    st.markdown("**Sources**")
    for e in a.evidence:
        # our own id, the [n] link's target; the margin keeps the citation clear of the app's header when jumped to
        st.markdown(f'<div id="src-{i}-{e.marker}" style="{_ANCHOR_STYLE}"></div>', unsafe_allow_html=True)
        with st.container(border=True):
            st.markdown(f"**[{e.marker}]** {neutral(e.source)}" + ("" if e.verified else " — *quote not verified*"))
            st.markdown("> " + neutral(" ".join(e.quote.split())))
            png = _crop(e.document_id, tuple(e.pages), e.quote)
            if png:
                st.image(png, width=560)
            tables = _tables(e.chunk_id)  # the cited passage's table(s), as read at ingestion
            with st.container(horizontal=True):
                if st.button(f"Open page {e.pages[0]}", key=f"page-{i}-{e.marker}", icon=":material/description:"):
                    open_cited_page(e)
                if tables and st.button("Show table" if len(tables) == 1 else f"Show {len(tables)} tables",
                                        key=f"table-{i}-{e.marker}", icon=":material/table:"):
                    _open_tables(e, tables)


def _actions(a: Answer, i: int) -> None:
    c1, c2, c3 = st.columns([2, 2, 3])
    with c1:
        exports = st.session_state.setdefault("exports", {})  # built once per answer, not on every rerun
        key = (st.session_state.get("conversation_id"), i)
        if key not in exports:
            exports[key] = to_markdown(a, get_store().figure_image)
        st.download_button("Export Markdown", exports[key], file_name=export_name(a.question, "md"),
                           mime="text/markdown", key=f"md-{i}")
    with c2:
        st.download_button("Export JSON", to_json(a), file_name=export_name(a.question, "json"),
                           mime="application/json", key=f"json-{i}")
    with c3:
        rating = st.feedback("thumbs", key=f"fb-{st.session_state.get('conversation_id')}-{i}")
        sent = st.session_state.setdefault("feedback_sent", set())
        if rating is not None and key not in sent:
            get_store().add_feedback(a.question, a.answer, [e.chunk_id for e in a.evidence], 1 if rating else -1)
            sent.add(key)
            st.toast("Thanks — feedback saved.")


def render_answer(a: Answer, i: int) -> None:
    """One answer: paragraphs with linked markers, each followed by its figures; then sources and actions. A refusal
    is said once (its text names the nearest pages when they are about the question)."""
    if a.insufficient:
        st.warning(answer_markdown(a))
    else:
        _paragraphs(a, i)
        c1, c2 = st.columns([1, 5])
        with c1:
            confidence_badge(a.confidence)
        with c2:
            st.caption(neutral("; ".join(a.reasons)))  # a reason can name a document or quote it
        if a.message and a.message not in a.answer:
            st.caption(neutral(a.message))
    _citations(a, i)
    if a.unsupported:
        with st.expander(f"{len(a.unsupported)} statement(s) not supported by the evidence"):
            for u in a.unsupported:
                st.text(f"{u.get('action', 'flagged')}: {u.get('sentence', '')} — {u['reason']}")
    _actions(a, i)


# -- the conversation, kept in the database -----------------------------------------------------------------------
def _load_conversation() -> list[dict]:
    """The conversation of the URL (?c=ID), read from the database when the session does not hold it yet."""
    wanted = st.query_params.get("c")
    if wanted and str(st.session_state.get("conversation_id")) != wanted:
        got = get_store().conversation(int(wanted)) if wanted.isdigit() else None
        if got is None:
            st.query_params.pop("c", None)
            st.session_state.update(conversation_id=None, chat=[])
            st.toast("That conversation is not in this library.")
        else:
            title, turns = got
            st.session_state.update(conversation_id=int(wanted), conversation_title=title, chat=[
                {"question": t.question, "answer": Answer.from_json(t.answer), "follow_ups": list(t.follow_ups)}
                for t in turns])
    return st.session_state.setdefault("chat", [])


def _new_chat() -> None:
    st.query_params.pop("c", None)
    st.session_state.update(conversation_id=None, conversation_title=None, chat=[], exports={})


def _open(conversation_id: int) -> None:
    st.query_params["c"] = str(conversation_id)
    st.session_state["conversation_id"] = None  # read it from the database on the rerun


def _conversation_tag(cid: int | None) -> str:
    """What a conversation's export holds, with its number: two conversations that began with one question on one
    day export under two names ("…_conversation-12.md")."""
    return f"conversation-{cid}" if cid is not None else "conversation"


def _conversations_sidebar(chat: list[dict]) -> None:
    with st.sidebar:
        st.button("New chat", icon=":material/add_comment:", on_click=_new_chat, width="stretch")
        past = get_store().list_conversations(30)
        if past:
            st.caption("Past conversations")
            current = st.session_state.get("conversation_id")
            for c in past:
                # two conversations that began with one question differ by when they were last used
                label = (shorten(c.title, 46) + f" · {c.turns} question{'s' * (c.turns != 1)}"
                         f" · {time_label(c.updated_at or c.created_at)}")
                st.button(neutral(label), key=f"conv-{c.conversation_id}", on_click=_open, args=(c.conversation_id,),
                          type="primary" if c.conversation_id == current else "tertiary", width="stretch")
        if chat:
            title = st.session_state.get("conversation_title") or chat[0]["question"]
            answers = [t["answer"] for t in chat]
            cid = st.session_state.get("conversation_id")
            cache = st.session_state.setdefault("conversation_exports", {})
            key = (cid, len(chat))
            if key not in cache:
                cache.clear()
                cache[key] = conversation_markdown(title, answers, get_store().figure_image)
            st.download_button("Export conversation (Markdown)", cache[key],
                               file_name=export_name(title, "md", what=_conversation_tag(cid)), mime="text/markdown",
                               width="stretch")
            st.download_button("Export conversation (JSON)", conversation_json(cid, title, answers),
                               file_name=export_name(title, "json", what=_conversation_tag(cid)),
                               mime="application/json",
                               width="stretch")
            if cid is not None:
                with st.popover("Delete this conversation", width="stretch"):
                    st.write("Delete it for everyone in this workspace? This cannot be undone.")
                    if st.button("Delete", type="primary", key="conv-delete"):
                        get_store().delete_conversation(cid)
                        _new_chat()
                        st.rerun()


def _save_turn(question: str, a: Answer, fups: list[str]) -> None:
    store = get_store()
    cid = st.session_state.get("conversation_id")
    if cid is None:
        cid = store.create_conversation()
        st.session_state.update(conversation_id=cid, conversation_title=question)
        st.query_params["c"] = str(cid)
    store.add_conversation_turn(cid, question, a.to_json(), fups)


# -- first run and an empty conversation ----------------------------------------------------------------------
def _first_run() -> None:
    st.info("The library is empty. Upload PDFs on the Library page, or load the sample documents to try it: a "
            "research paper excerpt, an SEC filing excerpt and a sustainability report.")
    if st.button(f"Load sample documents ({len(sample_files())})", type="primary", icon=":material/download:"):
        bar = st.progress(0.0, text="starting…")

        def progress(name: str, stage: str, done: int, total: int) -> None:
            if total:
                bar.progress(min(1.0, done / total), text=f"{neutral(name)} — {stage}: {done} / {total}")

        results = load_samples(get_store(), get_embedder(), settings(), progress)
        failed = [r for r in results if not r.ok and not r.already_ingested]
        for r in failed:
            st.error(neutral(f"{r.file}: {r.error}"))
        if not failed:
            st.rerun()


def _welcome(docs: list[DocumentMeta]) -> None:
    st.markdown(neutral(library_summary(docs)))  # companies' names, as the documents give them
    examples = example_questions(docs)
    if examples:
        st.caption("Try one of these:")
        cols = st.columns(2)
        for k, q in enumerate(examples):
            if cols[k % 2].button(neutral(q), key=f"ex-{k}", width="stretch"):
                st.session_state["pending_question"] = q
                st.rerun()


def _ask(question: str, chat: list[dict], docs: list[DocumentMeta], filters: SearchFilters) -> None:
    history = [t["question"] for t in chat]
    with st.chat_message("user"):
        st.text(question)
    with st.chat_message("assistant"):
        s = settings()
        streamed = st.empty()
        buf: list[str] = []

        def on_token(t: str) -> None:
            buf.append(t)
            streamed.caption(neutral("".join(buf)[-400:]))

        with st.spinner("Searching the documents…"):
            a = answer(get_store(), get_embedder(), question, s, filters=filters, history=history,
                       on_token=on_token if s.llm.base_url else None, documents=docs)
        streamed.empty()
    r = a.retrieval
    if r is not None:
        get_store().log_query(question, r.chunks, a.timings_ms.get("total", 0.0))
        st.session_state["last_retrieval"] = r
    st.session_state["last_answer"] = a
    fups = follow_ups(a, r.intent, docs) if r is not None else []
    chat.append({"question": question, "answer": a, "follow_ups": fups})
    _save_turn(question, a, fups)


def page() -> None:
    sidebar()
    chat = _load_conversation()
    _conversations_sidebar(chat)
    st.title("Ask")
    if chat:
        st.caption(neutral(st.session_state.get("conversation_title") or chat[0]["question"]))
    docs = documents()
    if not docs:
        _first_run()
        return
    filters = _filters(docs)
    if not chat:
        _welcome(docs)
    for i, turn in enumerate(chat):
        with st.chat_message("user"):
            st.text(turn["question"])
        with st.chat_message("assistant"):
            render_answer(turn["answer"], i)
    if chat and chat[-1].get("follow_ups"):
        cols = st.columns(len(chat[-1]["follow_ups"]))
        for c, q in zip(cols, chat[-1]["follow_ups"], strict=True):
            if c.button(neutral(q), key=f"fu-{len(chat)}-{q}"):
                st.session_state["pending_question"] = q
                st.rerun()
    question = st.chat_input("Ask about the documents…", max_chars=MAX_QUESTION) \
        or st.session_state.pop("pending_question", None)
    if question is None:
        return
    try:
        question = check_question(question)
    except RagError as exc:  # refused as the API refuses it: nothing saved, nothing searched
        st.warning(f"Not asked: {exc}. Type a question about the documents.")
        return
    _ask(question, chat, docs, filters)
    st.rerun()  # the conversation is drawn from the history, the new answer included


page()
