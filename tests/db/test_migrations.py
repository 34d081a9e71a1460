import psycopg

from rag.store import migrations


def test_migrate_blank_database_then_rerun(store):
    # a blank database beside the session's (dropping the session store's schema would leave its other pooled
    # connections with pgvector's cached type of the dropped extension: "cache lookup failed for type")
    with store.transport.connection() as conn:
        conn.execute("drop database if exists blank_migrations")
        conn.execute("create database blank_migrations")
    url = psycopg.conninfo.make_conninfo(store.transport.url, dbname="blank_migrations")
    with psycopg.connect(url, autocommit=True) as conn:
        applied = migrations.migrate(conn)
        assert applied == [p.name for p in migrations.migration_files()]
        assert migrations.migrate(conn) == []  # a second run applies nothing
        tables = {r[0] for r in conn.execute("select tablename from pg_tables where schemaname = 'public'")}
        assert {"documents", "chunks", "figures", "document_relations", "schema_migrations", "store_info"} <= tables
        idx = {r[0]: r[1] for r in conn.execute("select indexname, indexdef from pg_indexes where schemaname = 'public'")}
        assert "hnsw" in idx["chunks_embedding_hnsw"] and "vector_cosine_ops" in idx["chunks_embedding_hnsw"]
        assert "gin" in idx["chunks_fts_gin"]
        fk = conn.execute("""select confdeltype from pg_constraint where conrelid = 'chunks'::regclass
                             and contype = 'f'""").fetchone()[0]
        assert fk == "c"  # on delete cascade


def test_every_function_states_its_contract():
    for path in migrations.migration_files():
        text = path.read_text()
        assert text.lstrip().startswith("--"), f"{path.name} must start with a comment"


def test_vector_extension_is_pgvector(store):
    with store.transport.connection() as conn:
        v = conn.execute("select extversion from pg_extension where extname = 'vector'").fetchone()[0]
        assert tuple(int(x) for x in v.split(".")[:2]) >= (0, 5)
        assert isinstance(conn, psycopg.Connection)
