-- The store's schema as of the squash of migrations 001-090 (issue 37): extensions, roles, tables, sequences,
-- constraints, indexes, the table grants, and what PUBLIC may no longer do in this database. Generated once from the
-- catalog those 89 migrations built (pg_dump --schema-only, the parts that are not functions, views or policies) and
-- checked against it by tests/db/test_migrations.py; their history is in git (`git log -- sql/`).
-- Functions, views and row-level-security policies are not here: each has its own file under sql/functions,
-- sql/views and sql/policies, re-applied when it changes. Nothing here calls them (they are created after this file);
-- a column whose default calls one (workspace = current_workspace()) gets that default in its table's policy file.

create extension if not exists vector;

-- The roles every grant and policy names. Supabase creates anon, authenticated and service_role itself; elsewhere they
-- are created here, so the same grants mean the same thing everywhere and can be tested. rag_app is the app's own
-- role (every data call of the app runs as it, under row-level security); rag_reader is what reader logins
-- (rag_query, and one per workspace) inherit: the reader views only; rag_query is the login of SQL written by users
-- and models (configured by configure_reader_role, sql/functions/configure_reader_role.sql).
-- A migrating role that may not create roles fails here with one line saying what to do.
do $$
begin
    if not exists (select 1 from pg_roles where rolname = 'anon') then
        create role anon nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'authenticated') then
        create role authenticated nologin noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'service_role') then
        create role service_role nologin noinherit bypassrls;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'rag_reader') then
        create role rag_reader nologin;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'rag_app') then
        create role rag_app nologin nobypassrls noinherit;
    end if;
    if not exists (select 1 from pg_roles where rolname = 'rag_query') then
        create role rag_query login;
    end if;
    execute format('grant rag_app to %I', current_user);
exception when insufficient_privilege then
    raise exception 'the store needs the roles anon, authenticated, service_role, rag_reader, rag_app and rag_query (%): '
                    'migrate with a role that has CREATEROLE, or have an administrator create them first', sqlerrm
        using errcode = 'insufficient_privilege';
end
$$;

CREATE TABLE public.chunk_lexemes (
    chunk_id bigint NOT NULL,
    document_id bigint NOT NULL,
    lexemes tsvector NOT NULL
);

CREATE TABLE public.chunk_postings (
    workspace text NOT NULL COLLATE pg_catalog."C",
    lexeme text NOT NULL COLLATE pg_catalog."C",
    document_id bigint NOT NULL,
    chunk_ids bigint[] NOT NULL
);
ALTER TABLE ONLY public.chunk_postings ALTER COLUMN workspace SET STATISTICS 0;
ALTER TABLE ONLY public.chunk_postings ALTER COLUMN lexeme SET STATISTICS 0;

CREATE TABLE public.chunks (
    id bigint NOT NULL,
    document_id bigint NOT NULL,
    chunk_index integer NOT NULL,
    page_start integer NOT NULL,
    page_end integer NOT NULL,
    heading text DEFAULT ''::text NOT NULL,
    section_type text DEFAULT 'other'::text NOT NULL,
    context text DEFAULT ''::text NOT NULL,
    content text NOT NULL,
    token_count integer NOT NULL,
    embedding public.vector(384),
    fts tsvector GENERATED ALWAYS AS ((setweight(to_tsvector('english'::regconfig, context), 'A'::"char") || setweight(to_tsvector('english'::regconfig, content), 'B'::"char"))) STORED,
    CONSTRAINT chunks_content_check CHECK ((length(btrim(content)) > 0))
);
ALTER TABLE ONLY public.chunks ALTER COLUMN chunk_index SET STATISTICS 0;
ALTER TABLE ONLY public.chunks ALTER COLUMN page_start SET STATISTICS 0;
ALTER TABLE ONLY public.chunks ALTER COLUMN page_end SET STATISTICS 0;
ALTER TABLE ONLY public.chunks ALTER COLUMN heading SET STATISTICS 0;
ALTER TABLE ONLY public.chunks ALTER COLUMN section_type SET STATISTICS 0;
ALTER TABLE ONLY public.chunks ALTER COLUMN token_count SET STATISTICS 0;

