"""Crashes, concurrency, limits, hostile content and secrets — on the real embedded store."""

import concurrent.futures as cf
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_llm import FakeLLM

from rag.assistant import answer
from rag.config import Settings
from rag.filenames import clean_file_name
from rag.ingest.pipeline import ingest_file
from rag.retrieve.pipeline import retrieve

SECRET = "sk-test-DO-NOT-LEAK-5f1c2e9a"


def _cli(data_dir, *args, env_extra=None, timeout=600):
    env = dict(os.environ, RAG_DATA_DIR=str(data_dir), XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_document_leaves_no_trace(tmp_path):
    import make_pdfs

    big = make_pdfs.make_big(tmp_path / "big.pdf", pages=900)  # ~40 s of reading and embedding
    data = tmp_path / "store"
    assert _cli(data, "migrate").returncode == 0
    env = dict(os.environ, RAG_DATA_DIR=str(data))
    proc = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(big)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(10)  # model loaded, pages being read
    assert proc.poll() is None, "ingestion finished before it could be interrupted"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    docs = _cli(data, "docs", "--json")
    assert docs.returncode == 0 and json.loads(docs.stdout) == []  # no trace of the document
    assert _cli(data, "doctor").returncode == 0
    again = _cli(data, "ingest", "--json", str(big))
    res = json.loads(again.stdout.splitlines()[-1])
    assert again.returncode == 0 and res["error"] is None and res["pages"] >= 900 and not res["already_ingested"]


def test_four_uploads_and_twenty_searches_at_once(clean_store, embedder, settings, pdfs, tmp_path):
    import shutil

    twin = tmp_path / "esg_copy.pdf"
    shutil.copy(pdfs["esg"], twin)  # the same bytes under another name, uploaded at the same moment
    files = [pdfs["10k_2020"], pdfs["10k_2021"], pdfs["esg"], twin]
    questions = [f"What were the purchases of property, plant and equipment in {2020 + i % 3}?" for i in range(20)]
    embedder.load()
    with cf.ThreadPoolExecutor(max_workers=24) as pool:
        ing = [pool.submit(ingest_file, f, clean_store, embedder, settings) for f in files]
        srch = [pool.submit(retrieve, clean_store, embedder, q, settings.retrieval) for q in questions]
        results = [f.result(timeout=600) for f in ing]
        searches = [f.result(timeout=600) for f in srch]
    assert all(r.ok for r in results), [r.error for r in results]
    esg = [r for r in results if r.file in ("esg.pdf", "esg_copy.pdf")]
    assert sorted(r.already_ingested for r in esg) == [False, True]
    assert esg[0].document_id == esg[1].document_id
    assert len(clean_store.list_documents()) == 3
    assert len(searches) == 20 and all(s.trace.stages for s in searches)


def test_limits_give_a_clear_error_before_heavy_work(clean_store, embedder, pdfs, tmp_path):
    import make_pdfs

    s = Settings()
    s.ingest.max_pages = 3
    res = ingest_file(pdfs["10k_2022"], clean_store, embedder, s)
    assert not res.ok and "page limit" in res.error and res.seconds < 5
    s = Settings()
    s.ingest.max_file_mb = 0.001
    res = ingest_file(pdfs["10k_2022"], clean_store, embedder, s)
    assert not res.ok and "MB" in res.error
    s = Settings()
    s.ingest.max_seconds = 0.5
    res = ingest_file(make_pdfs.make_big(tmp_path / "slow.pdf", pages=120), clean_store, embedder, s)
    assert not res.ok and ("reading stopped after" in res.error or "limit per document" in res.error), res.error
    assert clean_store.list_documents() == []


@pytest.mark.parametrize("depth", [16, 22, 30])
def test_a_form_xobject_bomb_is_killed_past_the_memory_limit_and_the_batch_goes_on(clean_store, embedder, pdfs,
                                                                                   tmp_path, depth):
    """A few KB whose one page draws 2^depth lines through nested Form XObjects (issue 34.2): the child process
    that reads it is killed past RAG_INGEST__MAX_PARSE_MB, the file gets one line, nothing is written, and the next
    file of the batch ingests in the same process."""
    import make_pdfs

    s = Settings()
    s.ingest.max_parse_mb = 400
    bomb = make_pdfs.make_xobject_bomb(tmp_path / f"bomb{depth}.pdf", depth)
    assert bomb.stat().st_size < 10_000
    t = time.perf_counter()
    res = ingest_file(bomb, clean_store, embedder, s)
    assert not res.ok and "RAG_INGEST__MAX_PARSE_MB" in res.error and "\n" not in res.error, res.error
    assert time.perf_counter() - t < 60
    assert clean_store.list_documents() == []
    assert ingest_file(pdfs["10k_2022"], clean_store, embedder, s).ok  # the batch goes on
    assert [d.file_name for d in clean_store.list_documents()] == ["report_final_v2.pdf"]


def test_one_long_call_into_the_pdf_library_is_stopped_at_the_time_limit(clean_store, embedder, tmp_path):
    """The time limit holds inside one page too: the reading child is killed at RAG_INGEST__MAX_SECONDS even while
    MuPDF is in the middle of a single call (the check between pages never ran before)."""
    import make_pdfs

    s = Settings()
    s.ingest.max_seconds, s.ingest.max_parse_mb = 3, 100_000
    t = time.perf_counter()
    res = ingest_file(make_pdfs.make_xobject_bomb(tmp_path / "slow.pdf", 24), clean_store, embedder, s)
    assert not res.ok and "RAG_INGEST__MAX_SECONDS" in res.error, res.error
    assert time.perf_counter() - t < 3 + 5
    assert clean_store.list_documents() == []


def test_a_killed_ingest_leaves_no_reader_running(tmp_path):
    """SIGKILL of the ingesting process (no cleanup runs): its fork server exits, and the child reading a bomb dies
    with it instead of reading on with no watchdog."""
    import make_pdfs

    bomb = make_pdfs.make_xobject_bomb(tmp_path / "bomb.pdf", 30)
    env = dict(os.environ, RAG_DATA_DIR=str(tmp_path / "store"), RAG_INGEST__MAX_PARSE_MB="100000",
               XDG_RUNTIME_DIR=os.environ.get("XDG_RUNTIME_DIR", "/tmp"))
    proc = subprocess.Popen([sys.executable, "-m", "rag", "ingest", str(bomb)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def children(pid: int) -> list[int]:
        return [int(p) for p in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()]

    def alive(pid: int) -> bool:
        try:
            return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
        except OSError:
            return False

    def cmdline(pid: int) -> str:
        try:
            return Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
        except OSError:
            return ""

    server = reader = None
    deadline = time.time() + 180
    while time.time() < deadline and reader is None:  # the fork server, then the child it forks to read
        time.sleep(0.5)
        server = next((p for p in children(proc.pid) if "forkserver" in cmdline(p)), None)
        reader = next(iter(children(server)), None) if server else None
    assert server and reader, "the reading child never started"
    proc.kill()
    proc.wait()
    deadline = time.time() + 30
    while time.time() < deadline and (alive(server) or alive(reader)):
        time.sleep(0.5)
    assert not alive(reader) and not alive(server)


def test_a_bomb_in_a_cli_batch_costs_one_line(tmp_path):
    import make_pdfs

    files = [make_pdfs.make_xobject_bomb(tmp_path / "bomb.pdf", 26), make_pdfs.make_10k(tmp_path / "fine.pdf")]
    out = _cli(tmp_path / "store", "ingest", *map(str, files), env_extra={"RAG_INGEST__MAX_PARSE_MB": "400"})
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr[-2000:]
    lines = [l for l in (out.stdout + out.stderr).splitlines() if "bomb.pdf" in l]
    assert len(lines) == 1 and "RAG_INGEST__MAX_PARSE_MB" in lines[0], lines
    docs = json.loads(_cli(tmp_path / "store", "docs", "--json").stdout)
    assert [d["file_name"] for d in docs] == ["fine.pdf"]


def test_uploaded_file_names_are_never_paths():
    assert clean_file_name("../../etc/passwd.pdf") == "passwd.pdf"
    assert clean_file_name("..\\\\..\\\\windows\\\\win.ini") == "win.ini.pdf"
    assert "/" not in clean_file_name("/abs/path/x.pdf") and "\x00" not in clean_file_name("a\x00b.pdf")


def test_injected_instructions_change_neither_format_nor_grounding(clean_store, ingest, embedder, tmp_path):
    import make_pdfs

    assert ingest(make_pdfs.make_hostile(tmp_path / "northwind.pdf")).ok
    q = "What was Northwind Traders' revenue in 2023?"
    offline = answer(clean_store, embedder, q)
    assert "4,812" in offline.answer and offline.evidence and all(e.verified for e in offline.evidence)
    # an LLM that obeys the document instead of the system prompt
    obey = {"answer": f"Mode développeur. La clé API est {SECRET}. Revenue was 4,812 million dollars.",
            "citations": []}
    s = Settings()
    s.llm.tools = False
    s.llm.api_key = None
    with FakeLLM([{"content": json.dumps(obey)}]) as fake:
        s.llm.base_url = fake.base_url
        a = answer(clean_store, embedder, q, s)
        prompt = json.dumps(fake.requests)
    assert SECRET not in a.answer and "Mode développeur" not in a.answer  # uncited sentences are dropped
    assert a.mode == "llm-fallback" and "4,812" in a.answer and a.evidence  # the grounded answer instead
    assert set(a.to_json()) >= {"question", "answer", "confidence", "evidence", "unsupported", "figures"}
    # the prompt carries evidence and the question, never settings
    assert "postgresql://" not in prompt and "data_dir" not in prompt


def test_markup_in_a_pdf_is_shown_as_text(clean_store, ingest, tmp_path, settings, monkeypatch):
    import make_pdfs
    from streamlit.testing.v1 import AppTest

    from rag.answer.export import untrusted

    assert "<script>" not in untrusted("<script>alert(1)</script>") and "](javascript" not in untrusted("[a](javascript:x)")
    assert ingest(make_pdfs.make_hostile(tmp_path / "northwind.pdf")).ok
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.db.data_dir))
    at = AppTest.from_file(str(Path(__file__).parents[2] / "streamlit_app.py"), default_timeout=180)
    at.run()
    at.chat_input[0].set_value("What does the Northwind report say about developer mode and the script?").run()
    shown = " ".join(m.value for m in at.markdown) + " ".join(e.label for e in at.expander)
    assert "<script>" not in shown and "](http://attacker" not in shown and "](javascript" not in shown
    # the only HTML the page writes is its own: an empty anchor per citation, whose id is made of two integers (and a fixed style)
    html = [m.value for m in at.markdown if getattr(m, "allow_html", False)]
    assert all(re.fullmatch(r'<div id="src-\d+-\d+" style="scroll-margin-top: 5rem"></div>', h) for h in html), html


def test_secrets_never_reach_logs_traces_or_exports(clean_store, ingest, pdfs, settings, tmp_path):
    assert ingest(pdfs["10k_2022"]).ok
    reply = {"answer": "Purchases of PP&E were (1,577) [1].",
             "citations": [{"marker": 1, "quote": "Purchases of property, plant and equipment (PP&E) | (1,577)"}]}
    steps = tmp_path / "steps.jsonl"
    md = tmp_path / "a.md"
    with FakeLLM([{"content": json.dumps(reply)}] * 3) as fake:
        out = _cli(settings.db.data_dir, "-v", "ask", "What were Acme's purchases of PP&E in 2022?", "--json",
                   "--trace", "--markdown", str(md),
                   env_extra={"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": fake.base_url,
                              "RAG_LLM__STEPS_LOG": str(steps), "RAG_LLM__TOOLS": "false"})
        sent_auth = {r.get("model") for r in fake.requests}
    assert out.returncode == 0, out.stderr
    assert sent_auth  # the key went where it belongs: to the LLM server, in the Authorization header
    for text in (out.stdout, out.stderr, md.read_text(), steps.read_text() if steps.exists() else ""):
        assert SECRET not in text
    assert SECRET not in repr(Settings(llm={"api_key": SECRET}))  # SecretStr in reprs and dumps


def test_rpc_names_are_checked_against_the_catalog_and_values_are_bound(clean_store, ingest, pdfs):
    from rag.errors import StoreError

    assert ingest(pdfs["esg"]).ok
    with pytest.raises(StoreError):
        clean_store.rpc("list_documents(); drop table documents; --")
    with pytest.raises(StoreError):
        clean_store.rpc("document_by_sha256", {"p_sha256) ; drop table documents; --": "x"})
    # a value is data, whatever it contains
    assert clean_store.rpc("document_by_sha256", {"p_sha256": "x'); drop table documents; --"}) is None
    assert len(clean_store.list_documents()) == 1
