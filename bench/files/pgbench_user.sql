-- A user's pgbench script (bench/pgbench_vs_pgbench.sh runs it with both
-- tools): a customer looks up an account, the popular ones more often
-- (Zipfian), and one visit in four moves money between the account and
-- its branch, read back with \gset.
\set aid random_zipfian(1, 100000 * :scale, 1.1)
\set delta random(-500, 500)
SELECT abalance, bid FROM pgbench_accounts WHERE aid = :aid \gset
\if random(1, 4) = 1
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
UPDATE pgbench_branches SET bbalance = bbalance - :delta WHERE bid = :bid;
END;
\endif