ALTER TABLE public.chunks ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.chunks_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.conversation_turns (
    id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    "position" integer NOT NULL,
    question text NOT NULL,
    answer jsonb NOT NULL,
    follow_ups text[] DEFAULT '{}'::text[] NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.conversation_turns ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.conversation_turns_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.conversations (
    id bigint NOT NULL,
    workspace text,
    title text DEFAULT 'New chat'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE public.conversations ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.conversations_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.doc_tables (
    id bigint NOT NULL,
    document_id bigint NOT NULL,
    table_no integer NOT NULL,
    chunk_indexes integer[] NOT NULL,
    page_start integer NOT NULL,
    page_end integer NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    unit text,
    scale double precision DEFAULT 1 NOT NULL,
    stub text DEFAULT ''::text NOT NULL,
    columns jsonb DEFAULT '[]'::jsonb NOT NULL,
    rows jsonb DEFAULT '[]'::jsonb NOT NULL
);

CREATE SEQUENCE public.doc_tables_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.doc_tables_id_seq OWNED BY public.doc_tables.id;

CREATE TABLE public.document_files (
    document_id bigint NOT NULL,
    pdf bytea NOT NULL
);

CREATE TABLE public.document_relations (
    source_id bigint NOT NULL,
    target_id bigint NOT NULL,
    relation text NOT NULL
);

CREATE TABLE public.documents (
    id bigint NOT NULL,
    file_name text NOT NULL,
    title text,
    company text,
    company_key text,
    fiscal_year integer,
    fiscal_period text,
    doc_type text DEFAULT 'other'::text NOT NULL,
    published_date date,
    uploaded_at timestamp with time zone DEFAULT now() NOT NULL,
    sha256 text NOT NULL,
    page_count integer NOT NULL,
    ocr_pages integer DEFAULT 0 NOT NULL,
    embedding_model text NOT NULL,
    status text DEFAULT 'ready'::text NOT NULL,
    meta jsonb DEFAULT '{}'::jsonb NOT NULL,
    workspace text,
    chunk_count integer DEFAULT 0 NOT NULL,
    figure_count integer DEFAULT 0 NOT NULL
);
ALTER TABLE ONLY public.documents ALTER COLUMN file_name SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN title SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN company SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN fiscal_year SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN fiscal_period SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN doc_type SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN published_date SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN uploaded_at SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN page_count SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN ocr_pages SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN chunk_count SET STATISTICS 0;
ALTER TABLE ONLY public.documents ALTER COLUMN figure_count SET STATISTICS 0;

ALTER TABLE public.documents ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.documents_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.facts (
    id bigint NOT NULL,
    document_id bigint NOT NULL,
    chunk_id bigint,
    page integer NOT NULL,
    label text NOT NULL,
    label_path text NOT NULL,
    col_header text DEFAULT ''::text NOT NULL,
    period text,
    fiscal_year integer,
    fiscal_period text,
    is_change boolean DEFAULT false NOT NULL,
    value double precision NOT NULL,
    raw text NOT NULL,
    unit text,
    scale double precision DEFAULT 1 NOT NULL,
    table_title text DEFAULT ''::text NOT NULL,
    row_text text DEFAULT ''::text NOT NULL,
    col integer DEFAULT 0 NOT NULL,
    tsv tsvector GENERATED ALWAYS AS ((setweight(to_tsvector('english'::regconfig, label_path), 'A'::"char") || setweight(to_tsvector('english'::regconfig, table_title), 'C'::"char"))) STORED
);

CREATE SEQUENCE public.facts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.facts_id_seq OWNED BY public.facts.id;

CREATE TABLE public.feedback (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    question text NOT NULL,
    answer text NOT NULL,
    chunk_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    rating integer NOT NULL,
    comment text,
    workspace text,
    CONSTRAINT feedback_rating_check CHECK ((rating = ANY (ARRAY['-1'::integer, 1])))
);

ALTER TABLE public.feedback ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.feedback_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.figures (
    id bigint NOT NULL,
    document_id bigint NOT NULL,
    chunk_id bigint,
    page integer NOT NULL,
    bbox double precision[] NOT NULL,
    kind text NOT NULL,
    caption text DEFAULT ''::text NOT NULL,
    context text DEFAULT ''::text NOT NULL,
    ocr_text text DEFAULT ''::text NOT NULL,
    chart_type text,
    image bytea,
    image_path text,
    sha256 text NOT NULL,
    width integer,
    height integer,
    embedding public.vector(384),
    figure_kind text,
    kind_why text DEFAULT ''::text NOT NULL,
    signals jsonb,
    CONSTRAINT figures_figure_kind_check CHECK (((figure_kind IS NULL) OR (figure_kind = ANY (ARRAY['chart'::text, 'diagram'::text, 'table'::text, 'photo'::text, 'logo'::text, 'decoration'::text, 'map'::text, 'cover'::text])))),
    CONSTRAINT figures_kind_check CHECK ((kind = ANY (ARRAY['raster'::text, 'vector'::text])))
);
ALTER TABLE ONLY public.figures ALTER COLUMN page SET STATISTICS 0;
ALTER TABLE ONLY public.figures ALTER COLUMN kind SET STATISTICS 0;
ALTER TABLE ONLY public.figures ALTER COLUMN caption SET STATISTICS 0;
ALTER TABLE ONLY public.figures ALTER COLUMN chart_type SET STATISTICS 0;
ALTER TABLE ONLY public.figures ALTER COLUMN width SET STATISTICS 0;
ALTER TABLE ONLY public.figures ALTER COLUMN height SET STATISTICS 0;

ALTER TABLE public.figures ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.figures_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.ingest_jobs (
    id bigint NOT NULL,
    workspace text,
    file_name text NOT NULL,
    sha256 text NOT NULL,
    size_bytes bigint NOT NULL,
    pdf bytea,
    status text DEFAULT 'queued'::text NOT NULL,
    stage text,
    done integer DEFAULT 0 NOT NULL,
    total integer DEFAULT 0 NOT NULL,
    attempts integer DEFAULT 0 NOT NULL,
    document_id bigint,
    error text,
    summary jsonb,
    queue_job_id bigint,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    started_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    finished_at timestamp with time zone,
    CONSTRAINT ingest_jobs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'failed'::text])))
);

