"""Entry point: page config and navigation. Pages (pages/) stay thin and call rag.*; the store and the model are
created once (pages/__init__.py, st.cache_resource)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages import developer_mode

ICON = Path(__file__).resolve().parent / "pages" / "icon.png"


def main() -> None:
    # the icon is a file of ours: a Material icon as the page icon is fetched from Google's servers by the browser
    st.set_page_config(page_title="Report research assistant", page_icon=str(ICON), layout="wide")
    pages = [
        st.Page("pages/views/ask.py", title="Ask", icon=":material/chat:", url_path="ask", default=True),
        st.Page("pages/views/library.py", title="Library", icon=":material/library_books:", url_path="library"),
        st.Page("pages/views/facts.py", title="Facts", icon=":material/table_view:", url_path="facts"),
        st.Page("pages/views/compare.py", title="Compare", icon=":material/compare:", url_path="compare"),
        st.Page("pages/views/demo.py", title="RAG demo", icon=":material/slideshow:", url_path="demo"),
    ]
    if developer_mode():
        pages.append(st.Page("pages/views/debug.py", title="Debug", icon=":material/build:", url_path="debug"))
    st.navigation(pages).run()


main()
