-- chunk_embeddings(ids): the embedding of each given chunk as text ('[x,y,…]'), for diversity (MMR)
-- computed by the caller over a candidate pool.
create or replace function chunk_embeddings(p_ids bigint[])
returns table (chunk_id bigint, embedding text)
language sql
stable
as $$
    select c.id, c.embedding::text from chunks c where c.id = any(p_ids);
$$;
