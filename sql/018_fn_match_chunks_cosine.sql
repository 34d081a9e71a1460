-- match_chunks_cosine(query_embedding, match_count): plain cosine top-k over every chunk, no filters,
-- no full text: the old system's retriever, kept as the baseline that `rag eval --baseline` reports beside ours.
-- Same columns as match_chunks (text rank 0, fused score = cosine similarity).
create or replace function match_chunks_cosine(query_embedding vector, match_count int default 5)
returns table (
    chunk_id bigint, document_id bigint, chunk_index int, page_start int, page_end int, heading text,
    section_type text, content text, file_name text, cosine_similarity double precision
)
language sql
stable
as $$
    select c.id, c.document_id, c.chunk_index, c.page_start, c.page_end, c.heading, c.section_type, c.content,
           d.file_name, 1 - (c.embedding <=> query_embedding)
      from chunks c join documents d on d.id = c.document_id
     order by c.embedding <=> query_embedding
     limit match_count;
$$;
