-- Documents: one row per ingested PDF; content sha256 is unique so a file is ingested once.
create table if not exists documents (
    id              bigint generated always as identity primary key,
    file_name       text not null,
    title           text,
    company         text,
    company_key     text,            -- normalised issuer name used to relate periods
    fiscal_year     int,
    fiscal_period   text,            -- FY, Q1..Q4, or null
    doc_type        text not null default 'other',
    published_date  date,
    uploaded_at     timestamptz not null default now(),
    sha256          text not null unique,
    page_count      int not null,
    ocr_pages       int not null default 0,
    embedding_model text not null,
    status          text not null default 'ready',
    meta            jsonb not null default '{}'::jsonb
);
create index if not exists documents_company_key_idx on documents (company_key, fiscal_year);
