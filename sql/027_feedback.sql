-- Thumbs up / down on answers, with the question, the answer and the chunks it cited.
create table if not exists feedback (
    id         bigint generated always as identity primary key,
    created_at timestamptz not null default now(),
    question   text not null,
    answer     text not null,
    chunk_ids  bigint[] not null default '{}',
    rating     int not null check (rating in (-1, 1)),
    comment    text
);

create or replace function add_feedback(p_question text, p_answer text, p_chunk_ids bigint[], p_rating int,
                                        p_comment text default null)
returns bigint
language sql
as $$
    insert into feedback (question, answer, chunk_ids, rating, comment)
    values (p_question, p_answer, coalesce(p_chunk_ids, '{}'), p_rating, p_comment)
    returning id;
$$;

-- feedback_stats(): counts of up / down votes overall and in the last 7 days.
create or replace function feedback_stats()
returns table (total bigint, up bigint, down bigint, last_7_days bigint)
language sql
stable
as $$
    select count(*), count(*) filter (where rating = 1), count(*) filter (where rating = -1),
           count(*) filter (where created_at > now() - interval '7 days')
      from feedback;
$$;
