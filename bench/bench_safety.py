"""Safety report: bad inputs tried / handled cleanly, kills survived with nothing lost, concurrent operations
completed, attacks blocked. Prints the table and writes JSON.

Usage: python bench/bench_safety.py [--kills 3] [--with-huge] [--out bench/results/safety.json]
(uses ../shared/corpus/bad when present; a fresh embedded store in a temporary folder)."""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "fixtures"), str(ROOT / "tests" / "unit")]
SHARED = Path(os.environ.get("RAG_SHARED_DIR", ROOT.parent / "shared"))


def _cli(data: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, RAG_DATA_DIR=str(data))
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=timeout,
                          env=env, cwd=ROOT)


def bad_inputs(store, emb, settings, work: Path, with_huge: bool) -> dict:
    import make_pdfs

    from rag.ingest.pipeline import ingest_file

    files: list[tuple[Path, str | None]] = []
    bad_dir = SHARED / "corpus" / "bad"
    if bad_dir.exists():
        files += [(p, None) for p in sorted(bad_dir.glob("*.pdf")) if with_huge or not p.name.startswith("huge")]
    (work / "not_a_pdf.pdf").write_text("this is a text file with a .pdf name")
    (work / "empty.pdf").write_bytes(b"")
    (work / "truncated.pdf").write_bytes(make_pdfs.make_10k(work / "full.pdf").read_bytes()[:3000])
    files += [(work / "not_a_pdf.pdf", None), (work / "empty.pdf", None), (work / "truncated.pdf", None),
              (make_pdfs.make_encrypted(work / "locked.pdf"), None), (make_pdfs.make_encrypted(work / "locked2.pdf"),
                                                                       "wrong"),
              (make_pdfs.make_blank(work / "blank.pdf"), None), (make_pdfs.make_hostile(work / "hostile.pdf"), None)]
    rows = []
    for path, pw in files:
        t = time.perf_counter()
        try:
            r = ingest_file(path, store, emb, settings, password=pw)
            clean = r.ok or (bool(r.error) and "\n" not in r.error)
            outcome = "ingested" if r.ok else r.error
        except Exception as exc:  # an exception escaping ingest_file is a failure of this report
            clean, outcome = False, f"CRASH {type(exc).__name__}: {exc}"
        rows.append({"file": path.name, "handled_cleanly": clean, "outcome": outcome[:100],
                     "seconds": round(time.perf_counter() - t, 2)})
    return {"tried": len(rows), "handled_cleanly": sum(r["handled_cleanly"] for r in rows), "files": rows}


def kills(work: Path, n: int) -> dict:
    import make_pdfs

    big = make_pdfs.make_big(work / "big.pdf", pages=900)  # ~40 s of reading and embedding
    data = work / "kill-store"
    _cli(data, "migrate")
    env = dict(os.environ, RAG_DATA_DIR=str(data))
    cycles = []
    for i in range(n):
        delay = random.uniform(6, 20)
        p = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(big)], env=env, cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        alive = p.poll() is None
        p.send_signal(signal.SIGKILL)
        p.wait()
        docs = json.loads(_cli(data, "docs", "--json").stdout or "[]")
        doctor = _cli(data, "doctor").returncode == 0
        cycles.append({"killed_after_s": round(delay, 1), "was_running": alive, "documents_after": len(docs),
                       "doctor_ok": doctor, "survived": alive and not docs and doctor})
    final = _cli(data, "ingest", "--json", str(big))
    res = json.loads(final.stdout.splitlines()[-1]) if final.stdout else {}
    return {"kills": n, "survived": sum(c["survived"] for c in cycles), "cycles": cycles,
            "ingests_cleanly_after": res.get("error") is None and res.get("chunks", 0) > 0}


