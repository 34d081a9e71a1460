"""Entry point: page config, navigation and the shared store. Pages stay thin and call rag.*."""

from __future__ import annotations

import os

import streamlit as st

from rag.config import Settings, settings_from_env


def _settings() -> Settings:
    """Settings from env, with st.secrets (DATABASE_URL, SUPABASE_URL, SUPABASE_KEY, RAG_*) as a fallback."""
    env = dict(os.environ)
    try:
        for key, value in st.secrets.items():
            if isinstance(value, (str, int, float)) and key not in env:
                env[key] = str(value)
    except Exception:  # no secrets.toml: fine
        pass
    return settings_from_env(env)


@st.cache_resource(show_spinner="Starting the database…")
def get_store():
    from rag.store import open_store

    return open_store(_settings())


@st.cache_resource(show_spinner="Loading the embedding model…")
def get_embedder():
    from rag.embed import Embedder

    return Embedder(_settings().embedding)


def library_page() -> None:
    st.title("Library")
    store = get_store()
    docs = store.list_documents()
    if not docs:
        st.info("No documents yet. Ingest PDFs with `python -m rag ingest PATH` (upload page coming).")
        return
    st.caption(f"{len(docs)} document(s) in the {store.kind} store")
    st.dataframe(
        [{k: d[k] for k in ("file_name", "company", "doc_type", "fiscal_year", "fiscal_period", "page_count",
                            "chunks", "figures", "ocr_pages", "uploaded_at")} for d in docs],
        hide_index=True, use_container_width=True)


def main() -> None:
    st.set_page_config(page_title="Report research assistant", layout="wide")
    nav = st.navigation([st.Page(library_page, title="Library", icon="📚", default=True)])
    nav.run()


main()
