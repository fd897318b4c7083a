package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// writeSweep writes a sweep file of workload over axis with steps at xs,
// doing perX events per second per step unit, and returns its path.
func writeSweep(t *testing.T, dir, id, workload, axis string, perX float64, xs ...float64) string {
	t.Helper()
	sw := result.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: workload, Axis: axis, HostIsServer: true}
	for _, x := range xs {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: axis + " " + jsonNum(x), X: x,
			Throughput: perX * x / (1 + 0.2*(x-1)), AvgMs: x, P99Ms: 3 * x})
	}
	b, err := json.Marshal(sw)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, id+"-sweep.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func jsonNum(x float64) string {
	b, _ := json.Marshal(x)
	return string(b)
}

// Two sweeps make one comparison, in every format; its headline leads.
func TestReportComparesSweeps(t *testing.T) {
	dir := t.TempDir()
	a := writeSweep(t, dir, "A", "oltp_point_select", "threads", 1000, 1, 2, 4, 8)
	b := writeSweep(t, dir, "B", "oltp_point_select", "threads", 1200, 1, 2, 4)
	o := run(t, context.Background(), "report", a, b, "--format", "text", "--at", "4")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	first, _, _ := strings.Cut(o.stdout, "\n")
	if !strings.HasPrefix(first, "B: 3,000/s at threads 4, +20 % over A (2,500/s)") {
		t.Errorf("first line %q, want the headline at the last common step (threads 4)", first)
	}
	// By default both have a knee, and each is compared at its own.
	o = run(t, context.Background(), "report", a, b, "--format", "text")
	if first, _, _ := strings.Cut(o.stdout, "\n"); o.code != ExitOK || !strings.HasPrefix(first, "A: 2,500/s at each one's capacity, +25 % over B (2,000/s)") {
		t.Errorf("exit %d, first line %q, want the headline at each one's capacity (its knee)", o.code, first)
	}
	for f, want := range map[string]string{"md": "| A | 2 | 1,667 |", "csv": "A,2,threads 2,2,1666.67", "html": "<td>A</td><td>2</td><td>1,667</td>"} {
		if o := run(t, context.Background(), "report", a, b, "--format", f, "--at", "threads 2", "--sort", "config"); o.code != ExitOK || !strings.Contains(o.stdout, want) {
			t.Errorf("--format %s --at 'threads 2' --sort config: exit %d, no %q\n%s", f, o.code, want, o.stdout+o.stderr)
		}
	}
}

// Sweeps that cannot be overlaid, a step they do not share, a sort key a
// comparison has not and --at without a comparison are usage errors (exit
// 2) with one message.
func TestReportCompareRefuses(t *testing.T) {
	dir := t.TempDir()
	a := writeSweep(t, dir, "A", "oltp_point_select", "threads", 1000, 1, 2, 4)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"workloads", []string{writeSweep(t, dir, "W", "tpcc", "threads", 10, 1, 2, 4)}, "cannot be compared: they are of different workloads (A: oltp_point_select, W: tpcc)"},
		{"axes", []string{writeSweep(t, dir, "R", "oltp_point_select", "rate", 10, 1, 2, 4)}, "cannot be compared: they sweep different axes (A: threads, R: rate)"},
		{"at", []string{writeSweep(t, dir, "B", "oltp_point_select", "threads", 10, 1, 2, 4), "--at", "16"}, `cannot be compared at "16"`},
		{"sort", []string{filepath.Join(dir, "B-sweep.json"), "--sort", "errors"}, "a comparison sorts by config, throughput, avg or p99"},
	} {
		o := run(t, context.Background(), append([]string{"report", a, "--format", "md"}, tc.args...)...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, tc.want) || o.stdout != "" {
			t.Errorf("%s: exit %d, want %d and %q\nstderr: %s", tc.name, o.code, ExitUsage, tc.want, o.stderr)
		}
	}
	if o := run(t, context.Background(), "report", a, "--at", "2"); o.code != ExitUsage || !strings.Contains(o.stderr, "--at picks the step of a comparison") {
		t.Errorf("--at with one sweep: exit %d\n%s", o.code, o.stderr)
	}
}

// TestTextReportAnswersWithThePlan: report --format text|md of a sweep and
// a plan opens with an answer that names the planned VM, as the HTML page
// and the quickstart do (the text and Markdown answers left it out).
func TestTextReportAnswersWithThePlan(t *testing.T) {
	dir := t.TempDir()
	const sweep = "testdata/sweep-written-by-v1.json"
	p := run(t, context.Background(), "plan", "--from", sweep, "--target-rate", "100", "--format", "json")
	if p.code != ExitOK {
		t.Fatalf("plan: exit %d\n%s", p.code, p.stderr)
	}
	planFile := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planFile, []byte(p.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"text", "md"} {
		o := run(t, context.Background(), "report", "--format", f, sweep, planFile)
		answer, _, _ := strings.Cut(o.stdout, "throughput/s") // the steps table's head
		if o.code != ExitOK || !strings.Contains(answer, "Planned VM: recommended") {
			t.Errorf("%s: exit %d, no planned VM in the answer:\n%s%s", f, o.code, o.stdout, o.stderr)
		}
	}
}