CREATE SEQUENCE public.ingest_jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.ingest_jobs_id_seq OWNED BY public.ingest_jobs.id;

CREATE TABLE public.query_log (
    id bigint NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    question text NOT NULL,
    document_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    chunk_ids bigint[] DEFAULT '{}'::bigint[] NOT NULL,
    similarities double precision[] DEFAULT '{}'::double precision[] NOT NULL,
    total_ms double precision,
    workspace text
);

ALTER TABLE public.query_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.query_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

CREATE TABLE public.reader_roles (
    role_name text NOT NULL,
    workspace text
);

CREATE TABLE public.store_info (
    key text NOT NULL,
    value text NOT NULL
);

CREATE TABLE public.term_stats (
    lexeme text NOT NULL,
    ndoc integer NOT NULL,
    workspace text DEFAULT ''::text NOT NULL
);
ALTER TABLE ONLY public.term_stats ALTER COLUMN workspace SET STATISTICS 0;

ALTER TABLE ONLY public.doc_tables ALTER COLUMN id SET DEFAULT nextval('public.doc_tables_id_seq'::regclass);

ALTER TABLE ONLY public.facts ALTER COLUMN id SET DEFAULT nextval('public.facts_id_seq'::regclass);

ALTER TABLE ONLY public.ingest_jobs ALTER COLUMN id SET DEFAULT nextval('public.ingest_jobs_id_seq'::regclass);

