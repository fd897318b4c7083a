// Package custom is the workload a workload file describes
// (docs/workload-files.md, checked by internal/workfile): 'rightsize run
// my-app.yaml' where a built-in workload's name goes; and the one
// interpreter of a workfile.Spec, whatever made it: a file, a capture, or
// pgbench's scripts (OpenScripts, which workload/pgbench opens on its own
// tables). A virtual user runs a transaction's actions in order:
// statements, BEGIN and COMMIT, and a script's \set, \sleep and \if.
//
// Its tables the file creates are the shared routine's (workload/tables:
// prepare, resume, records, refusal of foreign tables, match and cleanup);
// its existing tables (a restored copy of production) are only checked to
// exist, never created, loaded or dropped, and its transactions write them
// only with the user's consent (--allow-writes or allow_writes in the
// file). Each transaction of the mix is one operation, so that every
// result, summary and report shows its response time.
//
// A virtual user prepares every statement once on its connection and
// draws its parameters without allocating (workfile.Gen); the sequences
// are the instance's, shared by its VUs; a sample's values are read once
// per instance from the target.
package custom
