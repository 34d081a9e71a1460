-- Relations between documents, e.g. previous/next period of the same issuer.
create table if not exists document_relations (
    source_id  bigint not null references documents (id) on delete cascade,
    target_id  bigint not null references documents (id) on delete cascade,
    relation   text not null,
    primary key (source_id, target_id, relation)
);
create index if not exists document_relations_target_idx on document_relations (target_id);
