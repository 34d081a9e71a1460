"""Stored documents' issuers read again from their whole stored text, with the same detector as ingestion
(`rag.ingest.metadata.issuer_of_text`): for stores ingested before it read the whole document. SEC filings keep their
registrant and research papers have none; a name the detector cannot find, or one not printed on the document's
first pages, leaves the stored company as it is."""

from __future__ import annotations

from rag.ingest.metadata import issuer_of_text, on_cover

__all__ = ["redetect_issuers"]

_KEEP = ("research paper", "10-K", "10-Q", "8-K")


def redetect_issuers(store, apply: bool = True) -> list[tuple[int, str, str | None, str]]:
    """(document id, file name, stored company, detected company) for each document whose issuer reads otherwise;
    saved when apply."""
    changes = []
    for d in store.list_documents():
        if d.doc_type in _KEEP:
            continue
        chunks = store.document_chunks(d.document_id)
        text = "\n".join(c.get("content") or "" for c in chunks)
        cover = "\n".join(c.get("content") or "" for c in chunks if int(c.get("page_start") or 1) <= 5)
        name = issuer_of_text(text)
        if not name or not on_cover(name, cover) or name == d.company:
            continue
        changes.append((d.document_id, d.file_name, d.company, name))
        if apply:
            store.update_document_metadata(d.document_id, company=name)
    return changes
