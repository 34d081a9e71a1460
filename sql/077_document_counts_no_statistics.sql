-- No planner statistics on the documents' chunk and figure counts (075): a plain EXPLAIN, which any role may run,
-- estimates rows from statistics gathered over every workspace, so "where chunk_count = 4242" estimated 100 rows for
-- a team that sees no such document (found by an independent attack; 070 and 073 did the same for their key
-- columns). The type "change" drops what an earlier ANALYZE kept.
alter table documents alter column chunk_count set statistics 0;
alter table documents alter column figure_count set statistics 0;
alter table documents alter column chunk_count type int;
alter table documents alter column figure_count type int;
