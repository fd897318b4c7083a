package pgbenchscript

import (
	"fmt"
	"strings"
)

// Builtin is one of pgbench's built-in scripts.
type Builtin struct {
	Name   string // as -b takes it
	Desc   string // as pgbench describes it
	Script string
}

// Builtins are pgbench's built-in scripts, their text as pgbench's.
var Builtins = []Builtin{
	{"tpcb-like", "<builtin: TPC-B (sort of)>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"simple-update", "<builtin: simple update>", `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`},
	{"select-only", "<builtin: select only>", `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`},
}

// FindBuiltin returns the built-in script name names: its name or an
// unambiguous prefix of it, as pgbench's -b takes it.
func FindBuiltin(name string) (Builtin, error) {
	var found []Builtin
	for _, b := range Builtins {
		if b.Name == name {
			return b, nil
		}
		if strings.HasPrefix(b.Name, name) && name != "" {
			found = append(found, b)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return Builtin{}, fmt.Errorf("no builtin script found for name %q (one of: %s)", name, builtinNames())
	}
	return Builtin{}, fmt.Errorf("ambiguous builtin name: %d builtin scripts found for prefix %q (one of: %s)", len(found), name, builtinNames())
}

func builtinNames() string {
	var n []string
	for _, b := range Builtins {
		n = append(n, b.Name)
	}
	return strings.Join(n, ", ")
}
