-- One row per store-wide fact, e.g. the embedding model and dimension the vectors were made with.
create table if not exists store_info (
    key   text primary key,
    value text not null
);
