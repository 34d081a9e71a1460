-- create_conversation(title): a new, empty conversation of the caller's workspace; returns its id.

CREATE OR REPLACE FUNCTION public.create_conversation(p_title text DEFAULT NULL::text) RETURNS bigint
    LANGUAGE sql
    SET search_path TO 'public', 'pg_temp'
    AS $$
    insert into conversations (title) values (coalesce(nullif(btrim(p_title), ''), 'New chat')) returning id;
$$;

REVOKE ALL ON FUNCTION public.create_conversation(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.create_conversation(text) TO service_role, rag_app;
