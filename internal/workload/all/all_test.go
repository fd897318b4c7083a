package all

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestAll(t *testing.T) {
	want := []string{
		"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete", "tpcc", "fileio", "noop",
	}
	a, b := All(), All()
	if len(a) != len(want) {
		t.Fatalf("All() has %d workloads, want %d", len(a), len(want))
	}
	seen := map[string]bool{}
	for i, w := range a {
		if w.Name() != want[i] {
			t.Errorf("All()[%d] = %s, want %s", i, w.Name(), want[i])
		}
		if seen[w.Name()] {
			t.Errorf("duplicate workload %s", w.Name())
		}
		seen[w.Name()] = true
		if w == b[i] {
			t.Errorf("%s: All() returned the same value twice; want fresh instances", w.Name())
		}
		if w.Short() == "" || w.Long() == "" || len(w.Ops()) == 0 || w.Event() == "" {
			t.Errorf("%s: incomplete description", w.Name())
		}
		if err := w.Validate(); err != nil {
			t.Errorf("%s: defaults do not validate: %v", w.Name(), err)
		}
	}
	// Flags bound on one value do not change another's options.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	a[0].BindFlags(fs)
	if err := fs.Parse([]string{"--tables=7"}); err != nil {
		t.Fatal(err)
	}
	if got := a[0].Options()["tables"]; got != 7 {
		t.Errorf("tables after flag = %v", got)
	}
	if got := b[0].Options()["tables"]; got != 1 {
		t.Errorf("fresh instance tables = %v, want 1", got)
	}
}
