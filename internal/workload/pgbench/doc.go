// Package pgbench is the workload named pgbench: pgbench's tables, made as
// 'pgbench -i' makes them, and pgbench's scripts (its built-in tpcb-like,
// simple-update and select-only, and the user's files in pgbench's
// language, read by internal/pgbenchscript and compiled into a
// workfile.Spec by workfile.FromScripts) run by the one interpreter of
// data workloads (workload/custom's virtual users), with pgbench's own flags where they do not collide with
// rightsize's (docs/pgbench.md).
//
// It runs on PostgreSQL only. Its tables are the shared routine's
// (workload/tables): prepare records them in rightsize_objects, and a run
// on tables 'pgbench -i' made (no record) uses them as they are, with a
// note, its :scale counted from pgbench_branches as pgbench counts it.
// Each script is one operation, so that results show its response time.
// A virtual user holds one connection and prepares every statement of
// every script on it once, as pgbench -M prepared does.
package pgbench
