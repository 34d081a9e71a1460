-- v_chunks: what SQL written by users and models (a reader login, rag_reader) may read of chunks: ids, index, pages,
-- heading, section type and size, never the text. security_invoker: row-level security applies to the reader.

CREATE OR REPLACE VIEW public.v_chunks WITH (security_invoker='true') AS
 SELECT id AS chunk_id,
    document_id,
    chunk_index,
    page_start,
    page_end,
    heading,
    section_type,
    token_count
   FROM public.chunks c;

GRANT SELECT ON TABLE public.v_chunks TO rag_reader;
GRANT ALL ON TABLE public.v_chunks TO service_role;
