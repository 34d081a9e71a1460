"""python -m rag as a user runs it, against its own embedded store (--data-dir)."""

import json
import subprocess
import sys

import pytest


def run(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "rag", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def cli_store(tmp_path_factory, pdfs):
    d = tmp_path_factory.mktemp("cli-store")
    out = run("--data-dir", str(d), "ingest", str(pdfs["paper"]), str(pdfs["esg"]))
    assert out.returncode == 0, out.stdout + out.stderr
    return d


def test_ingest_reports_counts_and_duplicates(cli_store, pdfs):
    out = run("--data-dir", str(cli_store), "ingest", str(pdfs["esg"]))
    assert out.returncode == 0 and "already ingested" in out.stdout


def test_search_json_contract(cli_store):
    out = run("--data-dir", str(cli_store), "search", "Scope 1 emissions in 2023", "-k", "3", "--json")
    assert out.returncode == 0, out.stderr
    j = json.loads(out.stdout)
    assert set(j) >= {"query", "results", "figures", "timings_ms"}  # the contract; later keys only add
    assert j["refused"] is False
    r = next(r for r in j["results"] if "Scope 1 emissions fell" in r["text"])
    assert r["document"] == "esg.pdf" and 2 in r["pages"] and r["page"] == r["pages"][0]
    assert {"cosine", "text_rank", "fused"} <= set(r["scores"]) and "total" in j["timings_ms"]
    for f in j["figures"]:
        assert set(f) >= {"figure_id", "document", "page", "caption", "score", "chunk_id"}


def test_questions_file_one_json_per_line(cli_store, tmp_path):
    qf = tmp_path / "q.txt"
    qf.write_text("What does Figure 1 show?\nHow many employees?\n\n")
    out = run("--data-dir", str(cli_store), "search", "--questions-file", str(qf), "-k", "2")
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    assert [l["query"] for l in lines] == ["What does Figure 1 show?", "How many employees?"]


def test_ask_json_contract_and_markdown_export(cli_store, tmp_path):
    md = tmp_path / "answer.md"
    out = run("--data-dir", str(cli_store), "ask", "What were Greenfield AG's Scope 1 emissions in 2023?", "--json",
              "--markdown", str(md))
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout.splitlines()[-1])
    assert {"question", "answer", "confidence", "evidence", "unsupported", "figures", "timings_ms"} <= set(obj)
    assert obj["evidence"] and {"marker", "document", "pages", "chunk_id", "quote", "verified"} <= set(obj["evidence"][0])
    assert obj["evidence"][0]["document"].startswith("Greenfield")
    assert md.read_text().startswith("# What were Greenfield")


def test_ask_sql_and_a_refused_statement(cli_store):
    out = run("--data-dir", str(cli_store), "ask", "--sql", "select doc_type, count(*) n from v_documents group by 1",
              "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["rows"]
    out = run("--data-dir", str(cli_store), "ask", "--sql", "delete from documents", "--json")
    obj = json.loads(out.stdout)
    assert obj["confidence"] == "insufficient_data" and "only SELECT" in obj["answer"]


def test_figures_read_again_from_the_stored_pdfs(cli_store):
    """Kinds and crops of stored figures, again: counts per document, and a bare 'figures' says what to add."""
    out = run("--data-dir", str(cli_store), "figures", "--reclassify", "--recrop")
    assert out.returncode == 0, out.stderr
    assert "read the kind of" in out.stdout and "cropped" in out.stdout and "figures in 2 documents" in out.stdout
    bare = run("--data-dir", str(cli_store), "figures")
    assert bare.returncode == 2 and "--recrop" in bare.stderr and "Traceback" not in bare.stderr
    j = json.loads(run("--data-dir", str(cli_store), "search", "emissions chart", "--json").stdout)
    assert all({"kind", "chart_type"} <= set(f) for f in j["figures"])


def test_figures_found_again_replace_a_documents_figures_and_keep_the_rest(cli_store):
    """figures --reread: each document's figures found, read and written again in one transaction a document;
    its id, chunks and the rest stay (the figures of the store afterwards are what ingestion finds now)."""
    before = {d["document_id"]: d for d in json.loads(run("--data-dir", str(cli_store), "docs", "--json").stdout)}
    out = run("--data-dir", str(cli_store), "figures", "--reread")
    assert out.returncode == 0, out.stderr
    assert "figures of 2 documents again" in out.stdout
    after = {d["document_id"]: d for d in json.loads(run("--data-dir", str(cli_store), "docs", "--json").stdout)}
    assert set(after) == set(before)
    assert all(after[i]["chunks"] == before[i]["chunks"] for i in before)
    n = int(out.stdout.split("read ")[1].split(" figures")[0])
    assert n == sum(d["figures"] for d in after.values())


def test_docs_doctor_delete(cli_store, tmp_path):
    docs = json.loads(run("--data-dir", str(cli_store), "docs", "--json").stdout)
    assert {d["file_name"] for d in docs} == {"paper.pdf", "esg.pdf"}
    assert all(d["chunks"] > 0 for d in docs)
    table = run("--data-dir", str(cli_store), "docs").stdout.splitlines()  # periods printed as everywhere else
    assert "period" in table[0].split()
    assert run("--data-dir", str(cli_store), "doctor").returncode == 0
    other = run("--data-dir", str(tmp_path / "empty"), "docs")
    assert "no documents" in other.stdout  # a second store coexists
    esg = next(d for d in docs if d["file_name"] == "esg.pdf")
    assert run("--data-dir", str(cli_store), "delete", str(esg["document_id"])).returncode == 0
    assert run("--data-dir", str(cli_store), "delete", "999999").returncode == 1


def test_doctor_fails_on_a_broken_store(cli_store):
    import pgserver
    import psycopg

    uri = pgserver.get_server(str(cli_store)).get_uri()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("update chunks set embedding = null where id = (select min(id) from chunks)")
    out = run("--data-dir", str(cli_store), "doctor")
    assert out.returncode == 1 and "FAIL chunks without embeddings" in out.stdout


def test_unknown_file_is_one_line_error(cli_store):
    out = run("--data-dir", str(cli_store), "ingest", "/nonexistent/file.pdf")
    assert out.returncode == 1 and "ERROR file.pdf: no such file" in out.stdout