ALTER TABLE ONLY public.chunk_lexemes
    ADD CONSTRAINT chunk_lexemes_pkey PRIMARY KEY (chunk_id);

ALTER TABLE ONLY public.chunk_postings
    ADD CONSTRAINT chunk_postings_pkey PRIMARY KEY (workspace, lexeme, document_id);

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_document_id_chunk_index_key UNIQUE (document_id, chunk_index);

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.conversation_turns
    ADD CONSTRAINT conversation_turns_conversation_id_position_key UNIQUE (conversation_id, "position");

ALTER TABLE ONLY public.conversation_turns
    ADD CONSTRAINT conversation_turns_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.doc_tables
    ADD CONSTRAINT doc_tables_document_id_table_no_key UNIQUE (document_id, table_no);

ALTER TABLE ONLY public.doc_tables
    ADD CONSTRAINT doc_tables_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.document_files
    ADD CONSTRAINT document_files_pkey PRIMARY KEY (document_id);

ALTER TABLE ONLY public.document_relations
    ADD CONSTRAINT document_relations_pkey PRIMARY KEY (source_id, target_id, relation);

ALTER TABLE ONLY public.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.facts
    ADD CONSTRAINT facts_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.feedback
    ADD CONSTRAINT feedback_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.figures
    ADD CONSTRAINT figures_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.ingest_jobs
    ADD CONSTRAINT ingest_jobs_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.query_log
    ADD CONSTRAINT query_log_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.reader_roles
    ADD CONSTRAINT reader_roles_pkey PRIMARY KEY (role_name);

ALTER TABLE ONLY public.store_info
    ADD CONSTRAINT store_info_pkey PRIMARY KEY (key);

ALTER TABLE ONLY public.term_stats
    ADD CONSTRAINT term_stats_pkey PRIMARY KEY (workspace, lexeme);

CREATE INDEX chunk_lexemes_document ON public.chunk_lexemes USING btree (document_id);

CREATE INDEX chunk_postings_document ON public.chunk_postings USING btree (workspace, document_id);

CREATE INDEX chunks_document_idx ON public.chunks USING btree (document_id);

CREATE INDEX chunks_embedding_hnsw ON public.chunks USING hnsw (embedding public.vector_cosine_ops);

CREATE INDEX chunks_fts_gin ON public.chunks USING gin (fts);

CREATE INDEX conversations_updated_idx ON public.conversations USING btree (workspace, updated_at DESC);

CREATE INDEX doc_tables_chunks_idx ON public.doc_tables USING gin (chunk_indexes);

CREATE INDEX document_relations_target_idx ON public.document_relations USING btree (target_id);

CREATE INDEX documents_company_key_idx ON public.documents USING btree (company_key, fiscal_year);

CREATE INDEX documents_sha256_idx ON public.documents USING btree (sha256);

CREATE INDEX documents_workspace_idx ON public.documents USING btree (workspace);

CREATE UNIQUE INDEX documents_workspace_sha256_key ON public.documents USING btree (COALESCE(workspace, ''::text), sha256);

CREATE INDEX facts_chunk_idx ON public.facts USING btree (chunk_id);

CREATE INDEX facts_document_idx ON public.facts USING btree (document_id);

CREATE INDEX facts_tsv_idx ON public.facts USING gin (tsv);

CREATE INDEX facts_year_idx ON public.facts USING btree (fiscal_year);

CREATE INDEX figures_chunk_idx ON public.figures USING btree (chunk_id);

CREATE INDEX figures_document_idx ON public.figures USING btree (document_id);

CREATE INDEX figures_embedding_hnsw ON public.figures USING hnsw (embedding public.vector_cosine_ops);

