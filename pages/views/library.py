"""Upload & library: ingest PDFs with per-file progress, then browse, correct, delete and relate documents."""

from __future__ import annotations

import re
import tempfile
from datetime import datetime
from pathlib import Path

import streamlit as st

from pages import documents, get_embedder, get_store, settings, sidebar
from rag import jobs
from rag.answer.labels import document_label, period_label, time_label
from rag.answer.markup import neutral
from rag.domain import ANNUAL_TYPES
from rag.filenames import clean_file_name
from rag.ingest.pipeline import ingest_file
from rag.records import DocumentMeta

PERIOD = "As every page prints it: FY2023, Q2 FY2023, H1 FY2023"  # the period field's help
TYPES = ["10-K", "10-Q", "8-K", "earnings release", "sustainability report", "annual report", "research paper",
         "other"]


def _ingest(name: str, data: bytes, password: str | None) -> None:
    """One file: a status box with its progress (pages read, then chunks embedded), then its result in one line.
    The result is kept (ingest_results) and drawn once, by _results."""
    store, emb, s = get_store(), get_embedder(), settings()
    with st.status(neutral(name), expanded=True) as status:  # a status label is Markdown
        bar = st.progress(0.0, text="reading pages…")

        def progress(stage: str, done: int, total: int) -> None:
            if total:
                bar.progress(min(1.0, done / total), text=f"{stage}: {done} / {total}")

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / clean_file_name(name)  # the uploaded name is never a path
            path.write_bytes(data)
            res = ingest_file(path, store, emb, s, password=password, progress=progress)
        st.session_state.setdefault("ingest_results", {})[name] = res.to_dict()
        status.update(label=neutral(name), state="complete" if res.ok or res.already_ingested else "error",
                      expanded=False)


def _queue(name: str, data: bytes) -> None:
    """One file into the queue: a worker reads it, and the jobs table below follows it. A password-protected file
    is not queued: it asks for its password and is read here (the password is never stored)."""
    out = jobs.enqueue(get_store(), data, name, settings())  # enqueue cleans the name
    r = {"queued": out.job_id, "status": out.status, "duplicate": out.duplicate, "document_id": out.document_id}
    if out.error:
        r = {"error": "the PDF is encrypted: enter its password" if "password" in out.error else out.error}
    st.session_state.setdefault("ingest_results", {})[name] = r


def _result_line(name: str, r: dict, now: str | None = None, names: dict[int, str] | None = None) -> tuple[str, str]:
    """The alert's kind and its Markdown line (the file name and an error quoting the file are neutralised).
    now: the status of the file's job, read with the jobs table it sits above; names: the documents' labels."""
    name = neutral(name)
    if r.get("duplicate") == "document" or r.get("already_ingested"):
        known = (names or {}).get(r.get("document_id") or 0)
        return "info", f"{name}: already in the library" + (f" as {neutral(known)}" if known else
                                                            f" (document {r.get('document_id')})")
    if r.get("queued") and now == "done":
        return "success", f"{name}: ingested (job {r['queued']}); it is in the documents below"
    if r.get("queued") and now == "failed":
        return "error", f"{name}: could not be read (job {r['queued']}); the jobs table below says why"
    if r.get("queued") and now == "running":
        return "info", f"{name}: being read (job {r['queued']}); its progress is in the jobs table below"
    if r.get("duplicate") == "job":
        return "info", f"{name}: queued already (job {r.get('queued')}, {now or r.get('status')})"
    if r.get("queued"):
        return "success", f"{name}: queued (job {r['queued']}); its progress is in the jobs table below"
    if r.get("error"):
        return "error", f"{name}: {neutral(r['error'])}"
    counts = ", ".join(_count(r.get(k) or 0, what) for k, what in (("pages", "page"), ("chunks", "passage"),
                                                                   ("figures", "figure"), ("ocr_pages", "OCR page")))
    return "success", f"{name}: {counts}, {r.get('seconds', 0):.1f} s"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' * (n != 1)}"


def _results(locked: set[str], names: dict[int, str]) -> None:
    """Each file's result that no job follows, once: 'already in the library' or its error in one line (a queued
    file's line is drawn with the jobs table, from the same read: the two never disagree)."""
    results = st.session_state.get("ingest_results", {})
    for name, r in results.items():
        if name in locked or (r.get("queued") and r.get("duplicate") != "document"):
            continue
        kind, line = _result_line(name, r, names=names)
        getattr(st, kind)(line)


def _job_lines(status: dict[int, str]) -> None:
    """The status line of each file queued from this page, by its job's status in `status` (the jobs table's rows)."""
    for name, r in st.session_state.get("ingest_results", {}).items():
        if r.get("queued") and r.get("duplicate") != "document":
            kind, line = _result_line(name, r, status.get(r["queued"]))
            getattr(st, kind)(line)


