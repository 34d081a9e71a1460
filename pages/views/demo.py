"""RAG demo (for presenters): one question walked through the pipeline, one step at a time, with its numbers.
No SQL on screen; works without an LLM."""

from __future__ import annotations

import streamlit as st

from pages import get_embedder, get_store, library_or_stop, settings, sidebar
from rag.answer import explain
from rag.answer.labels import source_label
from rag.answer.markup import answer_markdown, neutral
from rag.answer.suggest import example_questions
from rag.assistant import MAX_QUESTION, answer, check_question
from rag.errors import RagError
from rag.retrieve.stages import Candidates, ScopeAndFilters
from rag.retrieve.trace import StageTrace

STEPS = ["Query understanding", "Candidates", "Filters", "Rerank", "Diversity", "Evidence", "Answer", "Citations"]


def _stage(r, kind: type) -> StageTrace:
    return r.trace.of(kind) or StageTrace(kind.name, kind)


def _understanding(a, r, docs) -> None:
    i = r.intent
    st.markdown("The question is read for **who, when, what kind of document and what part of it**.")
    c = st.columns(4)
    read = {"Companies": ", ".join(i.company_names or i.companies), "Years": ", ".join(map(str, i.years)),
            "Document types": ", ".join(i.doc_types),
            "Statement / section": (i.statement_words[:1] or i.target_sections[:1] or [""])[0]}
    for col, (name, value) in zip(c, read.items(), strict=True):  # wrapped, never cut ("Lockheed M…" in a metric)
        col.markdown(f"**{name}**  \n{neutral(value) or '—'}")


def _candidates(a, r, docs) -> None:
    st.markdown("Meaning (vector) and words (full text) each propose passages; the two lists are fused.")
    s = _stage(r, Candidates)
    st.metric("Candidate passages", s.n_out, help=f"{s.ms:.0f} ms")
    st.table([{"passage": source_label(c), "meaning": f"{c.cosine_similarity:.2f}", "words": f"{c.text_rank:.2f}"}
              for c in sorted(r.candidates, key=lambda c: -c.fused)[:5]])  # static: a passage's name is never cut


def _filters(a, r, docs) -> None:
    s = _stage(r, ScopeAndFilters)
    st.markdown("Detected entities become **filters** when the library has matching documents, else boosts.")
    st.metric("Documents searched", f"{s.n_out} of {len(docs)}")
    rows = explain.filter_rows(r, docs)
    if rows:
        st.dataframe(rows, hide_index=True)
    else:
        st.caption("No filter: every document is searched.")


def _rerank(a, r, docs) -> None:
    st.markdown("Passages are re-scored: year and company match, recency, the section or statement asked for, "
                "tables for numbers.")
    st.table([{"passage": source_label(c), "final": f"{c.final:.3f}",
               **{k: f"{v:.2f}" for k, v in c.factors.items() if k in ("metadata", "recency", "section")}}
              for c in r.candidates[:5]])


def _diversity(a, r, docs) -> None:
    st.markdown("Diversity keeps several places, never five chunks of one paragraph.")
    d = explain.diversity_summary(r)
    before, after = d.get("before") or {}, d.get("after") or {}
    c = st.columns(3)
    c[0].metric("Passages used", len(r.chunks))
    for col, key, name, n in ((c[1], "documents", "Documents", len({x.document_id for x in r.chunks})),
                              (c[2], "pages", "Pages", len({(x.document_id, x.page_start) for x in r.chunks}))):
        gain = after.get(key, 0) - before.get(key, 0) if before else 0
        col.metric(name, n, delta=f"{gain:+d} against the plain top-k" if gain else None)  # no bare "0" badge
    if before:
        st.caption(f"Without diversity the top {before['chunks']} would cover {before['documents']} document(s) "
                   f"and {before['pages']} page(s).")


