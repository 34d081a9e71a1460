-- Chunks: retrieval units with first/last page (1-based), heading path, section type, embedding and full text.
create table if not exists chunks (
    id            bigint generated always as identity primary key,
    document_id   bigint not null references documents (id) on delete cascade,
    chunk_index   int not null,
    page_start    int not null,
    page_end      int not null,
    heading       text not null default '',
    section_type  text not null default 'other',
    context       text not null default '',   -- document label + heading path, searched with weight A
    content       text not null check (length(btrim(content)) > 0),
    token_count   int not null,
    embedding     vector(384),
    fts           tsvector generated always as (
                      setweight(to_tsvector('english', context), 'A') ||
                      setweight(to_tsvector('english', content), 'B')) stored,
    unique (document_id, chunk_index)
);
create index if not exists chunks_embedding_hnsw on chunks using hnsw (embedding vector_cosine_ops);
create index if not exists chunks_fts_gin on chunks using gin (fts);
create index if not exists chunks_document_idx on chunks (document_id);