CREATE UNIQUE INDEX ingest_jobs_one_active ON public.ingest_jobs USING btree (COALESCE(workspace, ''::text), sha256) WHERE (status = ANY (ARRAY['queued'::text, 'running'::text]));

CREATE INDEX ingest_jobs_recent ON public.ingest_jobs USING btree (COALESCE(workspace, ''::text), created_at DESC);

ALTER TABLE ONLY public.chunk_lexemes
    ADD CONSTRAINT chunk_lexemes_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.chunks(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.chunks
    ADD CONSTRAINT chunks_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.conversation_turns
    ADD CONSTRAINT conversation_turns_conversation_id_fkey FOREIGN KEY (conversation_id) REFERENCES public.conversations(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.doc_tables
    ADD CONSTRAINT doc_tables_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.document_files
    ADD CONSTRAINT document_files_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.document_relations
    ADD CONSTRAINT document_relations_source_id_fkey FOREIGN KEY (source_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.document_relations
    ADD CONSTRAINT document_relations_target_id_fkey FOREIGN KEY (target_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.facts
    ADD CONSTRAINT facts_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.chunks(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.facts
    ADD CONSTRAINT facts_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.figures
    ADD CONSTRAINT figures_chunk_id_fkey FOREIGN KEY (chunk_id) REFERENCES public.chunks(id) ON DELETE SET NULL;

ALTER TABLE ONLY public.figures
    ADD CONSTRAINT figures_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE CASCADE;

ALTER TABLE ONLY public.ingest_jobs
    ADD CONSTRAINT ingest_jobs_document_id_fkey FOREIGN KEY (document_id) REFERENCES public.documents(id) ON DELETE SET NULL;

-- the store's own reader login (rag_query) reads the shared documents only
insert into reader_roles (role_name, workspace) values ('rag_query', null) on conflict (role_name) do nothing;

grant usage on schema public to rag_reader, anon, authenticated, service_role, rag_app;
GRANT ALL ON TABLE public.chunk_lexemes TO service_role;
GRANT SELECT ON TABLE public.chunk_lexemes TO anon, authenticated;
GRANT SELECT,INSERT ON TABLE public.chunk_lexemes TO rag_app;
GRANT ALL ON TABLE public.chunk_postings TO service_role;
GRANT SELECT ON TABLE public.chunk_postings TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.chunk_postings TO rag_app;
GRANT ALL ON TABLE public.chunks TO service_role;
GRANT SELECT ON TABLE public.chunks TO anon, authenticated;
GRANT SELECT,INSERT,UPDATE ON TABLE public.chunks TO rag_app;
GRANT SELECT(id, document_id, chunk_index, page_start, page_end, heading, section_type, token_count) ON TABLE public.chunks TO rag_reader;
GRANT ALL ON SEQUENCE public.chunks_id_seq TO service_role;
GRANT SELECT,USAGE ON SEQUENCE public.chunks_id_seq TO rag_app;
GRANT ALL ON TABLE public.conversation_turns TO service_role;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.conversation_turns TO rag_app;
GRANT SELECT,USAGE ON SEQUENCE public.conversation_turns_id_seq TO service_role, rag_app;
GRANT ALL ON TABLE public.conversations TO service_role;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.conversations TO rag_app;
GRANT SELECT,USAGE ON SEQUENCE public.conversations_id_seq TO service_role, rag_app;
GRANT ALL ON TABLE public.doc_tables TO service_role;
GRANT SELECT ON TABLE public.doc_tables TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.doc_tables TO rag_app;
GRANT SELECT,USAGE ON SEQUENCE public.doc_tables_id_seq TO service_role, rag_app;
GRANT ALL ON TABLE public.document_files TO service_role;
GRANT SELECT ON TABLE public.document_files TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.document_files TO rag_app;
GRANT ALL ON TABLE public.document_relations TO service_role;
GRANT SELECT ON TABLE public.document_relations TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.document_relations TO rag_app;
GRANT ALL ON TABLE public.documents TO service_role;
GRANT SELECT ON TABLE public.documents TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.documents TO rag_app;
GRANT SELECT(id, file_name, title, company, fiscal_year, fiscal_period, doc_type, published_date, uploaded_at, page_count, ocr_pages) ON TABLE public.documents TO rag_reader;
GRANT ALL ON SEQUENCE public.documents_id_seq TO service_role;
GRANT SELECT,USAGE ON SEQUENCE public.documents_id_seq TO rag_app;
GRANT ALL ON TABLE public.facts TO service_role;
GRANT SELECT ON TABLE public.facts TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.facts TO rag_app;
GRANT SELECT,USAGE ON SEQUENCE public.facts_id_seq TO service_role, rag_app;
GRANT ALL ON TABLE public.feedback TO service_role;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.feedback TO rag_app;
GRANT ALL ON SEQUENCE public.feedback_id_seq TO service_role;
GRANT SELECT,USAGE ON SEQUENCE public.feedback_id_seq TO rag_app;
GRANT ALL ON TABLE public.figures TO service_role;
GRANT SELECT ON TABLE public.figures TO anon, authenticated;
GRANT SELECT,INSERT,UPDATE ON TABLE public.figures TO rag_app;
GRANT SELECT(id, document_id, page, kind, caption, chart_type, width, height) ON TABLE public.figures TO rag_reader;
GRANT ALL ON SEQUENCE public.figures_id_seq TO service_role;
GRANT SELECT,USAGE ON SEQUENCE public.figures_id_seq TO rag_app;
GRANT ALL ON TABLE public.ingest_jobs TO service_role;
GRANT SELECT,INSERT,DELETE ON TABLE public.ingest_jobs TO rag_app;
GRANT SELECT,USAGE ON SEQUENCE public.ingest_jobs_id_seq TO service_role, rag_app;
GRANT ALL ON TABLE public.query_log TO service_role;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.query_log TO rag_app;
GRANT ALL ON SEQUENCE public.query_log_id_seq TO service_role;
GRANT SELECT,USAGE ON SEQUENCE public.query_log_id_seq TO rag_app;
GRANT SELECT ON TABLE public.reader_roles TO PUBLIC, rag_app;
GRANT ALL ON TABLE public.schema_migrations TO service_role;
GRANT ALL ON TABLE public.store_info TO service_role;
GRANT SELECT ON TABLE public.store_info TO anon, authenticated;
GRANT SELECT,INSERT ON TABLE public.store_info TO rag_app;
GRANT ALL ON TABLE public.term_stats TO service_role;
GRANT SELECT ON TABLE public.term_stats TO anon, authenticated;
GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE public.term_stats TO rag_app;

-- Nothing a question runs may outlive its transaction: session-level advisory locks, session settings, signals to
-- other sessions, large objects (which persist and are not bounded by temp_file_limit) and the view of other
-- sessions' running queries (pg_stat_activity: another user's question in flight) are taken away from PUBLIC in
-- this database and given back to the roles that
-- administer it (the migrating owner, service_role, and PostgREST's authenticator, which sets the request's
-- settings). The reader roles (033) are left without them. Transaction-level advisory locks are harmless (they end
-- with the question's transaction) and stay. On a managed Postgres where the migrating role does not own these
-- catalog functions (Supabase), the revoke is skipped with a notice: there, readers reach the database only
-- through PostgREST's function calls, and structured questions through a reader login whose connection is
-- reset before reuse (rag/store/reader.py).

do $$
declare
    f regprocedure;
    r text;
begin
    for f in select p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'pg_catalog'
                and p.proname in ('pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock',
                                  'pg_try_advisory_lock_shared', 'set_config', 'pg_terminate_backend',
                                  'pg_cancel_backend', 'pg_stat_get_activity', 'lo_create', 'lo_creat',
                                  'lo_from_bytea', 'lo_open', 'lowrite', 'lo_put', 'lo_truncate', 'lo_truncate64',
                                  'lo_unlink', 'lo_import', 'lo_export') loop
        begin
            execute format('revoke execute on function %s from public', f);
            execute format('grant execute on function %s to %I', f, current_user);
            foreach r in array array['service_role', 'authenticator', 'supabase_admin', 'postgres'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant execute on function %s to %I', f, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', f, sqlerrm;
        end;
    end loop;
end
$$;

do $$
declare
    r text;
begin
    revoke select on pg_catalog.pg_stat_activity from public;
    execute format('grant select on pg_catalog.pg_stat_activity to %I', current_user);
    foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor'] loop
        if exists (select 1 from pg_roles where rolname = r) then
            execute format('grant select on pg_catalog.pg_stat_activity to %I', r);
        end if;
    end loop;
exception when insufficient_privilege then
    raise notice 'cannot revoke pg_stat_activity from public here (%)', sqlerrm;
end
$$;

-- The statistics views and the functions behind them (pg_stats: a column's sampled values; pg_stat_*_tables:
-- row counts and insert counters) are taken from PUBLIC and given back to the roles that administer the
-- database; where the migrating role does not own the catalog (Supabase), skipped with a notice.

do $$
declare
    v text;
    f regprocedure;
    r text;
begin
    for v in select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
              where n.nspname = 'pg_catalog' and c.relkind = 'v'
                and (c.relname in ('pg_stats', 'pg_stats_ext', 'pg_stats_ext_exprs')
                     or c.relname ~ '^pg_stat(io)?_(all|sys|user|xact_all|xact_sys|xact_user)_(tables|indexes|sequences|functions)$'
                     or c.relname in ('pg_stat_user_functions', 'pg_stat_xact_user_functions',
                                      'pg_statio_all_sequences', 'pg_statio_sys_sequences',
                                      'pg_statio_user_sequences')) loop
        begin
            execute format('revoke select on pg_catalog.%I from public', v);
            execute format('grant select on pg_catalog.%I to %I', v, current_user);
            foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor', 'pg_read_all_stats'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant select on pg_catalog.%I to %I', v, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', v, sqlerrm;
        end;
    end loop;
    -- the functions behind those views count a table's rows and scans by its oid
    for f in select p.oid::regprocedure from pg_proc p join pg_namespace n on n.oid = p.pronamespace
              where n.nspname = 'pg_catalog' and p.proname ~ '^pg_stat_get_(xact_)?(numscans|lastscan|tuples_|live_tuples|dead_tuples|ins_since_vacuum|mod_since_analyze|blocks_|last_|vacuum_count|autovacuum_count|analyze_count|autoanalyze_count|function_)' loop
        begin
            execute format('revoke execute on function %s from public', f);
            execute format('grant execute on function %s to %I', f, current_user);
            foreach r in array array['service_role', 'supabase_admin', 'postgres', 'pg_monitor', 'pg_read_all_stats'] loop
                if exists (select 1 from pg_roles where rolname = r) then
                    execute format('grant execute on function %s to %I', f, r);
                end if;
            end loop;
        exception when insufficient_privilege then
            raise notice 'cannot revoke % from public here (%)', f, sqlerrm;
        end;
    end loop;
end
$$;

-- Temporary tables: PUBLIC may create them in every new database, and temp_file_limit does not count them (a
-- reader logged in directly wrote 224 MB). No role of ours needs one, so PUBLIC loses TEMP on this database; the
-- owner keeps it as the database's owner.

do $$
begin
    execute format('revoke temporary on database %I from public', current_database());
exception when insufficient_privilege then
    raise notice 'cannot revoke TEMP on database % here (%): temporary tables stay open to PUBLIC',
        current_database(), sqlerrm;
end
$$;