def _password_forms(locked: set[str], files: dict[str, bytes]) -> None:
    """An encrypted file asks for its password; a wrong one says so, and a right one clears the question."""
    results = st.session_state.get("ingest_results", {})
    for name in sorted(locked):
        with st.form(f"pw-{name}"):
            wrong = "wrong" in results[name]["error"].lower()
            st.warning(f"{neutral(name)} is protected by a password"
                       + (": the password you entered is wrong. Try again." if wrong else
                          ". Enter it to add the document."))
            pw = st.text_input("Password", type="password", key=f"pwd-{name}")
            if st.form_submit_button("Open with this password"):
                data = files.get(name)
                if data is None:
                    st.error("Upload the file again, then enter its password.")
                else:
                    _ingest(name, data, pw)
                    if not _locked(results[name]):
                        files.pop(name, None)
                    st.rerun()  # redraw from the new result: no stale question above it


def _upload(names: dict[int, str]) -> None:
    """Upload, per-file progress, password prompts and one-line results."""
    n = st.session_state.setdefault("upload_round", 0)
    files = st.file_uploader("PDF files", type=["pdf"], accept_multiple_files=True, key=f"uploads-{n}")
    if files and st.button(f"Ingest {len(files)} file(s)", type="primary"):
        st.session_state["ingest_results"] = {}
        st.session_state["locked_files"] = {}
        for f in files:
            _queue(f.name, f.getvalue())
            if _locked(st.session_state["ingest_results"][f.name]):  # kept until its password is entered
                st.session_state["locked_files"][f.name] = f.getvalue()
        st.session_state["upload_round"] = n + 1  # a new, empty uploader: a second click cannot queue them again
        st.rerun()
    results = st.session_state.get("ingest_results", {})
    locked = {n for n, r in results.items() if _locked(r)}
    _password_forms(locked, st.session_state.get("locked_files", {}))
    _results(locked, names)


def _locked(r: dict) -> bool:
    return bool(r.get("error")) and "password" in r["error"].lower()


STAGES = {"pages": "reading text", "figures": "figures", "embedding": "embedding", "starting": "starting",
          "retrying": "worker lost, queued again", "done": "done"}


def _progress(r: dict) -> int:
    """A job's whole progress in percent, never going back: reading the text is the first half, figures and
    embedding (which overlap) the second; each stage's own count ("figures 5 / 167") is in the stage column."""
    if r["status"] != "running":
        return 100 if r["status"] == "done" else 0
    share = r["done"] / r["total"] if r["total"] else 0.0
    pct = round(50 * share) if (r["stage"] or "") in ("pages", "starting", "") else 50 + round(50 * share)
    seen = st.session_state.setdefault("job_progress", {})
    seen[r["id"]] = max(seen.get(r["id"], 0), min(pct, 99))
    return seen[r["id"]]


def _jobs(rows: list[dict], names: dict[int, str]) -> None:
    """Queued, running and finished ingestion jobs of this workspace, under the status lines of the files queued
    here. While a job is queued or running both redraw every two seconds without holding the page; once none is,
    they are drawn once and the page polls nothing (an idle page costs the server no CPU)."""
    if any(r["status"] in ("queued", "running") for r in rows):
        _jobs_live(names)
    else:
        _job_lines({r["id"]: r["status"] for r in rows})
        _jobs_table(rows, names)


@st.fragment(run_every=2.0)
def _jobs_live(names: dict[int, str]) -> None:
    """The status lines and the jobs table while some job is active, from one read of the jobs; when a job starts
    or ends, the whole page redraws, so the documents table shows its document (and, once none is active, this
    stops polling)."""
    rows = jobs.list_jobs(get_store(), 50)
    status = {r["id"]: r["status"] for r in rows}
    before = st.session_state.get("job_status") or {}
    st.session_state["job_status"] = status
    if any(i in before and before[i] != s for i, s in status.items()):
        st.rerun()
    _job_lines(status)
    _jobs_table(rows, names)


def _when(t) -> datetime:
    return t if isinstance(t, datetime) else datetime.fromisoformat(str(t))


def _took(r: dict) -> str:
    """How long a job ran (or has been running), as '1 min 05 s'."""
    start = r.get("started_at")
    if not start or not (r.get("finished_at") or r["status"] == "running"):
        return ""
    # a running job's time runs on the clock, not on its last report (a long stage reports seldom)
    end = _when(r["finished_at"]) if r.get("finished_at") else datetime.now(_when(start).tzinfo)
    secs = max(0, int((end - _when(start)).total_seconds()))
    return f"{secs // 60} min {secs % 60:02d} s" if secs >= 60 else f"{secs} s"


