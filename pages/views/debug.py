"""Debug (developers): the corpus, why the last question's chunks were chosen, the old-PDF-bias monitor,
similarities, feedback and the last evaluation against its baseline."""

from __future__ import annotations

import json
from pathlib import Path

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from pages import documents, get_store, settings, sidebar
from rag.answer import explain
from rag.answer.labels import document_label, shorten, source_label
from rag.answer.markup import chart_text, neutral
from rag.eval import questions_of_rows
from rag.records import DocumentMeta

ROOT = Path(__file__).resolve().parents[2]


def _text(rows: list[dict]) -> list[dict]:
    """A static table's cells as text (a column of numbers and blanks made pyarrow log errors); no value is
    "None"."""
    return [{k: "" if v is None else str(v) for k, v in row.items()} for row in rows]


def _corpus(docs: list[DocumentMeta]) -> None:
    st.subheader("Corpus")
    rows = [{"document": document_label(d), "type": d.doc_type, "year": d.fiscal_year, "pages": d.page_count,
             "chunks": d.chunks, "figures": d.figures, "OCR pages": d.ocr_pages, "file": d.file_name} for d in docs]
    st.table(_text(rows))  # static: every cell wrapped to the page's width, nothing cut off
    # Plotly reads <a href>, <b> and <br> in its labels: a document's name is escaped for it
    long = [{"document": r["document"], "count": r[k], "kind": k} for r in rows
            for k in ("chunks", "figures", "OCR pages")]
    for r in long:  # a long name would squash the bars: cut at a word on the axis, whole when hovered
        r["name"] = chart_text(r["document"])
        r["document"] = chart_text(shorten(r["document"], 32))
    # one row of bars a document, side by side, each kind in its own colour, the legend above the plot
    fig = px.bar(long, y="document", x="count", color="kind", barmode="group", orientation="h", custom_data=["name"],
                 height=min(1400, 120 + 60 * len(rows)), title="Chunks, figures and OCR pages per document")
    fig.update_layout(margin=dict(l=10, r=10, t=70, b=10), yaxis_title=None, yaxis_autorange="reversed",
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, title=None))
    fig.update_traces(hovertemplate="%{customdata[0]}<br>%{x}<extra></extra>")  # the whole name, no tags of Plotly's
    st.plotly_chart(fig, width="stretch", key="corpus_counts")


def _question(r, docs: list[DocumentMeta]) -> None:
    st.subheader("Last question: " + neutral(r.question))  # an example question names the documents
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Read as**")
        st.dataframe(explain.intent_rows(r.intent) or [{"detected": "nothing", "value": "plain search"}],
                     hide_index=True, width="stretch")
    filters = explain.filter_rows(r, docs)
    if filters:
        with c2:
            st.markdown("**Filters applied**")
            st.dataframe(filters, hide_index=True, width="stretch")
    st.markdown("**Pipeline: chunks, documents and pages at each stage**")  # the page's width: nothing cut off
    # a static table: every row shown and every cell wrapped to the page's width (a data grid cut the last column
    # and the stage names off); a stage that has no count says nothing rather than "None"
    rows = [{k: ("" if v is None else f"{v:.0f}" if k == "ms" else str(v)) for k, v in row.items()}
            for row in explain.stage_rows(r)]  # text only: a column of numbers and blanks made pyarrow log errors
    st.table(rows)
    _diversity(r)
    st.markdown("**Top 10 candidates, every score**")
    chosen = {c.chunk_id for c in r.chunks}
    top = [{"used": "✓" if c.chunk_id in chosen else "", "source": source_label(c), "section": c.section_type,
            "cosine": round(c.cosine_similarity, 3), "text rank": round(c.text_rank, 3), "fused": round(c.fused, 5),
            **{k: round(v, 3) for k, v in c.factors.items() if k != "fused_norm"},
            "final": round(c.final, 3)}
           for c in r.candidates[:10]]
    st.table(_text(top))
    st.markdown("**Why each candidate scored as it did**")  # its own table: in the scores' table it made rows tall
    st.table([{"source": source_label(c), "file": c.file_name,
               "why": "; ".join(f"{k}: {why}" for k, why in c.reasons.items() if k != "fused_norm")}
              for c in r.candidates[:10]])
    if r.figures:
        a = st.session_state.get("last_answer")
        st.markdown("**Figures found: what each is and what a chart reads as**")
        st.table(_text(explain.figure_rows(r.figures, {f.figure_id for f in (a.figures if a else [])})))
    if r.refused:
        st.warning("Refused: " + neutral(r.message))


