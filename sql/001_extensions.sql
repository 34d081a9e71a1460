-- pgvector for embeddings; full-text search is built in.
create extension if not exists vector;
