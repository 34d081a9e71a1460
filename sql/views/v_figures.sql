-- v_figures: what a reader login (rag_reader) may read of figures: ids, page, kind, caption, chart type and size, never
-- the image. security_invoker: row-level security applies to the reader.

CREATE OR REPLACE VIEW public.v_figures WITH (security_invoker='true') AS
 SELECT id AS figure_id,
    document_id,
    page,
    kind,
    caption,
    chart_type,
    width,
    height
   FROM public.figures f;

GRANT SELECT ON TABLE public.v_figures TO rag_reader;
GRANT ALL ON TABLE public.v_figures TO service_role;