def _diversity(r) -> None:
    d = explain.diversity_summary(r)
    if not d:
        return
    st.markdown("**Diversity: plain top-k by relevance (before) against the chunks chosen (after)**")
    before, after = d["before"], d["after"]
    c = st.columns(5)
    for col, key, label in zip(c, ("documents", "pages", "chunks"), ("Distinct documents", "Distinct pages",
                                                                    "Chunks"), strict=False):
        col.metric(label, after.get(key, 0), delta=after.get(key, 0) - before.get(key, 0),
                   help=f"before: {before.get(key, 0)}")
    out = d["ruled_out"]
    c[3].metric("Near-duplicates set aside", out.get("near-duplicate", 0))
    c[4].metric("Capped / location merged", f"{out.get('per-document cap', 0)} / {out.get('same location group', 0)}",
                help="candidates set aside by the per-document cap / because a chunk of the same place was taken")
    rows = explain.diversity_rows(r)
    if rows:
        st.table(_text(rows))
    else:
        st.caption("MMR kept the plain top-k: nothing brought in or left out.")


def _bias_and_feedback(store, docs: list[DocumentMeta]) -> None:
    st.subheader("Where answers come from (recent questions)")
    share = [x for x in store.result_share(100) if x["results"] or x["corpus_share"] > 0]
    if share and any(x["results"] for x in share):
        label = {d.document_id: document_label(d) for d in docs}
        # horizontal bars, names cut at a word: a paper's long title laid on the x axis squashed the bars
        full = [label.get(x["document_id"], x["file_name"]) for x in share]
        whole = [chart_text(n) for n in full]  # shown when hovered
        names = [chart_text(shorten(n, 40)) for n in full]
        fig = go.Figure([go.Bar(name="share of results", y=names, x=[x["result_share"] for x in share],
                                orientation="h", hovertext=whole),
                         go.Bar(name="share of corpus (chunks)", y=names, x=[x["corpus_share"] for x in share],
                                orientation="h", hovertext=whole)])
        fig.update_layout(barmode="group", height=120 + 40 * len(names), margin=dict(l=10, r=10, t=60, b=10),
                          title="A document far above its corpus share in every answer is the old-PDF bias",
                          legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0), yaxis=dict(autorange="reversed"))
        st.plotly_chart(fig, width="stretch", key="bias")
    else:
        st.caption("No questions asked yet.")
    sims = store.recent_similarities(100)
    c1, c2 = st.columns(2)
    with c1:
        if sims:
            thr = settings().retrieval.threshold
            fig = px.histogram(x=sims, nbins=20, height=280, title="Cosine similarity of the chunks used")
            fig.add_vline(x=thr, line_dash="dash", line_color="red",
                          annotation_text=f"relevance threshold {thr:.2f}", annotation_position="top right")
            fig.update_layout(margin=dict(l=10, r=10, t=40, b=10), xaxis_title="cosine", yaxis_title="chunks")
            st.plotly_chart(fig, width="stretch", key="sims")
    with c2:
        fb = store.feedback_stats()
        st.markdown("**Feedback**")
        st.metric("Helpful / not helpful", f"{fb['up']} / {fb['down']}", help=f"{fb['last_7_days']} in the last 7 days")


def _eval_chart(rep: dict, key: str, title: str) -> None:
    metrics, sys_v, base_v = explain.eval_series(rep)
    bars = [go.Bar(name="system", x=metrics, y=sys_v, text=sys_v, textposition="outside")]
    if any(b is not None for b in base_v):
        name = "baseline: plain cosine top-k" if "mode" not in rep else "baseline: plain cosine top 5, quoted"
        bars.append(go.Bar(name=name, x=metrics, y=base_v, text=base_v, textposition="outside"))
    else:
        st.caption("This report was run without a baseline: add `--baseline` to draw it.")
    fig = go.Figure(bars)
    fig.update_layout(barmode="group", height=360, yaxis_range=[0, 1.15], margin=dict(l=10, r=10, t=70, b=10),
                      title=title, showlegend=True, legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0))
    st.plotly_chart(fig, width="stretch", key=key)


def _own_questions(docs: list[DocumentMeta]) -> None:
    """`rag eval` on questions the user writes about the library: each with the document and page that answer
    it; retrieval is measured against the plain cosine baseline, in the same run."""
    st.subheader("Evaluate retrieval on your own questions")
    st.caption("Write a question, pick the document that answers it and the page where the answer is. Each is "
               "searched as on the Ask page and by the plain cosine baseline; doc@k, page@k and MRR compare them.")
    labels = {document_label(d): Path(d.file_name).stem for d in docs}
    rows = st.data_editor([{"question": "", "document": None, "page": None}], num_rows="dynamic",
                          key="own_eval_rows", width="stretch", placeholder="", column_config={
                              "question": st.column_config.TextColumn("question", width="large", max_chars=500),
                              "document": st.column_config.SelectboxColumn("document", options=list(labels)),
                              "page": st.column_config.NumberColumn("page", min_value=1, step=1, format="%d")})
    ready = questions_of_rows(rows, labels)
    if ready and st.button(f"Evaluate {len(ready)} question(s)", key="own_eval_run"):
        st.session_state["own_eval"] = _run_own_eval(ready)
    rep = st.session_state.get("own_eval")
    if rep:
        _eval_chart(rep, "own_eval_chart", f"Your {rep['system'].get('questions')} question(s) on this library")
        _own_results(rep, {Path(d.file_name).name: document_label(d) for d in docs})


