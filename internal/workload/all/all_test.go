package all

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/oltp"
)

func TestAll(t *testing.T) {
	want := []string{
		"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select",
		"oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp_delete", "tpcc", "select_random_points", "pgbench", "fileio", "noop",
	}
	a, b := All(), All()
	if len(a) != len(want) {
		t.Fatalf("All() has %d workloads, want %d", len(a), len(want))
	}
	seen := map[string]bool{}
	for i, w := range a {
		m := w.Meta()
		if m.Name != want[i] {
			t.Errorf("All()[%d] = %s, want %s", i, m.Name, want[i])
		}
		if seen[m.Name] {
			t.Errorf("duplicate workload %s", m.Name)
		}
		seen[m.Name] = true
		if w == b[i] {
			t.Errorf("%s: All() returned the same value twice; want fresh instances", m.Name)
		}
		if m.Short == "" || m.Long == "" || len(m.Ops) == 0 || m.Event == "" {
			t.Errorf("%s: incomplete description", m.Name)
		}
		if err := w.Validate(); err != nil {
			t.Errorf("%s: defaults do not validate: %v", m.Name, err)
		}
	}
	// Flags bound on one value do not change another's options.
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	a[0].BindFlags(fs)
	if err := fs.Parse([]string{"--tables=7"}); err != nil {
		t.Fatal(err)
	}
	if got := a[0].Options().(oltp.Options).Tables; got != 7 {
		t.Errorf("tables after flag = %v", got)
	}
	if got := b[0].Options().(oltp.Options).Tables; got != 1 {
		t.Errorf("fresh instance tables = %v, want 1", got)
	}
}

// TestMeta: what each workload's Meta says matches what it does: a
// workload with checks has instances that check, one with steps has
// instances that select them, one without prepare is noop; the result
// records the options Meta lists, and those that shape the data are the
// ones prepare loads by.
func TestMeta(t *testing.T) {
	data := map[string][]string{
		"tpcc": {"warehouses"}, "select_random_points": {"table-size"}, "fileio": {"size"}, "noop": nil, "pgbench": {"scale", "fillfactor"},
	}
	for _, w := range All() {
		m := w.Meta()
		if err := w.Validate(); err != nil {
			t.Fatal(err)
		}
		raw := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
		switch m.Name {
		case "fileio":
			raw = filepath.Join(t.TempDir(), "x.dat")
		case "noop":
			raw = ""
		case "pgbench": // PostgreSQL only; opening does not connect
			raw = "postgres://u@127.0.0.1:1/x"
		}
		tg, err := w.ParseTarget(raw, workload.TargetOptions{})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		in, err := tg.Open(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if ok := in.Hooks().Check != nil; ok != m.Check {
			t.Errorf("%s: Meta.Check %v, instance with Check %v", m.Name, m.Check, ok)
		}
		if ok := in.Hooks().SetVariant != nil; ok != (len(m.Variants) > 0) {
			t.Errorf("%s: %d variants, instance with SetVariant %v", m.Name, len(m.Variants), ok)
		}
		in.Close()
		if m.Prepare != (m.Name != "noop") {
			t.Errorf("%s: Meta.Prepare %v", m.Name, m.Prepare)
		}
		rec, err := workload.Record(w.Options())
		if err != nil {
			t.Fatal(err)
		}
		var names, shaping []string
		for _, o := range m.Options {
			names = append(names, o.Name)
			if o.Data {
				shaping = append(shaping, o.Name)
			}
			if o.Type == "" {
				t.Errorf("%s: option %s has no type", m.Name, o.Name)
			}
		}
		for k := range rec {
			if !slices.Contains(names, k) {
				t.Errorf("%s: the result records %s, which Meta.Options does not list", m.Name, k)
			}
		}
		want, ok := data[m.Name]
		if !ok {
			want = []string{"tables", "table-size", "auto-inc", "create-secondary", "create-table-options"}
		}
		if !slices.Equal(shaping, want) {
			t.Errorf("%s: options shaping the data %v, want %v", m.Name, shaping, want)
		}
	}
}
