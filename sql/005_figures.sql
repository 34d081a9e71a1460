-- Figures: raster images and vector-drawn charts cropped to PNG, each linked to the chunk it belongs to.
create table if not exists figures (
    id           bigint generated always as identity primary key,
    document_id  bigint not null references documents (id) on delete cascade,
    chunk_id     bigint references chunks (id) on delete set null,
    page         int not null,
    bbox         double precision[] not null,  -- x0, y0, x1, y1 in PDF points
    kind         text not null check (kind in ('raster', 'vector')),
    caption      text not null default '',
    context      text not null default '',
    ocr_text     text not null default '',
    chart_type   text,
    image        bytea,
    image_path   text,
    sha256       text not null,
    width        int,
    height       int,
    embedding    vector(384)
);
create index if not exists figures_document_idx on figures (document_id);
create index if not exists figures_chunk_idx on figures (chunk_id);
create index if not exists figures_embedding_hnsw on figures using hnsw (embedding vector_cosine_ops);
