"""Facts: an issuer's (or a report's) workpaper. Every table value by period with its source (click a value to
open its page in the citation viewer), restated values marked, the footing checks of its tables, the metrics
computed from them, and the whole as an Excel workbook with live formulas (rag/workpaper)."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from pages import get_embedder, get_store, library_or_stop, sidebar
from pages.viewer import open_cited_page
from rag.answer.labels import document_label
from rag.answer.markup import neutral
from rag.errors import RagError
from rag.workpaper import Workpaper, load_workpaper, subjects
from rag.workpaper.history import Measure, Value
from rag.workpaper.workbook import unit_label, workbook_bytes

ALL, STATEMENTS = "All topics", "Financial statements"


@dataclass(frozen=True)
class Cited:
    """A value's source in the shape the citation viewer opens."""
    document_id: int
    pages: tuple[int, ...]
    quote: str
    document: str


@st.cache_data(max_entries=4, show_spinner="Reading the tables of every document…")
def _workpaper(subject: str, library: tuple) -> Workpaper:
    del library  # the cache's key: the documents the workpaper is built from, as they are now
    emb = get_embedder()
    if subject.startswith("doc:"):
        return load_workpaper(get_store(), emb.encode, document_id=int(subject[4:]))
    return load_workpaper(get_store(), emb.encode, company=subject)


@st.cache_data(max_entries=4, show_spinner="Writing the workbook…")
def _xlsx(subject: str, library: tuple) -> bytes:
    wp = _workpaper(subject, library)
    return workbook_bytes(wp.history, wp.checks, wp.computed)


def _label(document_id: int, fallback: str) -> str:
    """A document as citations name it ("Acme Widgets 10-K FY2022")."""
    return st.session_state.get("facts_labels", {}).get(document_id, fallback)


def _open(v: Value) -> None:
    open_cited_page(Cited(v.source.document_id, (v.source.page,), v.source.row_text,
                          _label(v.source.document_id, v.source.file_name)))


def _history(wp: Workpaper, key: str) -> None:
    h = wp.history
    topics = [STATEMENTS, ALL, *h.topics()]
    c1, c2, c3 = st.columns([2, 2, 1])
    topic = c1.selectbox("Topic", topics, key=f"topic-{key}")
    text = c2.text_input("Measure contains", key=f"text-{key}", max_chars=80)
    restated = c3.toggle("Restated only", key=f"restated-{key}")
    chosen = h.select({STATEMENTS: "statements", ALL: None}.get(topic, topic), text, restated)
    if not chosen and topic == STATEMENTS:
        st.caption("No financial statement was found among these tables: showing every topic.")
        chosen = h.select(None, text, restated)
    periods = [p for p in h.periods if any(p in m.cells for m in chosen)]
    frame = _frame(chosen, periods)
    st.caption(f"{len(chosen)} of {len(h.measures)} measures. Values as printed, in each row's unit and scale. "
               "Select a value to see its source and open its page. A restated value (another document prints "
               "it differently) is marked ✱ in the Restated column.")
    event = st.dataframe(frame, hide_index=True, on_select="rerun", selection_mode="single-cell",
                         key=f"grid-{key}-{topic}-{text}-{restated}", width="stretch", height=460)
    cells = event.selection.get("cells", []) if event else []
    if cells:
        row, col = cells[0]
        if 0 <= row < len(chosen) and col in periods and col in chosen[row].cells:
            _source(chosen[row], chosen[row].cells[col], key)
            return
    if chosen:
        _pick(chosen, key)


def _pick(chosen: list[Measure], key: str) -> None:
    """A value chosen by name, for a keyboard or a screen reader (the grid's cells are drawn on a canvas)."""
    with st.expander("Or choose a value to see its source"):
        i = st.selectbox("Measure", range(len(chosen)), format_func=lambda k: chosen[k].label_path[:120],
                         key=f"pick-m-{key}")
        m = chosen[i or 0]
        period = st.selectbox("Period", list(m.cells), key=f"pick-p-{key}-{i}")
        if period:
            _source(m, m.cells[period], key)


def _frame(chosen: list[Measure], periods: list[str]):
    import pandas as pd

    rows = []
    for m in chosen:
        line = {"Topic": m.topic, "Measure": m.label_path, "Unit": unit_label(m),
                "Restated": "✱" if any(c.restated for c in m.cells.values()) else ""}
        for p in periods:
            c = m.cells.get(p)
            line[p] = c.value.scaled / m.scale if c else None
        rows.append(line)
    return pd.DataFrame(rows, columns=["Topic", "Measure", "Unit", "Restated", *periods])


