-- Conversations on the Ask page, kept in the database so a reload, another tab or another day finds them: a
-- conversation (title, times) and its turns (the question, the answer's JSON as `ask --json` gives it, the
-- follow-ups offered). A conversation belongs to the workspace that started it (the caller's, see
-- current_workspace()); row-level security shows a team only its own, as for feedback and the query log.
-- Like feedback, conversations are the app's (rag_app, service_role): Supabase's API roles get no access.
create table if not exists conversations (
    id         bigint generated always as identity primary key,
    workspace  text default current_workspace(),
    title      text not null default 'New chat',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);
create index if not exists conversations_updated_idx on conversations (workspace, updated_at desc);

create table if not exists conversation_turns (
    id              bigint generated always as identity primary key,
    conversation_id bigint not null references conversations(id) on delete cascade,
    position        int not null,
    question        text not null,
    answer          jsonb not null,
    follow_ups      text[] not null default '{}',
    created_at      timestamptz not null default now(),
    unique (conversation_id, position)
);

alter table conversations enable row level security;
alter table conversation_turns enable row level security;

-- create_conversation(title): a new, empty conversation of the caller's workspace; its id.
create or replace function create_conversation(p_title text default null)
returns bigint
language sql
set search_path = public, pg_temp
as $$
    insert into conversations (title) values (coalesce(nullif(btrim(p_title), ''), 'New chat')) returning id;
$$;

-- add_conversation_turn(id, question, answer, follow_ups): append a turn; the first question titles the
-- conversation. Returns the turn's position (0-based), or null when the conversation is not the caller's.
create or replace function add_conversation_turn(p_conversation_id bigint, p_question text, p_answer jsonb,
                                                 p_follow_ups text[] default '{}')
returns int
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_pos int;
begin
    perform 1 from conversations where id = p_conversation_id for update;
    if not found then
        return null;
    end if;
    select coalesce(max(position) + 1, 0) into v_pos from conversation_turns where conversation_id = p_conversation_id;
    insert into conversation_turns (conversation_id, position, question, answer, follow_ups)
    values (p_conversation_id, v_pos, p_question, p_answer, coalesce(p_follow_ups, '{}'));
    update conversations
       set updated_at = now(),
           title = case when title = 'New chat' then left(regexp_replace(btrim(p_question), '\s+', ' ', 'g'), 80)
                        else title end
     where id = p_conversation_id;
    return v_pos;
end;
$$;

-- list_conversations(limit): the caller's conversations, most recent first, with their number of turns.
create or replace function list_conversations(p_limit int default 50)
returns table (conversation_id bigint, title text, created_at timestamptz, updated_at timestamptz, turns int)
language sql
stable
set search_path = public, pg_temp
as $$
    select c.id, c.title, c.created_at, c.updated_at,
           (select count(*)::int from conversation_turns t where t.conversation_id = c.id)
      from conversations c
     order by c.updated_at desc, c.id desc
     limit greatest(1, least(coalesce(p_limit, 50), 500));
$$;

-- get_conversation(id): its turns in order (nothing when it is not the caller's).
create or replace function get_conversation(p_conversation_id bigint)
returns table (conversation_id bigint, title text, turn int, question text, answer jsonb, follow_ups text[],
               created_at timestamptz)
language sql
stable
set search_path = public, pg_temp
as $$
    select c.id, c.title, t.position, t.question, t.answer, t.follow_ups, t.created_at
      from conversations c
      left join conversation_turns t on t.conversation_id = c.id
     where c.id = p_conversation_id
     order by t.position;
$$;

-- delete_conversation(id): true when a conversation of the caller's was deleted.
create or replace function delete_conversation(p_conversation_id bigint)
returns boolean
language sql
set search_path = public, pg_temp
as $$
    with gone as (delete from conversations where id = p_conversation_id returning 1)
    select exists (select 1 from gone);
$$;

do $$
declare
    fns text[] := array['create_conversation(text)', 'add_conversation_turn(bigint, text, jsonb, text[])',
                        'list_conversations(int)', 'get_conversation(bigint)', 'delete_conversation(bigint)'];
    f text;
begin
    foreach f in array fns loop
        execute format('revoke execute on function %s from public', f);
        if exists (select 1 from pg_roles where rolname = 'service_role') then
            execute format('grant execute on function %s to service_role', f);
        end if;
        if exists (select 1 from pg_roles where rolname = 'rag_app') then
            execute format('grant execute on function %s to rag_app', f);
        end if;
    end loop;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on conversations, conversation_turns to service_role;
        grant usage, select on sequence conversations_id_seq, conversation_turns_id_seq to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert, update, delete on conversations, conversation_turns to rag_app;
        grant usage, select on sequence conversations_id_seq, conversation_turns_id_seq to rag_app;
        drop policy if exists app_conversations on conversations;
        create policy app_conversations on conversations for all to rag_app
            using (coalesce(workspace, '') = coalesce((select current_workspace()), ''))
            with check (coalesce(workspace, '') = coalesce((select current_workspace()), ''));
        drop policy if exists app_conversation_turns on conversation_turns;
        create policy app_conversation_turns on conversation_turns for all to rag_app
            using (conversation_id in (select c.id from conversations c))
            with check (conversation_id in (select c.id from conversations c));
    end if;
end
$$;