def _stage(r: dict) -> str:
    """A running job's stage with its count and whole progress ("figures 5 / 167 · 62%"); nothing once it ended."""
    if r["status"] != "running":
        return ""
    stage = STAGES.get(r["stage"] or "", r["stage"] or "")
    count = f" {r['done']} / {r['total']}" if r["total"] else ""
    return f"{stage}{count} · {_progress(r)}%"


def _jobs_table(rows: list[dict], names: dict[int, str]) -> None:
    """names: the documents' labels, read once by the page (a job that ends redraws the whole page). A static
    table, wrapped to the page's width: no column is ever cut or off-screen."""
    if not rows:
        return
    store = get_store()
    by = {k: sum(r["status"] == k for r in rows) for k in ("queued", "running", "done", "failed")}
    st.subheader("Ingestion jobs")
    st.caption(" · ".join(f"{n} {k}" for k, n in by.items() if n))
    if (by["queued"] or by["running"]) and not jobs.workers_alive(store):
        st.warning("No worker is running: queued files wait. Start one with `python -m rag worker` "
                   "(`run.sh` starts one with the app).")
    extra = {"attempts": any(r["attempts"] > 1 for r in rows), "error": any(r["error"] for r in rows)}
    st.table([{
        "job": str(r["id"]), "document": _job_document(r, names), "status": r["status"],
        **({"stage": _stage(r)} if by["running"] else {}), "queued": time_label(r["created_at"]), "took": _took(r),
        **({"attempts": str(r["attempts"])} if extra["attempts"] else {}),
        **({"error": r["error"] or ""} if extra["error"] else {})} for r in rows])


def _job_document(r: dict, names: dict[int, str]) -> str:
    """The job's document by its readable name; its file's name until it is read, and with "(deleted)" once the
    document is gone (its id is then cleared)."""
    if r["document_id"]:
        return names.get(r["document_id"], f"{r['file_name']} (deleted)")
    return f"{r['file_name']} (deleted)" if r["status"] == "done" else r["file_name"]


def _period_kind(text: str | None) -> str | None:
    """The period's kind a corrected period names: "Q2 FY2023" → "Q2", "FY2023" → "FY"; None when it names none."""
    m = re.search(r"\b(Q[1-4]|H[12]|9M|FY)", text or "", re.I)
    return m.group(1).upper() if m else None


def _table(docs: list[DocumentMeta]) -> None:
    """The documents as a static table wrapped to the page's width (no cell is ever cut): readable name, title,
    company, type and period as every page prints them ("Q2 FY2023"), authors for papers. Pages, counts and the
    file are in an expander below, and a document's details are corrected in a form under it."""
    st.table([{"document": document_label(d), "title": d.title or "", "company": d.company or "",
               "type": d.doc_type or "other", "period": _period(d),
               **({"authors": "; ".join(d.authors or [])} if any(x.authors for x in docs) else {})} for d in docs])
    with st.expander("Pages, passages, figures and files"):
        st.table([{"document": document_label(d), "pages": str(d.page_count), "passages": str(d.chunks),
                   "figures": str(d.figures), "OCR pages": str(d.ocr_pages), "uploaded": time_label(d.uploaded_at),
                   "file": d.file_name} for d in docs])
    with st.expander("Correct a document's details"):
        _correct(docs)
    if st.session_state.get("saved_note"):
        note, refused = st.session_state["saved_note"]
        (st.warning if refused else st.success)(note)  # stays until the next change


def _period(d: DocumentMeta) -> str:
    """The fiscal period as every page prints it ("FY2023", "Q2 FY2023"); an 8-K has none, so its date of report;
    a paper its year of publication."""
    if d.doc_type == "8-K" and d.published_date:
        return f"dated {str(d.published_date)[:10]}"
    if d.doc_type == "research paper" and d.fiscal_year:
        return f"{d.fiscal_year} (published)"
    return period_label(d.fiscal_year, d.fiscal_period or ("FY" if d.doc_type in ANNUAL_TYPES else None), d.doc_type)


