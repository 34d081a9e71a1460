"""Robustness found in the security review: killed clients and the embedded server, huge pages, the database
dying mid-ingest, hostile titles in exports, paths in messages, short pages that open alike, right-to-left text,
and store errors as one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import psycopg
import pymupdf
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _py(code: str, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT), **env))


def _cli(*args: str, timeout: float = 600, **env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=timeout,
                          cwd=ROOT, env=dict(os.environ, **env))


@pytest.mark.slow
def test_a_killed_client_does_not_keep_the_embedded_server_running(tmp_path):
    data = tmp_path / "pg"
    killed = _py("import os, signal; from rag.store.transports import embedded_url; "
                 f"embedded_url({str(data)!r}); os.kill(os.getpid(), signal.SIGKILL)")
    assert killed.returncode == -signal.SIGKILL
    assert json.loads((data / ".handle_pids.json").read_text())  # pgserver kept the dead PID
    assert (data / "postmaster.pid").exists()
    normal = _py(f"from rag.store.transports import embedded_url; embedded_url({str(data)!r}); print('ok')")
    assert normal.returncode == 0 and "ok" in normal.stdout
    for _ in range(40):  # the last live handle stopped the server on exit
        if not (data / "postmaster.pid").exists():
            break
        time.sleep(0.25)
    assert not (data / "postmaster.pid").exists()
    assert json.loads((data / ".handle_pids.json").read_text()) == []


def _poster(path: Path, side: float = 6000.0) -> Path:
    """A 16 KB-class PDF: one 6000-pt page whose only content is a small image stretched over it."""
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    doc = pymupdf.open()
    page = doc.new_page(width=side, height=side)
    page.insert_image(page.rect, stream=pix.tobytes("png"))
    doc.save(path)
    return path


def test_renders_are_bounded_on_a_huge_page(tmp_path):
    from rag.ingest.pdf import MAX_RENDER_PIXELS, render

    doc = pymupdf.open(_poster(tmp_path / "poster.pdf"))
    assert (tmp_path / "poster.pdf").stat().st_size < 20_000
    page = doc[0]
    for pix in (render(page, 2.0), render(page, 150 / 72, clip=page.rect), render(page, 2.0, rotate=90)):
        assert pix.width * pix.height <= MAX_RENDER_PIXELS * 1.01
    small = render(page, 2.0, clip=pymupdf.Rect(0, 0, 100, 100))
    assert small.width == 200  # a normal region keeps its zoom


def test_a_huge_page_ingests_without_full_size_renders(clean_store, ingest, tmp_path):
    res = ingest(_poster(tmp_path / "poster.pdf"))
    assert res.error is None or "\n" not in res.error  # no text on it: a clear one-line refusal is fine


@pytest.mark.slow
def test_the_database_dying_mid_ingest_is_one_line(tmp_path):
    import make_pdfs

    data = tmp_path / "pg"
    big = make_pdfs.make_big(tmp_path / "big.pdf", pages=600)
    small = make_pdfs.make_esg(tmp_path / "esg.pdf")
    env = dict(os.environ, RAG_DATA_DIR=str(data), RAG_INGEST__OCR="false")
    p = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(big), str(small)], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pid_file = data / "postmaster.pid"
    for _ in range(240):
        if pid_file.exists():
            break
        time.sleep(0.25)
    time.sleep(12)  # the model is loaded and the big file is being read
    os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
    out, err = p.communicate(timeout=600)
    assert p.returncode != 0
    assert "Traceback" not in err and "Traceback" not in out, err[-2000:]
    lines = [line for line in (out + err).splitlines() if line.strip()]
    assert lines and all(len(line) < 600 for line in lines)
    assert any("big.pdf" in line for line in lines)


def test_store_errors_are_one_line_for_the_user():
    r = _cli("docs", DATABASE_URL="postgresql://nobody@127.0.0.1:9/none?connect_timeout=2")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().count("\n") == 0 and r.stderr.startswith("error: cannot connect to Postgres")


def test_hostile_titles_and_captions_are_escaped_in_the_markdown_export():
    from rag.answer.export import to_markdown
    from rag.answer.model import Answer, Evidence, PlacedFigure

    a = Answer(question="<b>q</b>", answer="Revenue was $5 [1].", confidence="high", evidence=[Evidence(
        marker=1, document="<script>alert(1)</script> Corp", file_name="x.pdf", document_id=1, pages=[1], chunk_id=1,
        quote='<img src=x onerror="alert(1)"> revenue $5', source="<iframe src=//evil></iframe> 10-K, p. 1")],
        figures=[PlacedFigure(figure_id=1, document="<svg onload=alert(1)>", file_name="x.pdf", document_id=1, page=1,
                              caption="![x](http://evil/t.png)", chunk_id=1, after_paragraph=0)])
    md = to_markdown(a, figure_image=None)
    for bad in ("<script", "<img", "<iframe", "<svg", "<b>", "](http://evil"):
        assert bad not in md, bad


def test_messages_never_show_where_the_file_is(clean_store, ingest, tmp_path):
    folder = tmp_path / "secret-folder"
    folder.mkdir()
    files = {"garbage.pdf": b"%PDF-1.4\n" + os.urandom(3000), "empty.pdf": b"", "text.pdf": b"hello",
             "cut.pdf": b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"}
    for name, data in files.items():
        (folder / name).write_bytes(data)
        res = ingest(folder / name)
        assert res.error and str(folder) not in res.error and "secret-folder" not in res.error, res.error
        assert not any("secret-folder" in w for w in res.warnings)
    r = _cli("ingest", str(folder / "garbage.pdf"), RAG_DATA_DIR=str(tmp_path / "pg"))
    assert "secret-folder" not in r.stdout + r.stderr and "garbage.pdf" in r.stdout + r.stderr


def test_short_pages_that_open_alike_are_not_blank(clean_store, ingest, tmp_path):
    doc = pymupdf.open()
    for i in range(5):
        page = doc.new_page()
        page.insert_text((72, 50), f"Board minutes of the Acme Widgets meeting, item {i + 1}: dividend approved",
                         fontsize=11)
    doc.save(tmp_path / "minutes.pdf")
    res = ingest(tmp_path / "minutes.pdf")
    assert res.ok and res.chunks >= 1, res.error


def test_right_to_left_text_keeps_its_words_and_order(tmp_path):
    from rag.config import Settings
    from rag.ingest.pipeline import parse_pdf

    he = "שלום עולם זה דוח קיימות לשנת 2023 והוא כולל נתונים על פליטות גזי חממה וצריכת אנרגיה בכל אתרי החברה"
    doc = pymupdf.open()
    doc.new_page().insert_htmlbox(pymupdf.Rect(72, 100, 400, 300), f'<p dir="rtl">{he}</p>')
    doc.save(tmp_path / "rtl.pdf")
    _, _, _, first = parse_pdf(pymupdf.open(tmp_path / "rtl.pdf"), Settings())
    assert " ".join(first[0].split()) == he


def test_the_cli_closes_its_connections(tmp_path):
    for _ in range(3):  # an unclosed pool joined at interpreter exit printed "Exception ignored … RuntimeError"
        r = _cli("ask", "--sql", "select count(*) as n from v_documents", RAG_DATA_DIR=str(tmp_path / "pg"))
        assert r.returncode == 0 and "Exception ignored" not in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_call_rolled_back_as_a_conflict_is_made_again(store):
    # a deadlock or serialization failure rolls the whole call back (one call, one transaction): the transport makes
    # it again, up to RETRIES times, and then says what happened (not "unreachable")
    from rag.errors import StoreError
    from rag.store.transports import RETRIES

    with store.transport.connection() as conn:
        conn.execute("drop sequence if exists flaky_calls; create sequence flaky_calls")
        conn.execute("""create or replace function flaky_call(p_fail_until int) returns int language plpgsql as $$
                        declare n int := nextval('flaky_calls');
                        begin
                            if n <= p_fail_until then
                                raise exception 'could not serialize access' using errcode = '40001';
                            end if;
                            return n;
                        end $$""")
    try:
        assert store.admin_rpc("flaky_call", {"p_fail_until": 2}) == 3  # failed twice, then went through
        with pytest.raises(StoreError) as err:
            store.admin_rpc("flaky_call", {"p_fail_until": 100})
        assert "could not serialize access" in str(err.value) and "unreachable" not in str(err.value)
        with store.transport.connection() as conn:
            assert conn.execute("select last_value from flaky_calls").fetchone()[0] == 3 + RETRIES + 1
    finally:
        with store.transport.connection() as conn:
            conn.execute("drop function flaky_call(int); drop sequence flaky_calls")


def test_a_pooled_connection_comes_back_with_the_logins_settings(store):
    # whatever one user of a pooled connection SET for its session (a role, a timeout) is gone for the next one
    from contextlib import ExitStack

    with store.transport.connection() as conn:
        login = conn.execute("select current_user, current_setting('statement_timeout')").fetchone()
        conn.execute("set lock_timeout = 300")
        conn.execute("set statement_timeout = 5")
        conn.execute("set role rag_app")
    with ExitStack() as stack:
        conns = [stack.enter_context(store.transport.connection()) for _ in range(4)]  # the whole pool
        for c in conns:
            assert c.execute("select current_user, current_setting('statement_timeout')").fetchone() == login
            assert c.execute("select current_setting('lock_timeout')").fetchone() == ("0",)


def _acme_filing(rng, sha: str, year: int) -> tuple[dict, list[dict], list[dict]]:
    """A 20-chunk Acme 10-K for ingest_document()."""
    doc = {"file_name": f"{sha}.pdf", "sha256": sha, "page_count": 1, "embedding_model": "all-MiniLM-L6-v2",
           "doc_type": "10-K", "company": "Acme", "company_key": "acme", "fiscal_year": year}
    chunks = [{"chunk_index": i, "page_start": 1, "page_end": 1, "token_count": 5,
               "content": f"revenue growth margin operating results {i}",
               "embedding": "[" + ",".join(f"{x:.5f}" for x in rng.standard_normal(384)) + "]"}
              for i in range(20)]
    return doc, chunks, []


def _at_once_without_retries(caplog, step, threads: int = 6, rounds: int = 4) -> None:
    """step(k, j) in `threads` threads, `rounds` times each: no call may fail, nor need a retry."""
    import logging
    import threading

    errors: list[str] = []

    def worker(k: int) -> None:
        for j in range(rounds):
            try:
                step(k, j)
            except Exception as exc:  # noqa: BLE001 - every failure is reported by the assertion below
                errors.append(str(exc))

    caplog.set_level(logging.INFO, logger="rag.store.transports")
    running = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join(120)
    assert errors == []
    assert not [r for r in caplog.records if "trying again" in r.getMessage()]


def test_ingests_and_deletes_of_one_company_at_once_do_not_deadlock(clean_store, caplog):
    # sql/functions/documents_lock_company.sql: an ingestion and a delete of the same company's documents lock those documents first, in id order;
    # before, a delete (document, then term statistics) and an ingestion (term statistics, then the document, through
    # the relations' foreign key) deadlocked (28 of 61 calls in an attack with 8 threads). Nothing may need a retry.
    rng = np.random.default_rng(7)

    def step(k: int, j: int) -> None:
        out = clean_store.ingest_document(*_acme_filing(rng, f"lock-{k}-{j}", 2000 + j))
        if j % 2:
            assert clean_store.delete_document(out["document_id"])

    _at_once_without_retries(caplog, step)
    docs = clean_store.list_documents()
    assert len(docs) == 12 and all(d.chunks == 20 for d in docs)


def test_metadata_edits_ingests_and_deletes_of_one_company_at_once_do_not_deadlock(clean_store, caplog):
    # sql/functions/update_document_metadata.sql: update_document_metadata takes 078's locks too (the documents of the old and the new company in the
    # writer's workspace, by id) before it writes, so an edit of a filing's company or year never deadlocks with an
    # ingestion or a delete of the same company. Nothing may need a retry.
    rng = np.random.default_rng(11)

    def step(k: int, j: int) -> None:
        doc_id = clean_store.ingest_document(*_acme_filing(rng, f"edit-{k}-{j}", 2000 + j))["document_id"]
        assert clean_store.update_document_metadata(doc_id, fiscal_year=2010 + j)
        assert clean_store.update_document_metadata(doc_id, company="Acme Holdings" if k % 2 else "Acme")
        if j % 2:
            assert clean_store.delete_document(doc_id)

    _at_once_without_retries(caplog, step)
    docs = clean_store.list_documents()
    assert len(docs) == 12 and all(d.chunks == 20 for d in docs)
    assert sorted({d.company for d in docs}) == ["Acme", "Acme Holdings"]


def _filing(conn, name: str, workspace: str | None, key: str, year: int) -> int:
    return conn.execute("""insert into documents (file_name, sha256, page_count, embedding_model, company, company_key,
                                                  doc_type, fiscal_year, workspace)
                           values (%s, %s, 1, 'all-MiniLM-L6-v2', %s, %s, '10-K', %s, %s) returning id""",
                        (name, name, key.title(), key, year, workspace)).fetchone()[0]


def _as_team(conn, workspace: str = "team-a") -> None:
    conn.execute("begin")
    conn.execute("select set_config('rag.workspace', %s, true)", (workspace,))
    conn.execute("set local role rag_app")


def test_an_edit_whose_filing_moved_meanwhile_takes_its_locks_again_with_none_held(clean_store):
    # sql/functions/update_document_metadata.sql: E2 moves d from acme to beta and holds it; E1 (a year edit of d, read as acme) waits on d; E3 (moving
    # b1 to acme) waits on b1. When E2 commits, E1 finds d moved: under 079 it kept d and a3 while it went for b1,
    # which E3 held while it waited for d (a deadlock, 2 runs in 4 of an independent review's test). Now E1 gives
    # its locks back before it takes them again. Raw connections: no retry hides a deadlock.
    import threading

    for round_ in range(3):  # fresh filings each round: b1 (beta) < d (acme) < a3 (acme), by id
        with clean_store.transport.connection() as c:
            b1 = _filing(c, f"b1-{round_}", "team-a", f"beta{round_}", 2001)
            d = _filing(c, f"d-{round_}", "team-a", f"acme{round_}", 2002)
            _filing(c, f"a3-{round_}", "team-a", f"acme{round_}", 2003)
        done: dict = {}

        def edit(name, conn, doc, company, done=done):
            try:
                _as_team(conn)
                done[name] = conn.execute("select update_document_metadata(%s, %s, %s, 2010)",
                                          (doc, company.title(), company)).fetchone()[0]
                conn.execute("commit")
            except psycopg.Error as exc:
                done[name] = exc.sqlstate
                conn.execute("rollback")

        with clean_store.transport.connection() as e2, clean_store.transport.connection() as e1, \
                clean_store.transport.connection() as e3:
            _as_team(e2)
            assert e2.execute("select update_document_metadata(%s, 'Beta', %s)", (d, f"beta{round_}")).fetchone()[0]
            t1 = threading.Thread(target=edit, args=("e1", e1, d, f"acme{round_}"))  # d, read as acme
            t1.start()
            time.sleep(0.5)
            t3 = threading.Thread(target=edit, args=("e3", e3, b1, f"acme{round_}"))  # b1 to acme
            t3.start()
            time.sleep(0.5)
            e2.execute("commit")
            t1.join(20)
            t3.join(20)
        assert done == {"e1": True, "e3": True}, done  # 40P01 for one of them under 079


def test_a_teams_edit_and_ingest_survive_the_owner_deleting_a_shared_filing_of_the_company(clean_store, caplog):
    # a team's writer cannot lock shared filings (row-level security), so the owner may delete one while a team's
    # call links its filing to it; the call then fails on document_relations' foreign key and is made again
    import logging
    import threading

    from rag.store import Store
    from rag.store.transports import PostgresTransport

    with clean_store.transport.connection() as c:
        shared = _filing(c, "s1", None, "acme", 2019)
        own = _filing(c, "a1", "team-a", "acme", 2020)
    team = PostgresTransport(clean_store.transport.url, workspace="team-a")
    team.use_app_role()
    store = Store(team, "postgres", clean_store.settings)
    caplog.set_level(logging.INFO, logger="rag.store.transports")
    try:
        for call in (lambda: store.update_document_metadata(own, fiscal_year=2021),
                     lambda: store.ingest_document({"file_name": "n.pdf", "sha256": "n", "page_count": 1,
                                                    "embedding_model": "all-MiniLM-L6-v2", "doc_type": "10-K",
                                                    "company": "Acme", "company_key": "acme", "fiscal_year": 2022},
                                                   [], [])):
            result: dict = {}
            with clean_store.transport.connection() as owner:
                owner.execute("begin")
                assert owner.execute("select delete_document(%s)", (shared,)).fetchone()[0]

                def run(call=call, result=result):
                    try:
                        result["value"] = call()
                    except Exception as exc:  # noqa: BLE001 - reported by the assertion below
                        result["error"] = str(exc)

                t = threading.Thread(target=run)
                t.start()
                time.sleep(1.0)  # the team's call waits for the delete (the relations' foreign key)
                owner.execute("commit")
                t.join(30)
            assert "error" not in result, result
            with clean_store.transport.connection() as c:
                shared = _filing(c, f"s{len(caplog.records)}", None, "acme", 2019)  # again for the next call
        assert [r for r in caplog.records if "trying again" in r.getMessage() and "foreign key" in r.getMessage()]
    finally:
        team.close()