def _evidence(a, r, docs) -> None:
    st.markdown("The sentences and table rows that answer the question are picked from those passages.")
    for e in a.evidence:
        st.markdown(f"**[{e.marker}]** " + neutral(e.quote))
    if not a.evidence:
        st.info("Nothing in the passages answers it: the answer will say so.")


def _answer(a, r, docs) -> None:
    (st.warning if a.insufficient else st.markdown)(answer_markdown(a))
    for f in a.figures[:1]:
        png = get_store().figure_image(f.figure_id)
        if png:
            st.image(png, caption=neutral(f.caption or "Figure"), width=480)


def _citations(a, r, docs) -> None:
    st.markdown("Every quote is checked against its passage and every number against the evidence it cites.")
    c = st.columns(3)
    c[0].metric("Quotes verified", f"{sum(e.verified for e in a.evidence)} / {len(a.evidence)}")
    c[1].metric("Numbers verified", f"{a.numbers_verified} / {a.numbers_total}")
    c[2].metric("Confidence", a.confidence.replace("_", " "))
    for e in a.evidence:
        st.caption(f"[{e.marker}] {neutral(e.source)}")


STEP_VIEWS = [_understanding, _candidates, _filters, _rerank, _diversity, _evidence, _answer, _citations]


def _picked() -> None:
    """An example picked: it becomes the question that runs (the text box below shows it, and can edit it)."""
    st.session_state["demo_q"] = st.session_state.get("demo_pick") or ""


def _typed() -> None:
    """A question typed: the dropdown no longer names an example that would not run."""
    if st.session_state.get("demo_q") != st.session_state.get("demo_pick"):
        st.session_state["demo_pick"] = None


def _go_to(step: int) -> None:
    st.session_state["demo_step"] = step


@st.fragment
def _walkthrough(docs) -> None:
    """The steps of the question that ran, one more at each click: only this part redraws, from the one run kept
    in the session (nothing is searched or answered again)."""
    q, a = st.session_state["demo"]
    r = a.retrieval
    st.markdown("**Question:** " + neutral(q))
    if r is None:
        st.warning(answer_markdown(a))
        return
    step = st.session_state.get("demo_step", 0)
    st.progress((step + 1) / len(STEPS), text=f"Step {step + 1} of {len(STEPS)}: {STEPS[step]}")
    for k in range(step + 1):
        with st.container(border=True):
            st.markdown(f"**{k + 1}. {STEPS[k]}**")
            STEP_VIEWS[k](a, r, docs)
    c1, c2 = st.columns(2)
    if step + 1 < len(STEPS):  # the step changes before the fragment redraws: one run a click
        c1.button("Next step →", key="demo_next", on_click=_go_to, args=(step + 1,))
    if step > 0:
        c2.button("Start over", key="demo_reset", on_click=_go_to, args=(0,))


def page() -> None:
    sidebar()
    st.title("RAG demo")
    st.caption("What happens to one question, a step at a time: how it is read, which passages are found, filtered "
               "and kept, and how the answer and its citations are built from them. Pick an example or type a "
               "question, run it, then click through the steps.")
    docs = library_or_stop()
    examples = example_questions(docs)
    if examples:
        st.selectbox("Example question (built from the library)", examples, index=None, key="demo_pick",
                     placeholder="Pick an example, or type your own below", on_change=_picked)
    q = st.text_input("Question that runs", key="demo_q", on_change=_typed, max_chars=MAX_QUESTION)
    if st.button("Run", type="primary"):
        try:
            q = check_question(q)
        except RagError as exc:
            st.warning(f"Not run: {exc}.")
            st.session_state.pop("demo", None)  # no steps of an earlier question under it
        else:
            a = answer(get_store(), get_embedder(), q, settings(), use_llm=False, documents=docs)
            st.session_state["demo"] = (q, a)
            st.session_state["demo_step"] = 0
    if "demo" in st.session_state:
        _walkthrough(docs)


page()
