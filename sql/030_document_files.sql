-- The original PDF of a document (optional, written after ingestion), so the app can show the cited region of a
-- page. Deleted with its document.
create table if not exists document_files (
    document_id bigint primary key references documents (id) on delete cascade,
    pdf         bytea not null
);

create or replace function put_document_file(p_document_id bigint, p_pdf_b64 text)
returns boolean
language sql
as $$
    insert into document_files (document_id, pdf) values (p_document_id, decode(p_pdf_b64, 'base64'))
    on conflict (document_id) do update set pdf = excluded.pdf
    returning true;
$$;

create or replace function get_document_file(p_document_id bigint)
returns text
language sql
stable
as $$
    select encode(pdf, 'base64') from document_files where document_id = p_document_id;
$$;
