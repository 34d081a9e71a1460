-- What a reader login could do that outlives its question or reaches others, taken away where Postgres can:
-- * Temporary tables: PUBLIC may create them in every new database, and temp_file_limit does not count them (a
--   reader logged in directly wrote 224 MB). No role of ours needs one (no function of sql/ creates one), so
--   PUBLIC loses TEMP on this database; the owner keeps it as the database's owner.
-- * Notifications: any login may LISTEN and NOTIFY on any channel (Postgres has no privilege for them), and the
--   job queue's triggers told every listener of every team's job. The store now sends none, and the workers poll
--   instead of listening (rag/jobs.py: listen_notify=False), so a message a reader sends reaches nothing that
--   trusts it, and a reader listening hears nothing.
do $$
begin
    execute format('revoke temporary on database %I from public', current_database());
exception when insufficient_privilege then
    raise notice 'cannot revoke TEMP on database % here (%): temporary tables stay open to PUBLIC',
        current_database(), sqlerrm;
end
$$;

alter table procrastinate_jobs disable trigger procrastinate_jobs_notify_queue_job_inserted_v1;
alter table procrastinate_jobs disable trigger procrastinate_jobs_notify_queue_job_aborted_v1;
