-- set_reader_password(role, password): a reader login's password, for a Postgres that asks for one (DATABASE_URL); the
-- embedded store needs none. Owner only; the password never reaches a log.

CREATE OR REPLACE FUNCTION public.set_reader_password(p_role text, p_password text) RETURNS void
    LANGUAGE plpgsql
    SET search_path TO 'public', 'pg_temp'
    AS $$
begin
    if not exists (select 1 from reader_roles where role_name = p_role) then
        raise exception '% is not a reader role', p_role;
    end if;
    execute format('alter role %I password %L', p_role, p_password);
end;
$$;

REVOKE ALL ON FUNCTION public.set_reader_password(text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.set_reader_password(text, text) TO service_role;