def concurrency(store, emb, settings, work: Path) -> dict:
    import make_pdfs

    from rag.ingest.pipeline import ingest_file
    from rag.retrieve.pipeline import retrieve

    a = make_pdfs.make_10k(work / "c1.pdf", year=2020, revenue=10100, capex=1300)
    b = make_pdfs.make_10k(work / "c2.pdf", year=2021, revenue=11500, capex=1400)
    c = make_pdfs.make_esg(work / "c3.pdf")
    shutil.copy(c, work / "c3_twin.pdf")
    files = [a, b, c, work / "c3_twin.pdf"]
    qs = [f"What were the purchases of property, plant and equipment in {2020 + i % 2}?" for i in range(20)]
    t = time.perf_counter()
    ok = 0
    with cf.ThreadPoolExecutor(24) as pool:
        futs = [pool.submit(ingest_file, f, store, emb, settings) for f in files] + \
               [pool.submit(retrieve, store, emb, q, settings.retrieval) for q in qs]
        results = []
        for f in futs:
            try:
                results.append(f.result(timeout=900))
                ok += 1
            except Exception as exc:
                results.append(exc)
    twins = [r for r in results[:4] if getattr(r, "file", "").startswith("c3")]
    return {"operations": len(futs), "completed": ok, "seconds": round(time.perf_counter() - t, 1),
            "same_file_twice": sorted(bool(r.already_ingested) for r in twins) == [False, True]}


