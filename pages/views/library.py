"""Upload & library: ingest PDFs with per-file progress, then browse, correct, delete and relate documents."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from pages import documents, get_embedder, get_store, settings, sidebar
from rag.ingest.pdf import upload_name
from rag.ingest.pipeline import ingest_file
from rag.records import DocumentMeta

TYPES = ["10-K", "10-Q", "8-K", "earnings release", "sustainability report", "annual report", "research paper",
         "other"]


def _ingest(name: str, data: bytes, password: str | None) -> None:
    store, emb, s = get_store(), get_embedder(), settings()
    with st.status(f"{name}", expanded=True) as status:
        bar = st.progress(0.0, text="reading pages…")

        def progress(stage: str, done: int, total: int) -> None:
            if total:
                bar.progress(min(1.0, done / total), text=f"{stage}: {done} / {total}")

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / upload_name(name)  # the uploaded name is never a path
            path.write_bytes(data)
            res = ingest_file(path, store, emb, s, password=password, progress=progress)
        st.session_state.setdefault("ingest_results", {})[name] = res.to_dict()
        if res.already_ingested:
            status.update(label=f"{name}: already in the library (document {res.document_id})", state="complete")
        elif res.ok:
            bar.progress(1.0, text="done")
            status.update(label=f"{name}: {res.pages} pages, {res.chunks} chunks, {res.figures} figures, "
                                f"{res.ocr_pages} OCR pages, {res.seconds:.1f} s", state="complete")
        else:
            status.update(label=f"{name}: {res.error}", state="error")


def _upload() -> None:
    """Upload, per-file progress, password prompts and one-line errors."""
    files = st.file_uploader("PDF files", type=["pdf"], accept_multiple_files=True, key="uploads")
    if files and st.button(f"Ingest {len(files)} file(s)", type="primary"):
        for f in files:
            _ingest(f.name, f.getvalue(), None)
    results = st.session_state.get("ingest_results", {})
    locked = [n for n, r in results.items() if r.get("error") and "password" in r["error"].lower()]
    for name in locked:
        with st.form(f"pw-{name}"):
            wrong = "wrong" in results[name]["error"].lower()
            st.warning(f"{name} is encrypted" + (": that password is wrong." if wrong else ". Enter its password to "
                                                                                         "open it."))
            pw = st.text_input("Password", type="password", key=f"pwd-{name}")
            if st.form_submit_button("Open with this password"):
                data = next((f.getvalue() for f in files or [] if f.name == name), None)
                if data is None:
                    st.error("Upload the file again, then enter its password.")
                else:
                    _ingest(name, data, pw)
    for name, r in results.items():
        if r.get("error") and name not in locked:
            st.error(f"{name}: {r['error']}")


def _table(docs: list[DocumentMeta]) -> None:
    """The documents, with company, type, fiscal year and period editable."""
    rows = [{"id": d.document_id, "file": d.file_name, "company": d.company or "",
             "type": d.doc_type or "other", "fiscal year": d.fiscal_year,
             "period": d.fiscal_period or "", "pages": d.page_count, "chunks": d.chunks,
             "figures": d.figures, "OCR pages": d.ocr_pages, "uploaded": str(d.uploaded_at)[:16]}
            for d in docs]
    edited = st.data_editor(
        rows, key="library_table", hide_index=True, use_container_width=True,
        disabled=["id", "file", "pages", "chunks", "figures", "OCR pages", "uploaded"],
        column_config={"type": st.column_config.SelectboxColumn("type", options=TYPES),
                       "fiscal year": st.column_config.NumberColumn("fiscal year", min_value=1900, max_value=2100,
                                                                    step=1, format="%d")})
    changed = [(new, old) for new, old in zip(edited, rows) if new != old]
    if changed and st.button(f"Save {len(changed)} correction(s)"):
        for new, old in changed:
            get_store().update_document_metadata(
                new["id"], company=new["company"] if new["company"] != old["company"] else None,
                fiscal_year=int(new["fiscal year"]) if new["fiscal year"] != old["fiscal year"] else None,
                fiscal_period=new["period"] if new["period"] != old["period"] else None,
                doc_type=new["type"] if new["type"] != old["type"] else None)
        st.success("Saved.")
        st.rerun()


def _related_delete_reindex(docs: list[DocumentMeta]) -> None:
    labels = {d.document_id: f"{d.document_id} · {d.file_name}" for d in docs}
    c1, c2 = st.columns(2)
    with c1:
        st.markdown("**Related documents** (same issuer, other periods)")
        pick = st.selectbox("Document", list(labels), format_func=labels.get, key="related_pick")
        rel = get_store().related_graph(pick) if pick else []
        if rel:
            st.dataframe([{"relation": r.relation.replace("_", " "), "hops": r.depth, "file": r.file_name,
                           "year": r.fiscal_year, "period": r.fiscal_period} for r in rel], hide_index=True)
        else:
            st.caption("None in the library.")
    with c2:
        st.markdown("**Delete**")
        gone = st.multiselect("Documents to delete", list(labels), format_func=labels.get, key="delete_pick")
        if gone and st.button(f"Delete {len(gone)} document(s)", type="secondary"):
            for i in gone:
                get_store().delete_document(i)
            st.rerun()
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
    st.caption("Upload PDFs — 10-Ks, earnings releases, sustainability reports, papers. Each file is checked, read, "
               "chunked, embedded and stored in one transaction; a bad file never stops the others.")
    _upload()
    docs = documents()
    st.subheader(f"{len(docs)} document(s)")
    if not docs:
        st.info("No documents yet: upload PDFs above, or run `python -m rag ingest FOLDER`.")
        return
    _table(docs)
    _related_delete_reindex(docs)


page()
