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


def attacks(store) -> dict:
    import psycopg
    from test_sqlguard import ATTACKS

    from rag.sqlguard import SqlRejected, check

    guard = 0
    for sql in ATTACKS:
        try:
            check(sql)
        except SqlRejected:
            guard += 1
    writes = ["insert into documents (file_name, sha256, page_count, embedding_model) values ('x','x',1,'m')",
              "delete from chunks", "update documents set title = 'x'", "select delete_document(1)",
              "select ingest_document('{}'::jsonb, '[]'::jsonb, '[]'::jsonb)", "select * from feedback",
              "select pg_read_file('/etc/hostname')", "drop table documents"]
    roles = 0
    tried = 0
    for role in ("anon", "authenticated", "rag_reader"):
        for sql in writes:
            tried += 1
            with store.transport.connection() as conn:
                try:
                    with conn.transaction():
                        conn.execute(f"set local role {role}")
                        conn.execute(sql)
                except psycopg.Error:
                    roles += 1
    return {"sql_guard": {"tried": len(ATTACKS), "blocked": guard},
            "role_writes": {"tried": tried, "blocked": roles}}


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
        out["attacks"] = attacks(store)
        out["kills"] = kills(work, a.kills)
    rows = [("bad inputs handled cleanly", out["bad_inputs"]["handled_cleanly"], out["bad_inputs"]["tried"]),
            ("kills survived, nothing lost", out["kills"]["survived"], out["kills"]["kills"]),
            ("concurrent operations completed", out["concurrency"]["completed"], out["concurrency"]["operations"]),
            ("SQL guard attacks blocked", out["attacks"]["sql_guard"]["blocked"], out["attacks"]["sql_guard"]["tried"]),
            ("writes as anon/authenticated/rag_reader blocked", out["attacks"]["role_writes"]["blocked"],
             out["attacks"]["role_writes"]["tried"])]
    print(f"{'check':50} {'ok':>5} {'of':>5}")
    for name, ok, n in rows:
        print(f"{name:50} {ok:>5} {n:>5}")
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
