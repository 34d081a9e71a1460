"""The migration runner (rag/store/migrations.py) on real Postgres: a blank database, a re-run, a changed function
file, the squash of the 89 migrations before issue 37 (the same catalog as they built, by a schema-only dump diff)
and a store those migrations built, upgraded in place."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import psycopg
import pytest

from rag.store import migrations

ROOT = Path(__file__).resolve().parents[2]
# the last commit whose sql/ held the chain 001_extensions.sql … 090_clean_stored_text.sql
SQUASH_BASE = "2d958d9a94175eb75ab7ac14e8461bbbe5be2900"


def _blank(store, name: str) -> str:
    """A blank database beside the session's (dropping the session store's schema would leave its other pooled
    connections with pgvector's cached type of the dropped extension: "cache lookup failed for type")."""
    with store.transport.connection() as conn:
        conn.execute(f"drop database if exists {name}")
        conn.execute(f"create database {name}")
    return psycopg.conninfo.make_conninfo(store.transport.url, dbname=name)


def _old_chain() -> list[tuple[str, str]]:
    """The migrations before the squash, from git (history belongs there): (name, text) in order."""
    try:
        names = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", SQUASH_BASE, "sql/"],
                               capture_output=True, text=True, check=True).stdout.split()
        chain = [(Path(n).name, subprocess.run(["git", "-C", str(ROOT), "show", f"{SQUASH_BASE}:{n}"],
                                               capture_output=True, text=True, check=True).stdout)
                 for n in sorted(names) if n.endswith(".sql")]
    except (OSError, subprocess.CalledProcessError) as exc:
        msg = f"the migrations before the squash need this checkout's git history ({SQUASH_BASE[:7]}): {exc}"
        if os.environ.get("RAG_REQUIRE_CORPUS") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    assert chain[-1][0] == migrations.SQUASHED_LAST and len(chain) == 89
    return chain