def _own_results(rep: dict, names: dict[str, str]) -> None:
    """Question by question: whether the document and the page were among the first five passages, for the system
    and the baseline, and where the system's first passage came from."""
    st.caption("doc@k / page@k: the share of questions whose document / page is among the first k passages; MRR: "
               "the mean of 1 / the rank of the first right passage; refusal_answerable: the share of these "
               "answerable questions the system refused (0 is right).")
    base = {q["id"]: q for q in rep.get("baseline_per_question") or []}
    rows = []
    for q in rep.get("per_question") or []:
        b = base.get(q["id"], {})
        top = (q.get("top") or [[None, None]])[0]
        rows.append({"question": (rep.get("own_questions") or {}).get(q["id"], q["id"]), "document found": "✓" if q.get("doc_hit") else "✗",
                     "page found": "✓" if q.get("page_hit") else "✗",
                     "rank of the first right passage": round(1 / q["rr"]) if q.get("rr") else "not in the top k",
                     "baseline: page found": "✓" if b.get("page_hit") else "✗" if b else "",
                     "first passage": f"{names.get(top[0], top[0] or '')}, p. {top[1]}" if top[0] else ""})
    st.table(_text(rows))


def _run_own_eval(questions: list[dict]) -> dict:
    import tempfile

    from pages import get_embedder
    from rag.eval import run_eval

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "questions.jsonl"
        path.write_text("\n".join(json.dumps(q) for q in questions))
        with st.spinner("Searching each question, then the baseline…"):
            rep = run_eval(get_store(), get_embedder(), path, k=5)
    rep["own_questions"] = {q["id"]: q["question"] for q in questions}  # the table below names them
    return rep


def _eval_report() -> None:
    """The project's own evaluation (its dev questions over the shared corpus), said plainly: it is not about the
    user's library."""
    st.subheader("The project's own evaluation (not your library)")
    reports = sorted([*(ROOT / "bench" / "results").glob("eval_*.json"),
                      *(ROOT / "bench" / "results").glob("answers_*.json")],
                     key=lambda p: (p.name != "eval_dev.json", p.name))
    if not reports:
        st.caption("Run `python -m rag eval QUESTIONS.jsonl --baseline --json bench/results/eval_NAME.json`.")
        return
    st.caption("Reports the developers ran on the project's labelled questions (bench/results/), kept with the "
               "code. They describe the system on the shared corpus, not on the documents in this library.")
    pick = st.selectbox("Report", [p.name for p in reports], key="eval_pick")
    rep = json.loads((ROOT / "bench" / "results" / pick).read_text())
    _eval_chart(rep, "eval", f"{Path(rep.get('questions_file', pick)).name} · "
                             f"{rep.get('system', {}).get('questions')} questions")


def _last_of_conversation(store, docs: list[DocumentMeta]):
    """After a reload the session holds no retrieval: the last question of the conversation (the one open on the
    Ask page, else the latest) is searched again, once, as the Ask page searched it."""
    cid = st.session_state.get("conversation_id")
    if cid is None:
        latest = store.list_conversations(1)
        cid = latest[0].conversation_id if latest else None
    got = store.conversation(cid) if cid is not None else None
    if not got or not got[1]:
        return None
    title, turns = got
    key = (cid, turns[-1].question)
    cached = st.session_state.get("debug_retrieval")
    if not cached or cached[0] != key:
        from pages import get_embedder
        from rag.retrieve.pipeline import retrieve

        with st.spinner("Searching the conversation's last question again…"):
            r = retrieve(store, get_embedder(), turns[-1].question, settings().retrieval, documents=docs,
                         history=[t.question for t in turns[:-1]])
        st.session_state["debug_retrieval"] = cached = (key, r)
    st.caption(f"The last question of the conversation “{neutral(shorten(title, 60))}”, searched again after a "
               "reload.")
    return cached[1]


def page() -> None:
    sidebar()
    st.title("Debug")
    store = get_store()
    docs = documents()
    if not docs:
        st.info("The library is empty.")
        return
    _corpus(docs)
    r = st.session_state.get("last_retrieval") or _last_of_conversation(store, docs)
    if r is not None:
        _question(r, docs)
    else:
        st.caption("Ask a question on the Ask page to see why its chunks were chosen.")
    _bias_and_feedback(store, docs)
    _own_questions(docs)
    _eval_report()


page()
