"""Re-embed every chunk and figure with the configured model (after a model change)."""

from __future__ import annotations


def reindex(store, embedder, batch: int = 256, progress=None) -> dict:
    store.admin_rpc("reindex_begin", {"p_model": embedder.model_name, "p_dim": embedder.dim})
    counts = {}
    for kind in ("chunks", "figures"):
        after, done = 0, 0
        while True:
            rows = store.admin_rpc("reindex_texts", {"p_kind": kind, "p_after_id": after, "p_batch": batch})
            if not rows:
                break
            vecs = embedder.encode([r["text_to_embed"] for r in rows])
            store.admin_rpc("reindex_write", {"p_kind": kind, "items": [
                {"id": r["id"], "embedding": [round(float(x), 7) for x in v]}
                for r, v in zip(rows, vecs, strict=False)]})
            after = rows[-1]["id"]
            done += len(rows)
            if progress:
                progress(done, None)
        counts[kind] = done
    return counts
