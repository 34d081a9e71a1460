"""The app's pages (pages/views/*.py, registered with st.navigation in streamlit_app.py) and what they share.

No page script sits directly in pages/: Streamlit treats *.py there as a legacy multipage app until
st.navigation has run once, so a deep link as the very first request would bypass the navigation.

What every page shares: settings (env, st.secrets, sidebar knobs), the store and the model (created once),
and small display helpers. All logic lives in rag/; this module only wires it to Streamlit."""

from __future__ import annotations

import os

import streamlit as st

from rag.config import RetrievalSettings, Settings, settings_from_env
from rag.records import INSUFFICIENT, DocumentMeta

CONFIDENCE_COLOURS = {"high": "green", "medium": "blue", "low": "orange", INSUFFICIENT: "red"}


def base_settings() -> Settings:
    """Settings from env, with st.secrets (DATABASE_URL, SUPABASE_URL, SUPABASE_KEY, OPENAI_*, RAG_*) as a fallback."""
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

    return open_store(base_settings())


@st.cache_resource(show_spinner="Loading the embedding model…")
def get_embedder():
    from rag.embed import Embedder

    emb = Embedder(base_settings().embedding)
    emb.load()
    return emb


def settings() -> Settings:
    """The base settings with the sidebar's retrieval knobs applied."""
    s = base_settings()
    knobs = st.session_state.get("retrieval_knobs") or {}
    s.retrieval = s.retrieval.model_copy(update=knobs)
    return s


def _persist(key: str) -> None:
    """Widget values live only as long as their page: keep them under a plain key as well."""
    st.session_state[f"keep_{key}"] = st.session_state[key]


def _kept(key: str, default):
    return st.session_state.get(f"keep_{key}", default)


def sidebar() -> None:
    """Developer switch and retrieval knobs, on every page (their values survive page switches)."""
    with st.sidebar:
        st.toggle("Developer mode (Debug page)", value=developer_mode(), key="developer_mode",
                  on_change=_persist, args=("developer_mode",))
        _dev_in_url()
        with st.expander("Retrieval settings"):
            d = RetrievalSettings()
            knobs = {}
            for key, widget, label, args, default in (
                    ("k", st.slider, "Chunks per answer (0 = dynamic 3/5/7)", (0, 10), 0),
                    ("threshold", st.slider, "Relevance threshold", (0.0, 0.9), float(d.threshold)),
                    ("recency_weight", st.slider, "Recency weight", (0.0, 1.0), float(d.recency_weight)),
                    ("diversity", st.toggle, "Diversity (MMR, per-document caps)", (), d.diversity),
                    ("rerank", st.toggle, "Rerank", (), d.rerank)):
                wkey = f"knob_{key}"
                extra = {"step": 0.05} if isinstance(default, float) else {}
                knobs[key] = widget(label, *args, value=_kept(wkey, default), key=wkey, on_change=_persist,
                                    args=(wkey,), **extra)
            knobs["k"] = knobs["k"] or None
            st.session_state["retrieval_knobs"] = knobs
        s = base_settings()
        st.caption(f"Store: {get_store().kind} · Answers: "
                   f"{'LLM ' + s.llm.model if s.llm.base_url else 'offline (extractive)'}")


def developer_mode() -> bool:
    """On when the sidebar switch is on. It is also in the URL (?dev=1), so a reload of the Debug page (a new
    session, whose state starts empty) finds the page and the switch still on."""
    if "keep_developer_mode" not in st.session_state and st.query_params.get("dev") == "1":
        st.session_state["keep_developer_mode"] = True
    return bool(_kept("developer_mode", False))


def _dev_in_url() -> None:
    """The URL says whether developer mode is on (a page switch clears the URL's parameters: set again each run)."""
    if developer_mode():
        if st.query_params.get("dev") != "1":
            st.query_params["dev"] = "1"
    elif "dev" in st.query_params:
        del st.query_params["dev"]


def confidence_badge(confidence: str) -> None:
    colour = CONFIDENCE_COLOURS.get(confidence, "gray")
    st.badge(confidence.replace("_", " "), color=colour) if hasattr(st, "badge") else \
        st.markdown(f":{colour}[**{confidence.replace('_', ' ')}**]")


def documents() -> list[DocumentMeta]:
    return get_store().list_documents()


def library_or_stop() -> list[DocumentMeta]:
    """The documents; on an empty library a pointer to the Library page, and the page stops here."""
    docs = documents()
    if not docs:
        st.info("The library is empty: upload PDFs on the Library page first.")
        st.stop()
    return docs


def table_frame(head: list[str], lines: list[list[str]]):
    """A table's grid (rag.records.Table.grid) as a data frame for st.dataframe: plain text cells, column names
    made unique ("2023", "2023 (2)") and a blank one named by its position."""
    import pandas as pd

    names: list[str] = []
    for j, h in enumerate(head):
        name = (h or ("Row" if j == 0 else f"Column {j}")).strip()
        base, k = name, 2
        while name in names:
            name, k = f"{base} ({k})", k + 1
        names.append(name)
    return pd.DataFrame(lines, columns=names)

