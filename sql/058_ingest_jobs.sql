-- Background ingestion: one row per uploaded file, in the uploader's workspace. The row holds the file itself
-- (so that a worker on another machine reads it from the database), the job's state and its progress. Inserting a
-- queued row defers its procrastinate job (057) in the same transaction: a job exists exactly when its row does.
-- The app (rag_app) enqueues and lists its own workspace's jobs; workers (the owner's login) run them through the
-- owner-only functions below. The same file queued twice while the first is waiting or running is one job
-- (unique index), and a file already in the library is not queued at all.
create table if not exists ingest_jobs (
    id bigserial primary key,
    workspace text default current_workspace(),
    file_name text not null,
    sha256 text not null,
    size_bytes bigint not null,
    pdf bytea,  -- the upload; dropped when the job ends
    status text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed')),
    stage text,
    done integer not null default 0,
    total integer not null default 0,
    attempts integer not null default 0,
    document_id bigint references documents (id) on delete set null,
    error text,
    summary jsonb,
    queue_job_id bigint,
    created_at timestamptz not null default now(),
    started_at timestamptz,
    updated_at timestamptz not null default now(),
    finished_at timestamptz
);
create unique index if not exists ingest_jobs_one_active on ingest_jobs (coalesce(workspace, ''), sha256)
    where status in ('queued', 'running');
create index if not exists ingest_jobs_recent on ingest_jobs (coalesce(workspace, ''), created_at desc);

-- A queued row defers its job; security definer because only the owner may touch the queue's tables (057).
create or replace function ingest_jobs_defer()
returns trigger
language plpgsql
security definer
set search_path = public, pg_temp
as $$
begin
    new.queue_job_id := (procrastinate_defer_jobs_v1(array[row(
        'ingest', 'ingest_job', 0, null, null, jsonb_build_object('job_id', new.id), null
    )::procrastinate_job_to_defer_v1]))[1];
    return new;
end;
$$;
drop trigger if exists ingest_jobs_defer on ingest_jobs;
create trigger ingest_jobs_defer before insert on ingest_jobs
    for each row when (new.status = 'queued') execute function ingest_jobs_defer();

-- enqueue_ingest: queue a PDF (base64) of this workspace. Returns the job (new, or the one already waiting for the
-- same file) or, when the file is in the library already, the document: {job_id, status, document_id, duplicate}.
create or replace function enqueue_ingest(p_file_name text, p_pdf_b64 text, p_sha256 text)
returns jsonb
language plpgsql
set search_path = public, pg_temp
as $$
declare
    v_doc bigint;
    v_job ingest_jobs%rowtype;
    v_pdf bytea := decode(p_pdf_b64, 'base64');
begin
    if encode(sha256(v_pdf), 'hex') <> lower(p_sha256) then
        raise exception 'the file does not match its sha256';
    end if;
    select d.id into v_doc from documents d
     where d.sha256 = lower(p_sha256) and coalesce(d.workspace, '') = coalesce(current_workspace(), '') limit 1;
    if v_doc is not null then
        return jsonb_build_object('job_id', null, 'status', 'done', 'document_id', v_doc, 'duplicate', 'document');
    end if;
    select * into v_job from ingest_jobs j
     where j.sha256 = lower(p_sha256) and j.status in ('queued', 'running')
       and coalesce(j.workspace, '') = coalesce(current_workspace(), '');
    if found then
        return jsonb_build_object('job_id', v_job.id, 'status', v_job.status, 'document_id', null, 'duplicate', 'job');
    end if;
    insert into ingest_jobs (file_name, sha256, size_bytes, pdf)
    values (left(p_file_name, 300), lower(p_sha256), length(v_pdf), v_pdf)
    returning * into v_job;
    return jsonb_build_object('job_id', v_job.id, 'status', 'queued', 'document_id', null, 'duplicate', null);
exception when unique_violation then  -- the same file queued at the same instant by another session
    select * into v_job from ingest_jobs j
     where j.sha256 = lower(p_sha256) and j.status in ('queued', 'running')
       and coalesce(j.workspace, '') = coalesce(current_workspace(), '');
    return jsonb_build_object('job_id', v_job.id, 'status', v_job.status, 'document_id', null, 'duplicate', 'job');
end;
$$;

-- list_ingest_jobs: this workspace's jobs, newest first (never the file's bytes).
create or replace function list_ingest_jobs(p_limit integer default 100)
returns table (id bigint, file_name text, status text, stage text, done integer, total integer, attempts integer,
               document_id bigint, error text, summary jsonb, size_bytes bigint, created_at timestamptz,
               started_at timestamptz, updated_at timestamptz, finished_at timestamptz)
