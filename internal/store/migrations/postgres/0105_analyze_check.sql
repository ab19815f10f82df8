-- PostgreSQL's form of migrations/sqlite/0105_analyze_check.sql (same name).
-- Issue 25: the check refreshes the planner's statistics of calls and
-- records first (a load just before leaves them stale, and the check then
-- took 73 s instead of 3 s), but PostgreSQL lets only a table's owner (or
-- the database's; from 17, a role granted MAINTAIN) run ANALYZE, and skips
-- the tables of anyone else with a mere warning. The owner, who runs the
-- migrations, makes this function for the roles the hosts use: it runs
-- ANALYZE as the owner, on the check's two tables only.
CREATE FUNCTION svcrecon_analyze(tables TEXT) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
DECLARE
    t TEXT;
BEGIN
    FOREACH t IN ARRAY string_to_array(tables, ',') LOOP
        IF t IN ('calls', 'records') THEN
            EXECUTE format('ANALYZE %I', t);
        END IF;
    END LOOP;
END
$$;
