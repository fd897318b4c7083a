package tpcc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/dialect/all"
)

// dumpRoutines is every statement --in-server sends to define, drop and
// call the routines: for each dialect that has them, each routine's name,
// kind, identity, DROP and CREATE, then the calls of each form, under the
// routines' version.
func dumpRoutines(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "routinesVersion %d\n", routinesVersion)
	for _, scheme := range []string{"postgres", "mysql"} {
		d, ok := all.ForScheme(scheme + "://")
		if !ok {
			t.Fatalf("no dialect for %s", scheme)
		}
		fmt.Fprintf(&b, "\n==== dialect %s: %s\n", d.Name(), installedKinds(d))
		for _, r := range routinesFor(d) {
			fmt.Fprintf(&b, "\n---- %s %s\nident: %s\ndrop: %s\ncreate:\n%s\n", r.what, r.name, r.ident, r.drop(), r.create)
		}
		for _, kind := range []string{kindFunctions, kindProcedures} {
			if d.Name() != "postgres" && kind == kindFunctions {
				continue
			}
			fmt.Fprintf(&b, "\n---- calls (%s)\n", kind)
			for t, call := range callsFor(d, kind) {
				fmt.Fprintf(&b, "%s: %s\n", txDefs[t].name, call)
			}
		}
	}
	return b.String()
}

// The SQL of the routines, their identities and their calls are exactly
// testdata/routines.golden.txt: a change of it shows in review, and must
// raise routinesVersion (prepare then replaces what an older rightsize
// installed). Refresh with `go test ./internal/workload/tpcc -run
// RoutinesGolden -update`.
func TestRoutinesGolden(t *testing.T) {
	got := dumpRoutines(t)
	path := filepath.Join("testdata", "routines.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the routines' SQL differs from %s (run with -update if intended, and raise routinesVersion)", path)
	}
}

// New-Order's function raises rollbackMarker on the unused item, twice
// (in the set-based path and the line-by-line one), which inserver.go takes
// for the intended rollback; the procedure rolls back instead.
func TestRoutinesRollbackMarker(t *testing.T) {
	if fn := pgFunctions[newOrder].create; strings.Count(fn, "RAISE EXCEPTION '"+rollbackMarker+": ") != 2 {
		t.Errorf("the function rs_tpcc_new_order does not raise %q on both paths:\n%s", rollbackMarker, fn)
	}
	if p := pgProcedures[newOrder].create; strings.Contains(p, rollbackMarker) || strings.Count(p, "ROLLBACK;") != 2 {
		t.Errorf("the procedure rs_tpcc_new_order_p does not roll back on both paths:\n%s", p)
	}
}

// fromCreate reads a routine's call and identity from its CREATE
// statement's parameters, a type's own commas included, and refuses a
// statement it cannot read.
func TestFromCreate(t *testing.T) {
	r, err := fromCreate("CREATE PROCEDURE p(IN a DECIMAL(6,2), IN b INT,\n\tINOUT c numeric DEFAULT NULL) BEGIN END", true)
	if err != nil {
		t.Fatal(err)
	}
	if r.what != "PROCEDURE" || r.name != "p" || r.ident != "p(DECIMAL(6,2), INT, numeric)" || r.call != "CALL p(?, ?, NULL)" {
		t.Errorf("got %+v", r)
	}
	r, err = fromCreate("CREATE OR REPLACE FUNCTION f(a integer[], OUT x bigint, OUT y text) AS $$ $$", true)
	if err != nil || r.ident != "f(integer[])" || r.call != "SELECT x, y FROM f(?)" {
		t.Errorf("got %+v, %v", r, err)
	}
	for _, bad := range []string{"SELECT 1", "CREATE PROCEDURE p(IN a INT", "CREATE FUNCTION f(a)"} {
		if _, err := fromCreate(bad, true); err == nil {
			t.Errorf("fromCreate(%q) took it", bad)
		}
	}
}
