package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigIsRecorded: --config names the configuration under test in the
// result, the sweep file, the summary and the history, where list filters
// by it; without it the label stands in (session's TestConfigName has the
// rest of the rule).
func TestConfigIsRecorded(t *testing.T) {
	dir := t.TempDir()
	db, hist := "sqlite:"+filepath.Join(dir, "db.sqlite"), "sqlite:"+filepath.Join(dir, "h.db")
	common := []string{"--target", db, "--prepare", "always", "--table-size", "1000", "--threads", "1", "--time", "300ms", "--report-interval", "300ms", "--history", hist}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", "24 vCPU", "--label", "tuned"}, "24 vCPU"},
		{[]string{"--label", "tuned"}, "tuned"},
	} {
		out := filepath.Join(dir, "r.json")
		o := run(t, context.Background(), append(append([]string{"run", "oltp_point_select", "--out", out}, common...), tc.args...)...)
		if o.code != ExitOK {
			t.Fatalf("%q: exit %d\n%s", tc.args, o.code, o.stderr)
		}
		if r := mustReadResult(t, out); r.Config != tc.want {
			t.Errorf("%q: config %q, want %q", tc.args, r.Config, tc.want)
		}
		if !strings.Contains(o.stdout, "config: "+tc.want) {
			t.Errorf("%q: the summary does not name the configuration:\n%s", tc.args, o.stdout)
		}
	}
	o := run(t, context.Background(), "history", "list", "--history", hist, "--config", "24 vCPU")
	if o.code != ExitOK || strings.Count(o.stdout, "\n20") != 1 || !strings.Contains(o.stdout, "24 vCPU") {
		t.Errorf("history list --config: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	sweep := filepath.Join(dir, "s.json")
	o = run(t, context.Background(), "sweep", "oltp_point_select", "--target", db, "--table-size", "1000", "--threads", "1,2", "--time", "300ms",
		"--report-interval", "300ms", "--out", sweep, "--config", "HCI", "--no-history")
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s-sweep.json"))
	if err != nil || !strings.Contains(string(b), `"config": "HCI"`) {
		t.Errorf("the sweep file lacks its configuration: %v\n%.300s", err, b)
	}
	o = run(t, context.Background(), "run", "oltp_point_select", "--target", db, "--config", "two\nlines", "--out", "-", "--no-history")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "--config") {
		t.Errorf("a --config with a newline: exit %d, want %d\n%s", o.code, ExitUsage, o.stderr)
	}
}
