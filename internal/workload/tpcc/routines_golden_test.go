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