def attacks(store, emb, settings, work: Path) -> dict:
    """The structured-question path and workspaces, by category: the guard, the database wall on the reader's own
    login (SQL run as if the guard had let it through), workspace spoofing by every role, caps, session state."""
    import make_pdfs
    import psycopg
    from sql_attacks import DB_WALL, GUARD
    from test_sqlguard import ATTACKS

    from rag.ingest.pipeline import ingest_file
    from rag.sqlguard import SqlRejected, _wrap, check, run_readonly
    from rag.store.reader import reader_url

    guard: dict[str, list[int]] = {}
    for cat, sqls in {"regression strings (earlier sessions)": ATTACKS, **GUARD}.items():
        blocked = 0
        for sql in sqls:
            try:
                check(sql)
            except SqlRejected:
                blocked += 1
        guard[cat] = [blocked, len(sqls)]

    with store.transport.connection() as conn:
        conn.execute("truncate documents, store_info, term_stats restart identity cascade")
    for name, pdf in (("a.pdf", make_pdfs.make_10k(work / "ws_a.pdf")), ("b.pdf", make_pdfs.make_esg(work / "ws_b.pdf")),
                      ("s.pdf", make_pdfs.make_paper(work / "ws_s.pdf"))):
        assert ingest_file(pdf, store, emb, settings, display_name=name).ok
    with store.transport.connection() as conn:
        conn.execute("update documents set workspace = 'team-a' where file_name = 'a.pdf'")
        conn.execute("update documents set workspace = 'team-b' where file_name = 'b.pdf'")
        only_a = [r[0] for r in conn.execute("select lexeme from term_stats where workspace = 'team-a' except "
                                             "select lexeme from term_stats where workspace <> 'team-a'")]

    def reader(role: str = "rag_query"):
        return psycopg.connect(reader_url(store.transport.url, role), autocommit=True)

    wall: dict[str, list[int]] = {}
    for cat, sqls in DB_WALL.items():
        refused = 0
        for sql in sqls:
            with reader() as conn:
                try:
                    with conn.transaction():
                        conn.execute(sql)
                except psycopg.Error:
                    refused += 1
        wall[cat] = [refused, len(sqls)]

    # workspace spoofing: each attempt tries to reach team-a's documents, text or vocabulary from outside team-a
    def api(role: str, sql: str, claims: str | None, params=None):
        with store.transport.connection() as conn, conn.transaction():
            if claims:
                conn.execute("select set_config('request.jwt.claims', %s, true)", (claims,))
            conn.execute(f"set local role {role}")
            return conn.execute(sql, params).fetchall()

    b_claim = '{"workspace": "team-b"}'
    probes = [
        ("anon", "select count(*) from list_documents() where file_name = 'a.pdf'", None),
        ("anon", "select count(*) from chunks c join documents d on d.id = c.document_id where d.file_name = 'a.pdf'",
         None),
        ("anon", "select count(*) from term_stats where lexeme = any(%s)", None),
        ("authenticated", "select count(*) from list_documents() where file_name = 'a.pdf'", b_claim),
        ("authenticated", "select count(*) from match_chunks((select embedding from chunks limit 1), 'net sales "
                          "widgets', 50, 50) where file_name = 'a.pdf'", b_claim),
        ("authenticated", "select count(*) from term_stats where lexeme = any(%s)", b_claim),
        ("authenticated", "select count(*) from document_files f join documents d on d.id = f.document_id "
                          "where d.file_name = 'a.pdf'", b_claim),
    ]
    spoof_tried = spoof_held = 0
    for role, sql, claims in probes:
        spoof_tried += 1
        try:
            n = api(role, sql, claims, (only_a,) if "%s" in sql else None)[0][0]
            spoof_held += n == 0
        except psycopg.Error:
            spoof_held += 1
    for role, spoofs in ((role, s) for role in ("anon", "authenticated") for s in (
            """select set_config('request.jwt.claims', '{"workspace": "team-a"}', true)""",
            "select set_config('rag.workspace', 'team-a', true)")):
        spoof_tried += 1
        try:
            api(role, spoofs, b_claim)
        except psycopg.errors.InsufficientPrivilege:
            spoof_held += 1
    team_b = store.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-b"})
    for login in ("rag_query", team_b):
        for setup in ("set rag.workspace = 'team-a'", """set request.jwt.claims = '{"workspace": "team-a"}'""",
                      "set role rag_reader", "select 1"):
            for sql in ("select count(*) from v_documents where file_name = 'a.pdf'",
                        "select count(*) from v_chunks c join v_documents d using (document_id) "
                        "where d.file_name = 'a.pdf'", "select count(*) from documents where file_name = 'a.pdf'"):
                spoof_tried += 1
                with reader(login) as conn:
                    conn.execute(setup)
                    spoof_held += conn.execute(sql).fetchone()[0] == 0

    caps = {}
    with store.transport.connection() as conn:
        conn.execute("update documents set workspace = null")
    caps["rows ≤ 200"] = len(run_readonly(store, "select a.chunk_id from v_chunks a, v_chunks b, v_chunks c")) <= 200
    try:
        run_readonly(store, "select a.heading, b.chunk_id from v_chunks a, v_chunks b", max_bytes=2000)
        caps["bytes ≤ cap (refused past it)"] = False
    except SqlRejected as exc:
        caps["bytes ≤ cap (refused past it)"] = "larger than" in str(exc)
    with store.reader().connection() as conn:
        row = conn.execute(_wrap("select repeat('x', 50000000) as big", 200, 1_000_000)).fetchone()
        caps["a 50 MB value never leaves the server"] = row[0] is None
        try:
            with conn.transaction():
                conn.execute("select count(*) from (select g from generate_series(1, 3000000) g order by g desc) s")
            caps["temp_file_limit"] = False
        except psycopg.errors.ConfigurationLimitExceeded:
            caps["temp_file_limit"] = True
    t = time.perf_counter()
    try:
        run_readonly(store, "select count(*) from v_chunks a, v_chunks b, v_chunks c, v_chunks d, v_chunks e, "
                            "v_chunks f, v_chunks g", timeout_ms=500)
        caps["statement timeout"] = False
    except SqlRejected:
        caps["statement timeout"] = time.perf_counter() - t < 3
    state = {}
    pool = store.reader()
    for _ in range(3):
        with pool.connection() as conn:
            conn.execute("set statement_timeout = 1")
            conn.execute("set work_mem = '1GB'")
            try:
                conn.execute("select pg_advisory_lock(7212001)")
                state["session advisory lock refused"] = False
            except psycopg.errors.InsufficientPrivilege:
                state["session advisory lock refused"] = True
    with pool.connection() as conn:
        state["settings reset before reuse"] = conn.execute("show work_mem").fetchone()[0] == "4MB"
    state["next question runs"] = bool(run_readonly(store, "select count(*) as n from v_documents"))
    return {"guard": guard, "db_wall": wall, "spoofing": {"tried": spoof_tried, "held": spoof_held},
            "caps": caps, "state": state}


