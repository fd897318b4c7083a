SELECT 1;
\set aid random(1, 100000 * :scale