def _source(m: Measure, cell, key: str) -> None:
    v = cell.value
    st.text(f"{m.label_path} · {cell.period}: {v.raw} ({unit_label(m) or 'no unit'})\n"
            f"Source: {v.source.file_name}, page {v.source.page} · {v.source.table_title[:120]}")
    for old in cell.restated:
        st.text(f"Restated: {old.source.file_name}, page {old.source.page} printed {old.raw}; "
                f"the later {v.source.file_name} prints {v.raw}")
    others = [v, *cell.restated]
    cols = st.columns(len(others))
    for i, (col, val) in enumerate(zip(cols, others, strict=True)):
        if col.button(f"Open {val.source.file_name}, p. {val.source.page}", key=f"open-{key}-{i}"):
            _open(val)


def _footing(wp: Workpaper, key: str) -> None:
    import pandas as pd

    s = wp.summary()
    a, b, c, d = st.columns(4)
    a.metric("Checks", s["checks"], help="sums to totals, balance sheet, Scope sums, printed changes")
    b.metric("Tables checked", s["tables_checked"])
    c.metric("Failing", s["checks_failed"])
    d.metric("Likely misread by us", s["failed_likely_misread"],
             help="the rest fail as printed: within the rounding of the printed values")
    show = st.radio("Show", ["Failing", "All"], horizontal=True, key=f"fshow-{key}")
    checks = [k for k in wp.checks if show == "All" or not k.ok]
    frame = pd.DataFrame([{"Check": k.kind, "Result": "foots" if k.ok else "fails", "Class": k.verdict,
                           "Reason": k.reason, "Document": k.file_name, "Pages": ", ".join(map(str, k.pages)),
                           "Table": k.table_title[:80], "Column": k.column, "Line": k.total.label,
                           "Printed": k.total.raw, "Recomputed": k.shown(k.computed)} for k in checks])
    event = st.dataframe(frame, hide_index=True, on_select="rerun", selection_mode="single-row",
                         key=f"fgrid-{key}-{show}", width="stretch", height=380)
    rows = event.selection.get("rows", []) if event else []
    if rows and rows[0] < len(checks):
        k = checks[rows[0]]
        st.text("Cells read: " + "; ".join(f"{p.label}: {p.raw} (p. {p.page})" for p in k.parts))
        if st.button(f"Open {k.file_name}, p. {k.total.page}", key=f"fopen-{key}"):
            open_cited_page(Cited(k.document_id or 0, (k.total.page,), f"{k.total.label} {k.total.raw}",
                                  _label(k.document_id or 0, k.file_name)))


def _metrics(wp: Workpaper) -> None:
    import pandas as pd

    if not wp.computed:
        st.caption("No metric's inputs (revenue, operating income, Scope 1 …) were found in these tables.")
        return
    years = sorted({c.year for c in wp.computed})
    names = list(dict.fromkeys(c.metric.name for c in wp.computed))
    rows = []
    for name in names:
        mine = {c.year: c for c in wp.computed if c.metric.name == name}
        first = next(iter(mine.values()))
        rows.append({"Metric": name, "Unit": first.metric.unit, **{f"FY{y}": round(mine[y].value, 4) if y in mine
                                                                   else None for y in years}})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption("The workbook writes each as a live formula over the History sheet's cells.")


def main() -> None:
    sidebar()
    docs = library_or_stop()
    st.title("Facts")
    st.session_state["facts_labels"] = {d.document_id: document_label(d) for d in docs}
    options = subjects(docs)
    subject = st.selectbox("Issuer or report", list(options), format_func=options.get, key="facts_subject")
    library = tuple(sorted((d.document_id, d.uploaded_at or "") for d in docs))
    try:
        wp = _workpaper(subject, library)
    except RagError as exc:
        st.error(neutral(str(exc)))
        return
    s = wp.summary()
    st.caption(f"{s['measures']} measures, {s['values']} values, {len(s['periods'])} periods, "
               f"{len(s['documents'])} documents · {s['restated']} restated values · "
               f"{s['checks_failed']} of {s['checks']} footing checks fail")
    st.download_button("Export to Excel (.xlsx)", data=_xlsx(subject, library), file_name=_file_name(subject),
                       mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                       key="facts_export")
    history, footing, metrics = st.tabs(["History", "Footing checks", "Metrics"])
    with history:
        _history(wp, subject)
    with footing:
        _footing(wp, subject)
    with metrics:
        _metrics(wp)


def _file_name(subject: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_-]+", "_", subject)[:60] + "_workpaper.xlsx"


main()