# The child's own peak (VmHWM, in kB): getrusage's ru_maxrss would start from this process's peak, which a child
# inherits across fork and exec on Linux.
_HWM = ("print('RSS', next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')))")


def huge_page_memory(work: Path) -> dict:
    """Peak memory of `rag ingest` on a 16 KB PDF whose one 6000-pt page holds a stretched image (OCR renders it),
    against a normal small filing in the same run."""
    import make_pdfs
    import pymupdf

    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    doc = pymupdf.open()
    page = doc.new_page(width=6000, height=6000)
    page.insert_image(page.rect, stream=pix.tobytes("png"))
    doc.save(work / "poster.pdf")
    out = {}
    unbounded = "import rag.ingest.pdf as p; p.MAX_RENDER_PIXELS = 10 ** 12; p.MAX_RENDER_SIDE = 10 ** 6; "
    # the whole `rag ingest`: the ingesting process only (the reader is its child, killed past
    # RAG_INGEST__MAX_PARSE_MB; the unbounded render can only be measured in one process, below)
    for name, path, pre in (("rag ingest of a normal 10-K, the ingesting process", make_pdfs.make_10k(work / "normal.pdf"), ""),
                            ("rag ingest of the 6000-pt page, the ingesting process", work / "poster.pdf", "")):
        code = (pre + "import sys; from rag.cli import main; rc = main(['ingest', sys.argv[1]]); " + _HWM)
        r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT,
                           env=dict(os.environ, RAG_DATA_DIR=str(work / f"mem-store-{len(out)}")), timeout=900)
        rss = [int(line.split()[1]) for line in r.stdout.splitlines() if line.startswith("RSS")]
        out[name] = {"peak_rss_mb": round(rss[0] / 1024) if rss else None, "size_kb": round(path.stat().st_size / 1024),
                     "traceback": "Traceback" in r.stderr}
    # the OCR of that page alone (what ingestion does for a page without text), in a fresh process each
    page_code = ("import sys, pymupdf; from rag.ingest.pipeline import _ocr_page; "
                 "doc = pymupdf.open(sys.argv[1]); _ocr_page(doc[0], 'rapidocr'); " + _HWM)
    letter = pymupdf.open()
    letter.new_page().insert_image(pymupdf.Rect(0, 0, 612, 792), stream=pix.tobytes("png"))
    letter.save(work / "letter.pdf")
    for name, path, pre in (("OCR of a letter-size image page", work / "letter.pdf", ""),
                            ("OCR of the 6000-pt page, bounded", work / "poster.pdf", ""),
                            ("OCR of the 6000-pt page, unbounded (the old path)", work / "poster.pdf", unbounded)):
        r = subprocess.run([sys.executable, "-c", pre + page_code, str(path)], capture_output=True, text=True,
                           cwd=ROOT, timeout=600)
        rss = [int(line.split()[1]) for line in r.stdout.splitlines() if line.startswith("RSS")]
        out[name] = {"peak_rss_mb": round(rss[0] / 1024) if rss else None, "size_kb": round(path.stat().st_size / 1024),
                     "traceback": "Traceback" in r.stderr}
    return out