def _correct(docs: list[DocumentMeta]) -> None:
    """One document's title, company, type, year and period, in a form; only the fields changed are saved."""
    by_id = {d.document_id: d for d in docs}
    pick = st.selectbox("Document to correct", list(by_id), format_func=lambda i: document_label(by_id[i]),
                        key=f"correct_pick-{st.session_state.get('deletes', 0)}")
    d = by_id.get(pick)
    if d is None:
        return
    with st.form(f"correct-{d.document_id}"):
        title = st.text_input("Title", d.title or "")
        company = st.text_input("Company", d.company or "")
        c1, c2, c3 = st.columns(3)
        kind = c1.selectbox("Type", TYPES, index=TYPES.index(d.doc_type) if d.doc_type in TYPES else len(TYPES) - 1)
        year = c2.number_input("Fiscal year", min_value=1900, max_value=2100, value=d.fiscal_year, step=1)
        period = c3.text_input("Period", _period(d), help=PERIOD)
        if st.form_submit_button("Save"):
            changes = {"company": company if company != (d.company or "") else None,
                       "fiscal_year": int(year) if year and year != d.fiscal_year else None,
                       "fiscal_period": _period_kind(period) if period != _period(d) else None,
                       "doc_type": kind if kind != (d.doc_type or "other") else None,
                       "title": title if title != (d.title or "") else None}
            if not any(v is not None for v in changes.values()):
                st.session_state["saved_note"] = ("Nothing to save: no field was changed.", False)
                st.rerun()
            ok = get_store().update_document_metadata(d.document_id, **changes)
            note = (f"Saved the corrections to {neutral(document_label(d))}." if ok else
                    f"Not saved for {neutral(document_label(d))}: a shared document is corrected by its owner, and a "
                    "deleted one no longer exists.")
            st.session_state["saved_note"] = (note, not ok)
            st.rerun()


def _forget(gone: set[int]) -> None:
    """After a delete: the status lines of the deleted documents go, and no picker names them."""
    job_doc = {r["id"]: r["document_id"] for r in jobs.list_jobs(get_store(), 200)}
    results = st.session_state.get("ingest_results", {})
    for name in [n for n, r in results.items()
                 if r.get("document_id") in gone or job_doc.get(r.get("queued")) in gone]:
        results.pop(name)
    st.session_state["delete_pick"] = []
    # a new related-documents box: the old one kept showing a deleted document as its choice
    st.session_state["deletes"] = st.session_state.get("deletes", 0) + 1


def _delete(gone: list[int]) -> None:
    """The Delete button's callback: it runs before the page is drawn again, so the pickers (widgets whose state
    only a callback may change) no longer name the deleted documents, and the page counts them gone."""
    _forget(set(gone))  # first: a deleted document's jobs no longer name it
    for i in gone:
        get_store().delete_document(i)


def _related_delete_reindex(docs: list[DocumentMeta]) -> None:
    names = {d.document_id: document_label(d) for d in docs}
    twice = {n for n in names.values() if list(names.values()).count(n) > 1}  # the file tells these apart
    labels = {d.document_id: names[d.document_id] + (f" · {d.file_name}" if names[d.document_id] in twice else "")
              for d in docs}
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Related documents** (same issuer, other periods)")
        pick = st.selectbox("Document", list(labels), format_func=labels.get,
                            key=f"related_pick-{st.session_state.get('deletes', 0)}")
        rel = get_store().related_graph(pick) if pick else []
        if rel:
            st.dataframe([{"relation": r.relation.replace("_", " "), "hops": r.depth, "document": names.get(r.document_id, r.file_name),
                           "period": period_label(r.fiscal_year, r.fiscal_period)} for r in rel], hide_index=True)
        else:
            st.caption("None in the library.")
    with c2:
        st.markdown("**Delete**")
        gone = st.multiselect("Documents to delete", list(labels), format_func=labels.get, key="delete_pick")
        if gone:
            with st.popover(f"Delete {len(gone)} document(s)…"):
                st.write("Delete " + ", ".join(neutral(labels[i]) for i in gone) + "? Their passages, figures and "
                         "facts go too. This cannot be undone.")
                st.button("Delete", type="primary", key="delete_confirm", on_click=_delete, args=(list(gone),))
        st.markdown("**Re-index**")
        st.caption("Re-embed every chunk and figure with the configured embedding model (after changing it).")
        if st.button("Re-index the library"):
            from rag.ingest.reindex import reindex

            with st.spinner("Re-embedding…"):
                counts = reindex(get_store(), get_embedder())
            st.success(f"Re-embedded {counts.get('chunks', 0)} chunks and {counts.get('figures', 0)} figures.")


def page() -> None:
    sidebar()
    st.title("Library")
    st.caption("Upload PDFs — 10-Ks, earnings releases, sustainability reports, papers. Each file is queued, and a "
               "worker reads, chunks, embeds and stores it in one transaction; you can leave this page meanwhile, "
               "and a bad file never stops the others.")
    rows = jobs.list_jobs(get_store(), 50)
    st.session_state["job_status"] = {r["id"]: r["status"] for r in rows}
    docs = documents()  # read once per redraw: the status lines and the jobs table name them, the tables list them
    names = {d.document_id: document_label(d) for d in docs}
    _upload(names)
    _jobs(rows, names)
    st.subheader(f"{len(docs)} document(s)")
    if not docs:
        st.info("No documents yet: upload PDFs above. They are read in the background, and each appears here when "
                "it is ready.")
        return
    _table(docs)
    _related_delete_reindex(docs)


page()
