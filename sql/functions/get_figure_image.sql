-- get_figure_image(figure_id): a figure's crop (PNG) as base64 text (JSON-safe for every transport), when the caller
-- may see its document.

CREATE OR REPLACE FUNCTION public.get_figure_image(p_figure_id bigint) RETURNS text
    LANGUAGE sql STABLE
    SET search_path TO 'public', 'pg_temp'
    AS $$
    select encode(image, 'base64') from figures where id = p_figure_id;
$$;

REVOKE ALL ON FUNCTION public.get_figure_image(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.get_figure_image(bigint) TO service_role, anon, authenticated, rag_app;