def issue34(store, emb, settings, work: Path) -> dict[str, list]:
    """Each family of issue 34, as [held, tried, detail]: growth refused by the guard, the largest allowed question
    of each growth family bounded (256 MB, twice the timeout), PDF bombs stopped in the child, the reader login
    (TEMP, notifications, settings), estimates across workspaces, statistics views, store-wide state, secrets in
    messages, document markup on pages, file names, slow API clients."""
    import socket
    import threading

    import make_pdfs
    import psycopg
    from sql_attacks import GROWTH, GROWTH_EDGES, run_measured

    from rag.answer.markup import neutral
    from rag.errors import redact
    from rag.filenames import clean_file_name
    from rag.ingest.pipeline import ingest_file
    from rag.sqlguard import SqlRejected, check
    from rag.store.reader import ReaderPool, reader_url

    out: dict[str, list] = {}
    for fam, sqls in GROWTH.items():
        held = 0
        for sql in sqls:
            try:
                check(sql)
            except SqlRejected:
                held += 1
        out[f"growth refused: {fam}"] = [held, len(sqls), ""]
    with store.transport.connection() as conn:
        conn.execute("truncate documents, store_info, term_stats restart identity cascade")
    for name, pdf in (("a.pdf", make_pdfs.make_10k(work / "g_a.pdf")), ("b.pdf", make_pdfs.make_esg(work / "g_b.pdf")),
                      ("s.pdf", make_pdfs.make_paper(work / "g_s.pdf"))):
        assert ingest_file(pdf, store, emb, settings, display_name=name).ok
    timeout_ms = settings.sql.timeout_ms
    for fam, sql in GROWTH_EDGES.items():
        m = run_measured(store, sql, timeout_ms)
        ok = m["peak_mb"] < 256 and m["seconds"] < 2 * timeout_ms / 1000
        out[f"largest allowed, bounded: {fam}"] = [int(ok), 1, f"{m['peak_mb']} MB, {m['seconds']} s, {m['outcome']}"]

    s = settings.model_copy(deep=True)
    s.ingest.max_parse_mb = 400
    for depth in (16, 22, 30):
        bomb = make_pdfs.make_xobject_bomb(work / f"bomb{depth}.pdf", depth)
        t = time.perf_counter()
        r = ingest_file(bomb, store, emb, s)
        ok = not r.ok and "MAX_PARSE_MB" in (r.error or "") and "\n" not in r.error
        out[f"PDF bomb, Form XObjects {depth} deep ({bomb.stat().st_size // 1024} KB), limit 400 MB"] = \
            [int(ok), 1, f"{time.perf_counter() - t:.1f} s: {r.error}"]
    s = settings.model_copy(deep=True)
    s.ingest.max_seconds, s.ingest.max_parse_mb = 3, 100_000
    t = time.perf_counter()
    r = ingest_file(make_pdfs.make_xobject_bomb(work / "slow.pdf", 24), store, emb, s)
    out["PDF bomb against the time limit (3 s), one call into MuPDF"] = [
        int(not r.ok and "MAX_SECONDS" in (r.error or "")), 1, f"{time.perf_counter() - t:.1f} s: {r.error}"]
    r = ingest_file(make_pdfs.make_10k(work / "after.pdf", year=2019), store, emb, settings)
    out["a normal filing ingests after the bombs"] = [int(r.ok), 1, f"{r.chunks} chunks"]

    team_b = store.admin_rpc("ensure_workspace_reader", {"p_workspace": "team-b"})
    held = 0
    with psycopg.connect(reader_url(store.transport.url, team_b), autocommit=True) as conn:
        conn.execute("set default_transaction_read_only = off")
        for sql in ("create temp table t as select 1", "select * from pg_stats",
                    "select n_tup_ins from pg_stat_user_tables", "select pg_stat_get_live_tuples('chunks'::regclass)",
                    "update store_info set value = 'x'"):
            try:
                conn.execute(sql)
            except psycopg.errors.InsufficientPrivilege:
                held += 1
    with store.transport.connection() as conn:
        conn.execute("listen procrastinate_any_queue_v1")
        conn.commit()
        conn.execute("insert into procrastinate_jobs (queue_name, task_name, args) values ('ingest', 't', '{}')")
        conn.commit()
        held += not list(conn.notifies(timeout=1.0, stop_after=1))
        conn.execute("delete from procrastinate_jobs where task_name = 't'")
        conn.execute("unlisten *")
    with store.reader().connection() as conn:
        conn.execute("set work_mem = '1GB'")
        try:
            ReaderPool._check_settings(conn)
        except Exception:
            held += 1
    out["reader login: no temp table, no statistics views or counters, no store-wide write, no notification, "
        "settings re-checked"] = [held, 7, ""]

    with store.transport.connection() as conn:
        conn.execute("update documents set workspace = 'team-a' where file_name = 'a.pdf'")
        a_id = conn.execute("select id from documents where file_name = 'a.pdf'").fetchone()[0]
        cols = [r[0] for r in conn.execute("select column_name from information_schema.columns where table_name = "
                                           "'chunks' and column_name not in ('id', 'chunk_index') and "
                                           "is_generated = 'NEVER' order by ordinal_position")]
        conn.execute(f"insert into chunks (chunk_index, {', '.join(cols)}) select c.chunk_index + 1000 * g, "
                     f"{', '.join('c.' + x for x in cols)} from chunks c, generate_series(1, 60) g "
                     "where c.document_id = %s", (a_id,))
        conn.execute("analyze documents, chunks, figures")
        heading = conn.execute("select heading from chunks where document_id = %s and heading <> '' group by 1 "
                               "order by count(*) desc limit 1", (a_id,)).fetchone()[0]
    same = 0
    with psycopg.connect(reader_url(store.transport.url, team_b), autocommit=True) as conn:
        for op in ("=", "<", ">="):
            est = [conn.execute(f"explain (format json) select 1 from v_chunks where heading {op} %s",
                                (v,)).fetchone()[0][0]["Plan"]["Plan Rows"] for v in (heading, "zq nowhere")]
            same += est[0] == est[1]
    out["another workspace's heading: estimate as for one that exists nowhere (=, <, >=)"] = [same, 3, ""]

    urls = ["http://user:S3CRETpw@llm.example/v1", "https://tok3nS3CRET@h/v1", "http://u:p%40S3CRET@[::1]:8080/v1",
            "https://h/v1?api_key=S3CRET&x=1", "postgresql://app:S3CRET@db/rag", "Authorization: Bearer S3CRETtoken",
            "key sk-S3CRETabcdefghijklmnop", "http://h/v1#token=S3CRET"]
    out["secrets removed from messages (URL shapes, keys, tokens)"] = [
        sum("S3CRET" not in redact(f"cannot reach {u}: connection refused") for u in urls), len(urls), ""]
    marks = ["![x](http://evil.example/t.png)", "[click](http://evil.example)", "<img src=http://evil.example/x.png>",
             "<a href='http://evil.example'>x</a>", "http://evil.example/bare", ":red[alarm]", ":material/home:",
             "$x^2$"]
    live = ("![", "](http", "<img", "<a ", "http://evil", ":red[", ":material/")
    out["document markup neutralised for pages"] = [sum(not any(m in neutral(x) for m in live) for x in marks),
                                                    len(marks), ""]
    names = ["a\x1b[31mred\x07.pdf", "x\r\nerror other.pdf", "r\u202eftp.pdf", "../../etc/passwd.pdf", "\x00\x01"]
    out["file names cleaned (controls, bidi, paths)"] = [
        sum(not any(c < " " or c in "\u202e/" for c in clean_file_name(n)) for n in names), len(names), ""]

    # the API: slow clients against a real server with 1 s / 2 s deadlines
    def _free_port() -> int:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]

    port = _free_port()
    env = dict(os.environ, RAG_API_KEY="bench-key-0123456789", RAG_API__HEADER_TIMEOUT_S="1",
               RAG_API__BODY_TIMEOUT_S="2", RAG_DATA_DIR=str(settings.db.data_dir))
    proc = subprocess.Popen([sys.executable, "-m", "rag", "serve", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.5)
        time.sleep(1.5)
        closed: list[float | None] = []

        def slow(first: bytes) -> None:
            t0 = time.monotonic()
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.settimeout(10)
                sock.sendall(first)
                try:
                    while sock.recv(4096):
                        pass
                    closed.append(time.monotonic() - t0)
                except OSError:
                    closed.append(None)

        half = b"POST /api/answer HTTP/1.1\r\nHost: x\r\nAuthoriz"
        body = (b"POST /api/search HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bench-key-0123456789\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
        threads = [threading.Thread(target=slow, args=(half,)) for _ in range(50)] + \
                  [threading.Thread(target=slow, args=(body,)) for _ in range(20)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        cut = [c for c in closed if c is not None and c < 6]
        out["API: slow clients cut off (50 half headers, 20 slow bodies; 1 s / 2 s deadlines)"] = [
            len(cut), len(threads), f"closed after at most {max(cut, default=0):.1f} s"]
    finally:
        proc.terminate()
        proc.wait(30)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--with-huge", action="store_true", help="also the 400- and 619-page files of corpus/bad")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "safety.json"))
    a = ap.parse_args()
    os.environ.setdefault("XDG_RUNTIME_DIR", "/tmp")
    from rag.config import Settings
    from rag.embed import Embedder
    from rag.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        s = Settings()
        s.db.data_dir = work / "store"
        store = open_store(s)
        emb = Embedder(s.embedding)
        emb.load()
        out = {"bad_inputs": bad_inputs(store, emb, s, work, a.with_huge)}
        with store.transport.connection() as conn:
            conn.execute("truncate documents, store_info, term_stats restart identity cascade")
        out["concurrency"] = concurrency(store, emb, s, work)
        out["attacks"] = attacks(store, emb, s, work)
        out["huge_page"] = huge_page_memory(work)
        out["issue34"] = issue34(store, emb, s, work)
        out["kills"] = kills(work, a.kills)
        store.close()
    att = out["attacks"]
    rows = [("bad inputs handled cleanly", out["bad_inputs"]["handled_cleanly"], out["bad_inputs"]["tried"]),
            ("kills survived, nothing lost", out["kills"]["survived"], out["kills"]["kills"]),
            ("concurrent operations completed", out["concurrency"]["completed"], out["concurrency"]["operations"])]
    rows += [(f"guard: {cat}", ok, n) for cat, (ok, n) in att["guard"].items()]
    rows += [(f"reader login refuses: {cat}", ok, n) for cat, (ok, n) in att["db_wall"].items()]
    rows += [("workspace spoofing attempts held (anon, authenticated, readers)", att["spoofing"]["held"],
              att["spoofing"]["tried"]),
             ("caps held (rows, bytes, 50 MB value, temp files, timeout)", sum(att["caps"].values()), len(att["caps"])),
             ("nothing outlives a question (lock, settings, next question)", sum(att["state"].values()),
              len(att["state"]))]
    rows += [(name, held, n) for name, (held, n, _) in out["issue34"].items()]
    print(f"{'check':66} {'ok':>5} {'of':>5}")
    for name, ok, n in rows:
        print(f"{name:66} {ok:>5} {n:>5}")
    for name, (_, _, detail) in out["issue34"].items():
        if detail:
            print(f"  {name[:60]:60} {detail[:110]}")
    for name, m in out["huge_page"].items():
        print(f"peak RSS, {name} ({m['size_kb']} KB file): {m['peak_rss_mb']} MB"
              + (" — TRACEBACK" if m["traceback"] else ""))
    print(f"same file uploaded twice at once → one document: {out['concurrency']['same_file_twice']}; "
          f"ingests cleanly after the kills: {out['kills']['ingests_cleanly_after']}")
    for f in out["bad_inputs"]["files"]:
        print(f"  {f['file'][:44]:44} {'ok ' if f['handled_cleanly'] else 'BAD'} {f['outcome'][:70]}")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1))
    print(f"wrote {a.out}")
    return 0 if all(ok == n for _, ok, n in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