def _migrate_the_old_way(url: str) -> None:
    """As the runner before the squash did: each file once, in order, its name recorded."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create table schema_migrations (name text primary key,"
                     " applied_at timestamptz not null default now())")
        for name, text in _old_chain():
            with conn.transaction():
                conn.execute(text)
                conn.execute("insert into schema_migrations (name) values (%s)", (name,))


def _added_since_squash() -> list[str]:
    """The function files of sql/functions/ whose function the chain before the squash never defined (added since,
    as figures_numbered): applied on top of the old chain, as the runner applies them to a store it upgrades."""
    old = "\n".join(text for _, text in _old_chain())
    return [p.read_text() for p in sorted((ROOT / "sql" / "functions").glob("*.sql"))
            if not re.search(rf"function\s+(?:public\.)?{p.stem}\s*\(", old, re.I)]


def _dump(url: str, *args: str) -> str:
    import pgserver

    pg_dump = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_dump"
    return subprocess.run([str(pg_dump), "--no-owner", *args, url], capture_output=True, text=True,
                          check=True).stdout


def _catalog(url: str) -> str:
    """The schema-only dump, the runner's own log table without its checksum column (the only difference the new
    runner makes)."""
    return re.sub(r",\n    checksum text\n", "\n", _dump(url, "--schema-only"))


def test_migrate_blank_database_then_rerun(store):
    url = _blank(store, "blank_migrations")
    with psycopg.connect(url, autocommit=True) as conn:
        applied = migrations.migrate(conn)
        assert applied == [m.name for m in migrations.plan()]
        assert applied[:2] == ["migrations/001_baseline.sql", "migrations/002_job_queue_procrastinate.sql"]
        assert migrations.migrate(conn) == []  # a second run applies nothing
        tables = {r[0] for r in conn.execute("select tablename from pg_tables where schemaname = 'public'")}
        assert {"documents", "chunks", "figures", "document_relations", "schema_migrations", "store_info"} <= tables
        idx = {r[0]: r[1] for r in conn.execute("select indexname, indexdef from pg_indexes where schemaname = 'public'")}
        assert "hnsw" in idx["chunks_embedding_hnsw"] and "vector_cosine_ops" in idx["chunks_embedding_hnsw"]
        assert "gin" in idx["chunks_fts_gin"]
        fk = conn.execute("""select confdeltype from pg_constraint where conrelid = 'chunks'::regclass
                             and contype = 'f'""").fetchone()[0]
        assert fk == "c"  # on delete cascade


def test_a_changed_function_file_is_applied_again_and_only_it(store, tmp_path):
    sql = tmp_path / "sql"
    shutil.copytree(migrations.SQL_DIR, sql)
    url = _blank(store, "repeatable_migrations")
    with psycopg.connect(url, autocommit=True) as conn:
        migrations.migrate(conn, sql)
        f = sql / "functions" / "get_store_info.sql"
        f.write_text(f.read_text().replace("CREATE OR REPLACE FUNCTION", "-- a new line of its contract\n"
                                           "CREATE OR REPLACE FUNCTION", 1))
        assert migrations.migrate(conn, sql) == ["functions/get_store_info.sql"]
        assert migrations.migrate(conn, sql) == []
        body = (sql / "functions" / "get_store_info.sql").read_text()
        (sql / "functions" / "get_store_info.sql").write_text(body.replace("from store_info", "from store_info "
                                                                           "where key <> 'hidden'"))
        assert migrations.migrate(conn, sql) == ["functions/get_store_info.sql"]
        src = conn.execute("select prosrc from pg_proc where proname = 'get_store_info'").fetchone()[0]
        assert "'hidden'" in src  # the function as its file now says
        recorded = dict(conn.execute("select name, checksum from schema_migrations").fetchall())
        assert recorded["migrations/001_baseline.sql"] is None and len(recorded["functions/get_store_info.sql"]) == 64


def test_the_squash_builds_the_catalog_the_89_migrations_built(store):
    """Issue 37: a blank database migrated the old way (with the functions added since on top) and the new way: the
    same schema, the same data."""
    old, new = _blank(store, "squash_old"), _blank(store, "squash_new")
    _migrate_the_old_way(old)
    with psycopg.connect(old, autocommit=True) as conn:
        for text in _added_since_squash():
            conn.execute(text)
    with psycopg.connect(new, autocommit=True) as conn:
        migrations.migrate(conn)
    a, b = _catalog(old), _catalog(new)
    assert a.count("CREATE FUNCTION") >= 80 and a.count("CREATE POLICY") >= 40
    assert a == b, "\n".join(l for l in __import__("difflib").unified_diff(a.splitlines(), b.splitlines(), n=1))[:4000]
    data = ("--data-only", "--exclude-table-data=schema_migrations")
    assert _dump(old, *data) == _dump(new, *data)


def test_a_store_built_by_the_old_migrations_upgrades_in_place(store, settings, embedder):
    """A store made before the squash, holding a document, opened by this version: its numbered migrations are
    recorded as the baseline, every function, view and policy is applied, the document is still found, and the
    schema is what a new store gets."""
    from rag.config import Settings
    from rag.store import open_store

    old, new = _blank(store, "upgrade_old"), _blank(store, "upgrade_new")
    _migrate_the_old_way(old)
    vec = embedder.encode_query("Net sales rose to 12,345 million dollars")
    literal = "[" + ",".join(f"{x:.6f}" for x in vec) + "]"
    with psycopg.connect(old, autocommit=True) as conn:
        doc = conn.execute("insert into documents (file_name, sha256, page_count, embedding_model, title) "
                           "values ('old.pdf', 'abc', 1, %s, 'Old report') returning id",
                           (settings.embedding.model,)).fetchone()[0]
        conn.execute("insert into chunks (document_id, chunk_index, page_start, page_end, content, token_count, "
                     "embedding) values (%s, 0, 1, 1, 'Net sales were 12,345 million dollars in 2022.', 9, %s::vector)",
                     (doc, literal))
    s = Settings()
    s.db.url = old
    upgraded = open_store(s, migrate=True)  # as the app opens its embedded store
    try:
        with upgraded.transport.connection() as conn:
            names = [r[0] for r in conn.execute("select name from schema_migrations order by applied_at, name")]
        assert "090_clean_stored_text.sql" in names and "migrations/001_baseline.sql" in names
        assert "functions/match_chunks.sql" in names
        assert [d.title for d in upgraded.list_documents()] == ["Old report"]
        with upgraded.transport.connection() as conn:
            found = conn.execute("select file_name from match_chunks(%s::vector, 'net sales', 5, 5)",
                                 (literal,)).fetchall()
        assert found == [("old.pdf",)]
    finally:
        upgraded.close()
    with psycopg.connect(new, autocommit=True) as conn:
        migrations.migrate(conn)
    assert _catalog(old) == _catalog(new)


def test_a_store_stopped_part_way_through_the_old_migrations_is_refused_in_one_line(store):
    url = _blank(store, "half_old")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("create table schema_migrations (name text primary key,"
                     " applied_at timestamptz not null default now())")
        for name, text in _old_chain()[:10]:
            conn.execute(text)
            conn.execute("insert into schema_migrations (name) values (%s)", (name,))
        from rag.errors import StoreError

        with pytest.raises(StoreError) as err:
            migrations.migrate(conn)
    assert "stops at migration 010_fn_match_figures.sql" in str(err.value) and "\n" not in str(err.value)


def test_the_printed_script_builds_what_the_runner_builds(store):
    """`python -m rag migrate --print` (for a SQL editor): the same schema, and the runner then has nothing to do."""
    pasted, run = _blank(store, "printed_script"), _blank(store, "printed_runner")
    with psycopg.connect(pasted, autocommit=True) as conn:
        conn.execute(migrations.script())
        assert migrations.migrate(conn) == []
    with psycopg.connect(run, autocommit=True) as conn:
        migrations.migrate(conn)
    assert _catalog(pasted) == _catalog(run)


def test_every_sql_file_states_its_contract():
    for m in migrations.plan():
        assert m.path.read_text().lstrip().startswith("--"), f"{m.name} must start with a comment"


def test_vector_extension_is_pgvector(store):
    with store.transport.connection() as conn:
        v = conn.execute("select extversion from pg_extension where extname = 'vector'").fetchone()[0]
        assert tuple(int(x) for x in v.split(".")[:2]) >= (0, 5)
        assert isinstance(conn, psycopg.Connection)
