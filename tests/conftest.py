"""Shared fixtures: a real embedded Postgres (pgserver + pgvector), the real embedding model, real PDFs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float = 60) -> None:
    """Until a server listens on 127.0.0.1:port."""
    import socket
    import time

    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"nothing listens on port {port} after {seconds:.0f} s")


def corpus_or_skip(*parts: str) -> Path:
    """A path in ../shared/corpus; skip when absent, fail when RAG_REQUIRE_CORPUS=1 (CI)."""
    p = CORPUS.joinpath(*parts)
    if not p.exists():
        msg = f"{p} not found: the extended suite needs ../shared/corpus (CI has it)"
        if os.environ.get("RAG_REQUIRE_CORPUS") == "1":
            pytest.fail(msg + " and RAG_REQUIRE_CORPUS=1")
        pytest.skip(msg)
    return p


@pytest.fixture(scope="session")
def settings(tmp_path_factory):
    from rag.config import Settings

    s = Settings()
    s.db.data_dir = tmp_path_factory.mktemp("pgdata")
    return s


@pytest.fixture(scope="session")
def store(settings):
    from rag.store import open_store

    st = open_store(settings)
    yield st
    st.close()


@pytest.fixture
def clean_store(store):
    """The session store, emptied before the test (data only; the schema stays migrated)."""
    with store.transport.connection() as conn:
        conn.execute("truncate documents, store_info, term_stats, feedback, query_log restart identity cascade")
    return store


@pytest.fixture(scope="session")
def embedder(settings):
    from rag.embed import Embedder

    return Embedder(settings.embedding)


@pytest.fixture(scope="session")
def pdfs(tmp_path_factory):
    import make_pdfs as m

    d = tmp_path_factory.mktemp("pdfs")
    return {
        "paper": m.make_paper(d / "paper.pdf"),
        "10k_2022": m.make_10k(d / "report_final_v2.pdf", year=2022, revenue=12345, capex=1577),
        "10k_2021": m.make_10k(d / "acme_old.pdf", year=2021, revenue=11500, capex=1400),
        "10k_2020": m.make_10k(d / "scan0001.pdf", year=2020, revenue=10100, capex=1300),
        "esg": m.make_esg(d / "esg.pdf"),
        "annual": m.make_annual_report(d / "annual_report_2023.pdf"),
        "encrypted": m.make_encrypted(d / "memo.pdf"),
        "blank": m.make_blank(d / "blank.pdf"),
        "scanned": m.make_scanned(d / "scan.pdf"),
        "dir": d,
    }


@pytest.fixture
def ingest(store, embedder, settings):
    from rag.ingest.pipeline import ingest_file

    def _ingest(path, **kw):
        return ingest_file(path, store, embedder, settings, **kw)

    return _ingest
