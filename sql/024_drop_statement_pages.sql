-- statement_pages (020–022) is no longer used: a statement's title is a heading at ingestion, so the chunk's
-- heading path says which statement it holds (rag/statements.py), with no regex over the store at query time.
drop function if exists statement_pages(text, text, bigint[]);