language sql
stable
set search_path = public, pg_temp
as $$
    select j.id, j.file_name, j.status, j.stage, j.done, j.total, j.attempts, j.document_id, j.error, j.summary,
           j.size_bytes, j.created_at, j.started_at, j.updated_at, j.finished_at
      from ingest_jobs j
     where coalesce(j.workspace, '') = coalesce(current_workspace(), '')
     order by j.created_at desc, j.id desc
     limit least(greatest(coalesce(p_limit, 100), 1), 1000);
$$;

-- ingest_workers_alive: workers whose heartbeat is at most p_seconds old (any workspace's: workers serve all).
create or replace function ingest_workers_alive(p_seconds integer default 30)
returns integer
language sql
stable
security definer
set search_path = public, pg_temp
as $$
    select count(*)::integer from procrastinate_workers
     where last_heartbeat > now() - make_interval(secs => greatest(p_seconds, 1));
$$;

-- The worker's side (owner only). begin: running, one more attempt; returns what the worker needs, or null when
-- the job is gone or over.
create or replace function ingest_job_begin(p_job_id bigint)
returns jsonb
language sql
set search_path = public, pg_temp
as $$
    update ingest_jobs set status = 'running', attempts = attempts + 1, started_at = now(), updated_at = now(),
                           stage = 'starting', done = 0, total = 0, error = null
     where id = p_job_id and status in ('queued', 'running') and pdf is not null
    returning jsonb_build_object('job_id', id, 'workspace', workspace, 'file_name', file_name, 'sha256', sha256,
                                 'attempts', attempts, 'pdf_b64', encode(pdf, 'base64'));
$$;

create or replace function ingest_job_progress(p_job_id bigint, p_stage text, p_done integer, p_total integer)
returns void
language sql
set search_path = public, pg_temp
as $$
    update ingest_jobs set stage = left(p_stage, 40), done = p_done, total = p_total, updated_at = now()
     where id = p_job_id and status = 'running';
$$;

-- end: done or failed, with the document or the one-line error; the file's bytes go (the document keeps its own).
create or replace function ingest_job_end(p_job_id bigint, p_status text, p_document_id bigint default null,
                                          p_error text default null, p_summary jsonb default null)
returns void
language sql
set search_path = public, pg_temp
as $$
    update ingest_jobs set status = p_status, document_id = p_document_id, error = left(p_error, 500),
                           summary = p_summary, pdf = null, finished_at = now(), updated_at = now(),
                           stage = case when p_status = 'done' then 'done' else stage end
     where id = p_job_id and p_status in ('done', 'failed');
$$;

-- requeue: a job whose worker stopped sending heartbeats (killed, machine lost) waits again.
create or replace function ingest_job_requeue(p_job_id bigint)
returns void
language sql
set search_path = public, pg_temp
as $$
    update ingest_jobs set status = 'queued', stage = 'retrying', updated_at = now()
     where id = p_job_id and status = 'running';
$$;

do $$
declare
    f text;
begin
    foreach f in array array['ingest_jobs_defer()', 'enqueue_ingest(text, text, text)', 'list_ingest_jobs(integer)',
                             'ingest_workers_alive(integer)', 'ingest_job_begin(bigint)',
                             'ingest_job_progress(bigint, text, integer, integer)',
                             'ingest_job_end(bigint, text, bigint, text, jsonb)', 'ingest_job_requeue(bigint)'] loop
        execute format('revoke execute on function %s from public', f);
        if exists (select 1 from pg_roles where rolname = 'service_role') then
            execute format('grant execute on function %s to service_role', f);
        end if;
    end loop;
    revoke all on ingest_jobs from public;
    alter table ingest_jobs enable row level security;
    if exists (select 1 from pg_roles where rolname = 'anon') then
        revoke all on ingest_jobs from anon, authenticated;
    end if;
    if exists (select 1 from pg_roles where rolname = 'service_role') then
        grant all on ingest_jobs to service_role;
        grant usage, select on sequence ingest_jobs_id_seq to service_role;
    end if;
    if exists (select 1 from pg_roles where rolname = 'rag_app') then
        grant select, insert, delete on ingest_jobs to rag_app;
        grant usage, select on sequence ingest_jobs_id_seq to rag_app;
        grant execute on function enqueue_ingest(text, text, text) to rag_app;
        grant execute on function list_ingest_jobs(integer) to rag_app;
        grant execute on function ingest_workers_alive(integer) to rag_app;
        drop policy if exists app_ingest_jobs on ingest_jobs;
        create policy app_ingest_jobs on ingest_jobs for all to rag_app
            using (coalesce(workspace, '') = coalesce((select current_workspace()), ''))
            with check (coalesce(workspace, '') = coalesce((select current_workspace()), ''));
    end if;
end
$$;
