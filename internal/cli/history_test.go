package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/testenv"
)

// runHistory runs "rightsize history ARGS..." with an environment of vars,
// mapping errors to exit codes as Main does.
func runHistory(t *testing.T, vars map[string]string, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }}
	root := &cobra.Command{Use: "rightsize", SilenceUsage: true, SilenceErrors: true}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(historyCommand(&env))
	root.SetArgs(append([]string{"history"}, args...))
	root.SetOut(&out)
	root.SetErr(&errb)
	code := ExitOK
	if err := root.ExecuteContext(context.Background()); err != nil {
		code = exitCode(err)
		fmt.Fprintf(&errb, "rightsize: %s\n", err)
	}
	return outcome{code, out.String(), errb.String()}
}

// fakeRun is a synthetic result: tps events per second with a p99 of p99
// ms, each figure off by up to ±1 % from run to run and interval to
// interval (rng).
func fakeRun(rng *rand.Rand, id, label string, started time.Time, tps, p99 float64) *result.Run {
	j := func() float64 { return 1 + 0.01*(2*rng.Float64()-1) }
	lat := func(p float64) result.Latency {
		return result.Latency{AvgMs: p / 3, P50Ms: p / 4, P95Ms: p * 0.7, P99Ms: p, P999Ms: p * 2, MaxMs: p * 3}
	}
	tps, p99 = tps*j(), p99*j()
	r := &result.Run{SchemaVersion: result.SchemaVersion, Tool: result.Tool{Name: "rightsize"}, ID: id, Label: label,
		Workload: "oltp_read_write", Event: "transaction", Options: map[string]any{},
		Load:    result.Load{Mode: "closed", Threads: 4, DurationS: 20, IntervalS: 1},
		Started: started, Ended: started.Add(20 * time.Second),
		Summary: result.Summary{Unit: "transactions", Throughput: tps, Count: int64(tps * 20), Latency: lat(p99), DurationS: 20},
		Ops:     []result.Op{{Name: "transaction", Kind: "event", Count: int64(tps * 20), Rate: tps, Latency: lat(p99)}},
		Instances: []result.InstancePart{{Target: "postgres://bob@db:5432/sbtest", Dialect: "postgres",
			Summary: result.Summary{Unit: "transactions", Throughput: tps}}},
	}
	for i := range 20 {
		it := tps * j()
		r.Intervals = append(r.Intervals, result.Interval{EndS: float64(i + 1), DurationS: 1, Phase: "measure",
			Events: int64(it), Rate: it, Latency: lat(p99 * j())})
	}
	return r
}

func writeRun(t *testing.T, dir string, r *result.Run) string {
	t.Helper()
	path := filepath.Join(dir, r.ID+"-"+r.Workload+".json")
	var b bytes.Buffer
	if err := result.Encode(&b, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var hist0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// regression writes n baseline runs labelled "base" and n candidate runs
// labelled "cand" with 10 % less throughput and a 10 % higher p99.
func regression(t *testing.T, dir string, n int) (base, cand []string) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range n {
		at := hist0.Add(time.Duration(i) * time.Minute)
		base = append(base, writeRun(t, dir, fakeRun(rng, fmt.Sprintf("20250301T12%02d00Z-b0000%d", i, i), "base", at, 1000, 10)))
		cand = append(cand, writeRun(t, dir, fakeRun(rng, fmt.Sprintf("20250301T13%02d00Z-c0000%d", i, i), "cand", at.Add(time.Hour), 900, 11)))
	}
	return base, cand
}

func TestHistoryDSN(t *testing.T) {
	for _, tc := range []struct {
		flag string
		vars map[string]string
		want string
	}{
		{"postgres://h/db", map[string]string{"RIGHTSIZE_HISTORY": "sqlite:/x.db", "HOME": "/home/u"}, "postgres://h/db"},
		{"", map[string]string{"RIGHTSIZE_HISTORY": "sqlite:/x.db", "XDG_DATA_HOME": "/d", "HOME": "/home/u"}, "sqlite:/x.db"},
		{"", map[string]string{"XDG_DATA_HOME": "/d", "HOME": "/home/u"}, "sqlite:/d/rightsize/history.db"},
		{"", map[string]string{"XDG_DATA_HOME": "relative", "HOME": "/home/u"}, "sqlite:/home/u/.local/share/rightsize/history.db"},
		{"", map[string]string{"HOME": "/home/u"}, "sqlite:/home/u/.local/share/rightsize/history.db"},
		{"", nil, ""},
	} {
		env := &Env{Getenv: func(k string) string { return tc.vars[k] }}
		if got := historyDSN(env, tc.flag); got != tc.want {
			t.Errorf("historyDSN(%q, %v) = %q, want %q", tc.flag, tc.vars, got, tc.want)
		}
	}
}

func TestHistoryImportListShowDelete(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"XDG_DATA_HOME": filepath.Join(dir, "data")}
	base, cand := regression(t, dir, 1)

	o := runHistory(t, vars, "import", base[0], cand[0])
	if o.code != ExitOK || strings.Count(o.stdout, "imported run") != 2 {
		t.Fatalf("import: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "rightsize", "history.db")); err != nil {
		t.Errorf("the default catalog is not under XDG_DATA_HOME: %v", err)
	}
	o = runHistory(t, vars, "import", base[0])
	if o.code != ExitOK || !strings.Contains(o.stdout, "already in the catalog: run 20250301T120000Z-b00000-oltp_read_write-base") {
		t.Errorf("re-import: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema_version": 99}`), 0o644)
	o = runHistory(t, vars, "import", bad, base[0])
	if o.code != ExitFailure || !strings.Contains(o.stderr, "bad.json") || !strings.Contains(o.stdout, "already") {
		t.Errorf("import of a bad file: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}

	o = runHistory(t, vars, "list", "--wide")
	bk, ck := "20250301T120000Z-b00000-oltp_read_write-base", "20250301T130000Z-c00000-oltp_read_write-cand"
	if o.code != ExitOK || !strings.Contains(o.stdout, bk) || !strings.Contains(o.stdout, ck) || strings.Index(o.stdout, ck) > strings.Index(o.stdout, bk) {
		t.Errorf("list (want both, newest first): exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// Fitted to a terminal, a run whose id names it alone is listed by it.
	if o := runHistory(t, vars, "list"); !strings.Contains(lineOf(o.stdout, "20250301T120000Z-b00000 "), "base") {
		t.Errorf("list: the run is not listed by its id:\n%s", o.stdout)
	}
	o = runHistory(t, vars, "list", "--label", "cand", "--wide")
	if o.code != ExitOK || strings.Contains(o.stdout, bk) || !strings.Contains(o.stdout, ck) {
		t.Errorf("list --label cand: exit %d\n%s", o.code, o.stdout)
	}

	o = runHistory(t, vars, "show", "20250301T12")
	if o.code != ExitOK || !strings.Contains(o.stdout, "run "+bk) || !strings.Contains(o.stdout, "oltp_read_write [base]") || !strings.Contains(o.stdout, "latency ms avg") {
		t.Errorf("show: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = runHistory(t, vars, "show", "2025")
	if o.code != ExitFailure || !strings.Contains(o.stderr, "ambiguous") || !strings.Contains(o.stderr, bk) {
		t.Errorf("show of an ambiguous prefix: exit %d\n%s", o.code, o.stderr)
	}

	o = runHistory(t, vars, "delete", "20250301T13")
	if o.code != ExitOK || !strings.Contains(o.stdout, "deleted run "+ck) {
		t.Errorf("delete: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = runHistory(t, vars, "list", "--wide")
	if strings.Contains(o.stdout, ck) || !strings.Contains(o.stdout, bk) {
		t.Errorf("list after delete:\n%s", o.stdout)
	}
	o = runHistory(t, vars, "delete", ck)
	if o.code != ExitFailure || !strings.Contains(o.stderr, "not in the catalog") {
		t.Errorf("delete again: exit %d\n%s", o.code, o.stderr)
	}
}

func TestHistoryCompareFailIfSlower(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"XDG_DATA_HOME": dir}
	base, cand := regression(t, dir, 3)
	if o := runHistory(t, vars, append([]string{"import"}, append(base, cand...)...)...); o.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", o.code, o.stderr)
	}
	// Labels: three runs a side, a bootstrap over runs.
	o := runHistory(t, vars, "compare", "base", "cand", "--fail-if-slower", "5%")
	if o.code != ExitFailure || !strings.Contains(o.stderr, "slower than the baseline by more than 5%") {
		t.Errorf("10 %% slower with --fail-if-slower 5%%: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{`label "base": 3 run(s) of oltp_read_write`, "bootstrap over runs (3 baseline, 3 candidate)", "throughput /s", "p99 ms", "slower", "overall: slower"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("compare output lacks %q:\n%s", want, o.stdout)
		}
	}
	o = runHistory(t, vars, "compare", "base", "cand", "--fail-if-slower", "20%")
	if o.code != ExitOK || !strings.Contains(o.stdout, "no regression beyond 20%") {
		t.Errorf("--fail-if-slower 20%%: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = runHistory(t, vars, "compare", "base", "cand")
	if o.code != ExitOK {
		t.Errorf("without --fail-if-slower: exit %d\n%s", o.code, o.stderr)
	}
	// Files and a key prefix: one run a side, a bootstrap over intervals.
	o = runHistory(t, vars, "compare", base[0], "20250301T1300", "--fail-if-slower", "5")
	if o.code != ExitFailure || !strings.Contains(o.stdout, "measured report intervals") {
		t.Errorf("file vs key: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// Files only need no catalog.
	o = runHistory(t, nil, "compare", base[0], cand[0], "--fail-if-slower", "20%")
	if o.code != ExitOK {
		t.Errorf("files without a catalog: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// One interval a side: no interval can be computed, and the gate fails
	// rather than pass blind.
	short := func(r *result.Run) *result.Run { r.Intervals = r.Intervals[:1]; return r }
	rng := rand.New(rand.NewPCG(1, 1))
	a := writeRun(t, dir, short(fakeRun(rng, "20250302T000000Z-aaaaaa", "", hist0, 1000, 10)))
	b := writeRun(t, dir, short(fakeRun(rng, "20250302T000000Z-bbbbbb", "", hist0, 500, 10)))
	if o := runHistory(t, vars, "compare", a, b); o.code != ExitOK || !strings.Contains(o.stdout, "not enough data") {
		t.Errorf("one interval a side: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := runHistory(t, vars, "compare", a, b, "--fail-if-slower", "5%"); o.code != ExitFailure || !strings.Contains(o.stderr, "cannot tell") {
		t.Errorf("one interval a side, --fail-if-slower: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, args := range [][]string{
		{"compare", "base"},
		{"compare", "base", "cand", "--fail-if-slower", "much"},
		{"compare", "base", "cand", "--rounds", "5"},
	} {
		if o := runHistory(t, vars, args...); o.code != ExitUsage {
			t.Errorf("%q: exit %d, want %d\n%s", args, o.code, ExitUsage, o.stderr)
		}
	}
	if o := runHistory(t, vars, "compare", "base", "nothing-like-it"); o.code != ExitFailure || !strings.Contains(o.stderr, "nothing-like-it") {
		t.Errorf("unknown side: exit %d\n%s", o.code, o.stderr)
	}
}

func TestRecordInHistoryTiesTheSweep(t *testing.T) {
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "h.db")
	rng := rand.New(rand.NewPCG(1, 1))
	id := "20250301T120000Z-5eeeee"
	var runs []*result.Run
	var paths []string
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: "oltp_read_write", Axis: "threads"}
	for i, n := range []int{1, 2} {
		r := fakeRun(rng, id, fmt.Sprintf("threads %d", n), hist0.Add(time.Duration(i)*time.Minute), float64(100*n), 5)
		r.Options["sweep_step"] = r.Label
		runs = append(runs, r)
		paths = append(paths, filepath.Join(dir, fmt.Sprintf("r%d.json", i)))
		sw.Steps = append(sw.Steps, result.SweepStep{Label: r.Label, X: float64(n), Throughput: r.Summary.Throughput, P99Ms: 5})
	}
	var out bytes.Buffer
	env := &Env{Stdout: &out, Getenv: func(string) string { return "" }}
	if err := app.Record(context.Background(), env, dsn, runs, paths, sw, filepath.Join(dir, "s.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "history: 2 runs and the sweep recorded in "+dsn) {
		t.Errorf("said %q", out.String())
	}
	// Again: nothing doubles.
	if err := app.Record(context.Background(), env, dsn, runs, paths, sw, ""); err != nil {
		t.Fatal(err)
	}
	o := runHistory(t, nil, "list", "--history", dsn)
	if strings.Count(o.stdout, id) != 3 || !strings.Contains(lineOf(o.stdout, id+"…threads2"), "threads 2") || !strings.Contains(o.stdout, id+"-oltp_read_write-sweep") {
		t.Errorf("list:\n%s\n%s", o.stdout, o.stderr)
	}
	if o := runHistory(t, nil, "list", "--wide", "--history", dsn); !strings.Contains(o.stdout, "sweep step threads 2") {
		t.Errorf("list --wide:\n%s\n%s", o.stdout, o.stderr)
	}
	o = runHistory(t, nil, "show", id+"-oltp_read_write-sweep", "--history", dsn)
	if o.code != ExitOK || !strings.Contains(o.stdout, "oltp_read_write sweep "+id+" over threads") || !strings.Contains(o.stdout, id+"-oltp_read_write-threads2 (threads 2)") {
		t.Errorf("show sweep: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// No catalog location: nothing to do.
	if err := app.Record(context.Background(), env, "", runs, paths, sw, ""); err != nil {
		t.Error(err)
	}
	// Import of a sweep file.
	b, _ := json.Marshal(sw)
	swPath := filepath.Join(dir, "sweep.json")
	os.WriteFile(swPath, b, 0o644)
	o = runHistory(t, nil, "import", swPath, "--history", "sqlite:"+filepath.Join(dir, "other.db"))
	if o.code != ExitOK || !strings.Contains(o.stdout, "imported sweep "+id+"-oltp_read_write-sweep") {
		t.Errorf("import sweep: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

func TestHistoryOnPostgres(t *testing.T) {
	url := testenv.PostgresURL(t)
	dir := t.TempDir()
	base, cand := regression(t, dir, 2)
	hist := func(args ...string) outcome {
		t.Helper()
		return runHistory(t, nil, append(args, "--history", url)...)
	}
	if o := hist(append([]string{"import"}, append(base, cand...)...)...); o.code != ExitOK || strings.Count(o.stdout, "imported run") != 4 {
		t.Fatalf("import: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("list", "--label", "base", "--wide"); o.code != ExitOK || strings.Count(o.stdout, "-base") != 2 || strings.Contains(o.stdout, "-cand") {
		t.Errorf("list --label base: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("show", "20250301T1201"); o.code != ExitOK || !strings.Contains(o.stdout, "oltp_read_write [base]") {
		t.Errorf("show: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("compare", "base", "cand", "--fail-if-slower", "5%"); o.code != ExitFailure {
		t.Errorf("compare --fail-if-slower 5%%: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("compare", "base", "cand", "--fail-if-slower", "20%"); o.code != ExitOK {
		t.Errorf("compare --fail-if-slower 20%%: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("delete", "20250301T1301"); o.code != ExitOK || !strings.Contains(o.stdout, "deleted run 20250301T130100Z-c00001-oltp_read_write-cand") {
		t.Errorf("delete: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := hist("list", "--wide"); strings.Count(o.stdout, "oltp_read_write-") != 3 {
		t.Errorf("list after delete:\n%s", o.stdout)
	}
}

func TestHistoryNeverPrintsThePassword(t *testing.T) {
	// Port 1 refuses connections.
	o := runHistory(t, nil, "list", "--history", "postgres://bob:hunter2@127.0.0.1:1/db?sslmode=disable")
	if o.code != ExitFailure || strings.Contains(o.stdout+o.stderr, "hunter2") || !strings.Contains(o.stderr, "postgres://bob@127.0.0.1:1/db") {
		t.Errorf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := runHistory(t, nil, "list", "--history", "mysql://bob:hunter2@h/db"); o.code != ExitUsage || strings.Contains(o.stderr, "hunter2") {
		t.Errorf("unsupported catalog: exit %d\n%s", o.code, o.stderr)
	}
	if o := runHistory(t, nil, "list"); o.code != ExitUsage || !strings.Contains(o.stderr, "no catalog") {
		t.Errorf("no catalog: exit %d\n%s", o.code, o.stderr)
	}
}

// onServer makes r a run on target, of the server product version.
func onServer(r *result.Run, target, dialect, product, version string) *result.Run {
	r.Instances[0].Target, r.Instances[0].Dialect = target, dialect
	r.Instances[0].ServerProduct, r.Instances[0].ServerVersion = product, version
	return r
}

// TestHistoryListAndShowTellServersApart: runs of one workload on two
// servers differ in list by their target and server; show names them too,
// from the catalog for a result written before the server was recorded.
func TestHistoryListAndShowTellServersApart(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"RIGHTSIZE_HISTORY": "sqlite:" + filepath.Join(dir, "h.db")}
	rng := rand.New(rand.NewPCG(1, 2))
	pg := onServer(fakeRun(rng, "20250301T120000Z-aaaaaa", "", hist0, 1000, 10),
		"postgres://postgres@127.0.0.1:5432/sbtest?sslmode=disable", "postgres", "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)")
	my := onServer(fakeRun(rng, "20250301T120100Z-bbbbbb", "", hist0.Add(time.Minute), 900, 11),
		"mysql://root@127.0.0.1:3306/sbtest?tls=preferred", "mysql", "MariaDB", "10.11.19-MariaDB-0+deb12u1")
	old := onServer(fakeRun(rng, "20250301T120200Z-cccccc", "", hist0.Add(2*time.Minute), 900, 11),
		"postgres://postgres@db2:5432/sbtest", "postgres", "", "16.4")
	if o := runHistory(t, vars, "import", writeRun(t, dir, pg), writeRun(t, dir, my), writeRun(t, dir, old)); o.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", o.code, o.stderr)
	}
	o := runHistory(t, vars, "list")
	if o.code != ExitOK {
		t.Fatalf("list: exit %d\n%s", o.code, o.stderr)
	}
	t.Logf("history list:\n%s", o.stdout)
	if hdr := lineOf(o.stdout, "KEY"); !strings.Contains(hdr, "TARGET") || !strings.Contains(hdr, "SERVER") {
		t.Errorf("list header %q names no TARGET and SERVER", hdr)
	}
	// The list names a target by its host, port and database; --wide whole.
	wide := runHistory(t, vars, "list", "--wide")
	for key, want := range map[string][]string{
		"20250301T120000Z-aaaaaa": {"127.0.0.1:5432/sbtest", "postgres://postgres@127.0.0.1:5432/sbtest?sslmode=disable", "PostgreSQL 15.20"},
		"20250301T120100Z-bbbbbb": {"127.0.0.1:3306/sbtest", "mysql://root@127.0.0.1:3306/sbtest?tls=preferred", "MariaDB 10.11.19"},
		"20250301T120200Z-cccccc": {"db2:5432/sbtest", "postgres://postgres@db2:5432/sbtest", "postgres 16.4"},
	} {
		line, whole := lineOf(o.stdout, key), lineOf(wide.stdout, key)
		if !strings.Contains(line, want[0]) || !strings.Contains(line, want[2]) || !strings.Contains(whole, want[1]) || !strings.Contains(whole, want[2]) {
			t.Errorf("list line of %s lacks %q or %q, or its --wide line %q:\n%q\n%q", key, want[0], want[2], want[1], line, whole)
		}
	}
	for key, want := range map[string]string{
		"20250301T120000Z-aaaaaa": "target: postgres://postgres@127.0.0.1:5432/sbtest?sslmode=disable (PostgreSQL 15.20)",
		"20250301T120200Z-cccccc": "target: postgres://postgres@db2:5432/sbtest (postgres 16.4)",
	} {
		o := runHistory(t, vars, "show", key)
		if o.code != ExitOK || strings.Count(o.stdout, want) != 1 {
			t.Errorf("show %s: exit %d, want %q once:\n%s%s", key, o.code, want, o.stdout, o.stderr)
		}
	}
}

// lineOf is the first line of out that contains s ("" when none does).
func lineOf(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestHistoryCompareSaysWhatItCompares: compare prints each side's
// workload, target, server, load and options, warns where they differ, and
// --fail-if-slower will not judge runs of different workloads or options
// (exit 2) unless --force; different servers are what one compares, a
// warning only.
func TestHistoryCompareSaysWhatItCompares(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(id string, at time.Duration, tps float64) *result.Run {
		r := fakeRun(rng, id, "", hist0.Add(at), tps, 10)
		r.Options = map[string]any{"tables": 1.0, "table-size": 10000.0}
		return onServer(r, "postgres://postgres@127.0.0.1:5432/sbtest?sslmode=disable", "postgres", "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1)")
	}
	base := writeRun(t, dir, mk("20250301T120000Z-aaaaaa", 0, 1000))
	same := writeRun(t, dir, mk("20250301T120100Z-bbbbbb", time.Minute, 1000))
	maria := mk("20250301T120200Z-cccccc", 2*time.Minute, 1000)
	onServer(maria, "mysql://root@127.0.0.1:3306/sbtest?tls=preferred", "mysql", "MariaDB", "10.11.19-MariaDB-0+deb12u1")
	other := writeRun(t, dir, maria)
	bigger := mk("20250301T120300Z-dddddd", 3*time.Minute, 1000)
	bigger.Options["table-size"] = 1000000.0
	biggerPath := writeRun(t, dir, bigger)
	ro := mk("20250301T120400Z-eeeeee", 4*time.Minute, 1000)
	ro.Workload = "oltp_read_only"
	roPath := writeRun(t, dir, ro)

	o := runHistory(t, nil, "compare", base, same, "--fail-if-slower", "50%")
	if o.code != ExitOK || strings.Contains(o.stderr, "warning") {
		t.Errorf("like with like: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, w := range []string{"workload", "oltp_read_write", "target", "postgres://postgres@127.0.0.1:5432/sbtest?sslmode=disable", "server", "PostgreSQL 15.20",
		"load", "closed loop, 4 threads", "options", "table-size=10000", "tables=1"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("compare output lacks %q:\n%s", w, o.stdout)
		}
	}

	o = runHistory(t, nil, "compare", base, other, "--fail-if-slower", "50%")
	if o.code != ExitOK || !strings.Contains(o.stderr, "warning: the baseline and the candidate ran on different servers") ||
		!strings.Contains(lineOf(o.stdout, "server"), "MariaDB 10.11.19") || !strings.Contains(lineOf(o.stdout, "target"), "mysql://root@127.0.0.1:3306/sbtest") {
		t.Errorf("two servers: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}

	for _, tc := range []struct {
		cand, what string
	}{{biggerPath, "options (table-size: 10000 vs 1000000)"}, {roPath, "workloads (oltp_read_write vs oltp_read_only)"}} {
		o = runHistory(t, nil, "compare", base, tc.cand)
		if o.code != ExitOK || !strings.Contains(o.stderr, "warning: the baseline and the candidate ran different "+tc.what) {
			t.Errorf("%s without a gate: exit %d\n%s\n%s", tc.what, o.code, o.stdout, o.stderr)
		}
		o = runHistory(t, nil, "compare", base, tc.cand, "--fail-if-slower", "50%")
		if o.code != ExitUsage || !strings.Contains(o.stderr, "--fail-if-slower will not judge runs of different "+tc.what) || !strings.Contains(o.stderr, "--force") {
			t.Errorf("%s with a gate: exit %d, want %d\n%s\n%s", tc.what, o.code, ExitUsage, o.stdout, o.stderr)
		}
		o = runHistory(t, nil, "compare", base, tc.cand, "--fail-if-slower", "50%", "--force")
		if o.code != ExitOK || !strings.Contains(o.stdout, "no regression beyond 50%") {
			t.Errorf("%s with a gate and --force: exit %d\n%s\n%s", tc.what, o.code, o.stdout, o.stderr)
		}
	}
}

// TestHistoryListsPostgresAndMariaDBRuns runs the same workload on the real
// PostgreSQL and MariaDB servers into one catalog: list tells them apart by
// target and server, and each result records its server.
func TestHistoryListsPostgresAndMariaDBRuns(t *testing.T) {
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "h.db")
	targets := []struct{ url, server string }{
		{testenv.PostgresURL(t), "PostgreSQL 1"},
		{testenv.MySQLURL(t), "MariaDB 1"},
	}
	var keys []string
	for i, tg := range targets {
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		o := run(t, context.Background(), "run", "oltp_point_select", "--target", tg.url, "--prepare", "always", "--table-size", "1000",
			"--time", "1s", "--report-interval", "500ms", "--history", dsn, "--out", out)
		if o.code != ExitOK {
			t.Fatalf("run on %s: exit %d\n%s\n%s", tg.url, o.code, o.stdout, o.stderr)
		}
		r := mustReadResult(t, out)
		if s := r.Instances[0].Server(); !strings.HasPrefix(s, tg.server) || r.Machine == nil || r.Machine.CPUModel == "" {
			t.Errorf("result on %s: server %q, machine %+v", tg.url, s, r.Machine)
		}
		keys = append(keys, r.ID)
		targets[i].url = r.Instances[0].Target // as recorded: password-free, defaults shown
	}
	o := runHistory(t, nil, "list", "--history", dsn)
	if o.code != ExitOK {
		t.Fatalf("list: exit %d\n%s", o.code, o.stderr)
	}
	t.Logf("history list:\n%s", o.stdout)
	wide := runHistory(t, nil, "list", "--wide", "--history", dsn)
	for i, tg := range targets {
		hostPort := strings.SplitN(report.ShortTarget(tg.url), "/", 2)[0]
		if line := lineOf(o.stdout, keys[i]); !strings.Contains(line, hostPort) || !strings.Contains(line, tg.server) {
			t.Errorf("list line of the run on %s lacks its host and port or %q: %q", tg.url, tg.server, line)
		}
		if line := lineOf(wide.stdout, keys[i]); !strings.Contains(line, tg.url) || !strings.Contains(line, tg.server) {
			t.Errorf("list --wide line of the run on %s lacks its target or %q: %q", tg.url, tg.server, line)
		}
	}
}

// TestHistoryCompareShowsTheRunsP99: with one run a side, the p99 shown is
// each run's own (its merged histogram's), not the mean of its report
// intervals' p99s, and the output says what the interval is of.
func TestHistoryCompareShowsTheRunsP99(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	tail := func(r *result.Run, p99 float64) *result.Run {
		r.Summary.Latency.P99Ms = p99 // the run's tail fell in its last interval
		for i := range r.Intervals {
			r.Intervals[i].Latency.P99Ms = 900
		}
		r.Intervals[len(r.Intervals)-1].Latency.P99Ms = p99
		return r
	}
	a := writeRun(t, dir, tail(fakeRun(rng, "20250301T120000Z-aaaaaa", "", hist0, 1000, 900), 1303))
	b := writeRun(t, dir, tail(fakeRun(rng, "20250301T120100Z-bbbbbb", "", hist0.Add(time.Minute), 1000, 900), 1303))
	o := runHistory(t, nil, "compare", a, b)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if f := strings.Fields(lineOf(o.stdout, "p99 ms")); len(f) < 4 || f[2] != "1303.00" || f[3] != "1303.00" {
		t.Errorf("p99 line %q: want the runs' own p99 (1303.00) a side, not the mean of the intervals' (920.15)\n%s", f, o.stdout)
	}
	for _, w := range []string{"percentiles from its merged histogram", "of the change in the per-interval means (INTERVAL CHANGE)", "INTERVAL CHANGE"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, o.stdout)
		}
	}
}

// TestHistoryListFitsATerminal: a study's sweep, its runs and a run with a
// long label, configuration, target and server list in rows of at most 120
// columns (they ran to 321), each run and sweep with the study that ran it;
// show names the study, and a sweep's configuration and server. --wide
// keeps every field whole.
func TestHistoryListFitsATerminal(t *testing.T) {
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "h.db")
	rng := rand.New(rand.NewPCG(1, 1))
	study, id := "20250301T115900Z-57d1e5", "20250301T120000Z-5eeeee"
	target := "postgres://postgres@database-server-01.example.internal:5432/sbtest_with_a_long_name?sslmode=disable"
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: id, Workload: "oltp_read_write", Axis: "rate", Config: "24 vCPU on the new storage array"}
	var runs []*result.Run
	var paths []string
	for i, n := range []int{1, 2, 3} {
		r := fakeRun(rng, id, fmt.Sprintf("%s/rate rate %dx", study, n), hist0.Add(time.Duration(i)*time.Minute), float64(100*n), 5)
		r.Options["sweep_step"], r.Config = fmt.Sprintf("rate %dx", n), sw.Config
		onServer(r, target, "postgres", "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu")
		runs, paths = append(runs, r), append(paths, filepath.Join(dir, fmt.Sprintf("r%d.json", i)))
		sw.Steps = append(sw.Steps, result.SweepStep{Label: r.Options["sweep_step"].(string), X: float64(n), Throughput: r.Summary.Throughput, P99Ms: 5})
	}
	lone := onServer(fakeRun(rng, "20250301T130000Z-0ne0ne", "a label somebody wrote at some length to say what the run was for", hist0.Add(time.Hour), 500, 7),
		target, "postgres", "PostgreSQL", "15.20 (Debian 15.20-0+deb12u1) on x86_64-pc-linux-gnu")
	lone.Config = "the configuration under test, named at length"
	runs, paths = append(runs, lone), append(paths, filepath.Join(dir, "lone.json"))
	env := &Env{Stdout: io.Discard, Getenv: func(string) string { return "" }}
	if err := app.Record(context.Background(), env, dsn, runs, paths, sw, filepath.Join(dir, "s.json")); err != nil {
		t.Fatal(err)
	}
	o := runHistory(t, nil, "list", "--history", dsn)
	if o.code != ExitOK {
		t.Fatalf("list: exit %d\n%s", o.code, o.stderr)
	}
	t.Logf("history list:\n%s", o.stdout)
	for _, l := range strings.Split(o.stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 && !strings.HasPrefix(l, "catalog ") {
			t.Errorf("a row of %d columns: %q", n, l)
		}
	}
	if h := lineOf(o.stdout, "KEY"); !strings.Contains(h, "SERVER") || !strings.Contains(h, "TARGET") {
		t.Errorf("runs' header %q", h)
	}
	// The study's runs, then its sweep, under a line naming it.
	runsAt, sweepsAt := strings.Index(o.stdout, "\nKEY"), strings.Index(o.stdout, "\nSWEEP KEY")
	if n := strings.Count(o.stdout, "\nstudy "+study+":\n"); n != 2 || runsAt < 0 || sweepsAt < 0 ||
		strings.Count(o.stdout[runsAt:sweepsAt], "\n"+id) != 3 || !strings.Contains(o.stdout[sweepsAt:], "study "+study+":\n"+id) {
		t.Errorf("want the study's three runs, then its sweep, under a line naming it (%d such lines)", n)
	}
	if l := lineOf(o.stdout[sweepsAt:], id); !strings.Contains(l, "24 vCPU") || !strings.Contains(l, "PostgreSQL 15") {
		t.Errorf("the sweep's row lacks its configuration or server: %q", l)
	}
	if l := lineOf(o.stdout, "20250301T130000Z-0ne0ne "); !strings.Contains(l, "datab") || !strings.Contains(l, "500.19/s") {
		t.Errorf("the lone run's row (by its id, a unique prefix) lacks its target's host or its throughput: %q", l)
	}
	// Readable: the workload's name whole in every row; a study's run's
	// label whole (the line above names the study); a step's key its run
	// id and, after "…", its step (rate3x), and as the list elides it,
	// it names its run.
	for _, l := range strings.Split(o.stdout[runsAt:sweepsAt], "\n") {
		if strings.HasPrefix(l, "20250301T") && !strings.Contains(l, "  oltp_read_write  ") {
			t.Errorf("a row without its workload's name whole: %q", l)
		}
	}
	for n := 1; n <= 3; n++ {
		row := lineOf(o.stdout[runsAt:], fmt.Sprintf("rate rate %dx", n))
		f := strings.Fields(row)
		if len(f) == 0 || f[0] != fmt.Sprintf("%s…rate%dx", id, n) {
			t.Errorf("step %dx: row %q: want its label whole and its key %s…rate%dx", n, row, id, n)
			continue
		}
		if s := runHistory(t, nil, "show", f[0], "--history", dsn); s.code != ExitOK || !strings.Contains(s.stdout, fmt.Sprintf("\nstudy %s, step rate\nsweep step \"rate %dx\" of sweep %s", study, n, id)) {
			t.Errorf("show %s: exit %d\n%s%s", f[0], s.code, s.stdout, s.stderr)
		}
	}
	o = runHistory(t, nil, "show", id+"-oltp_read_write-sweep", "--history", dsn)
	if o.code != ExitOK || !strings.Contains(o.stdout, "study "+study+", configuration 24 vCPU on the new storage array, server PostgreSQL 15.20") {
		t.Errorf("show sweep: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = runHistory(t, nil, "show", id+"-oltp_read_write-"+result.FileSafe(study+"/rate rate 2x"), "--history", dsn)
	if o.code != ExitOK || !strings.Contains(o.stdout, "study "+study+", step rate\n") || strings.Contains(o.stdout, "step rate rate") ||
		!strings.Contains(o.stdout, `sweep step "rate 2x" of sweep `+id+" (history show "+id+"-oltp_read_write-sweep)") {
		t.Errorf("show run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = runHistory(t, nil, "list", "--wide", "--history", dsn)
	if o.code != ExitOK || !strings.Contains(o.stdout, target) || !strings.Contains(o.stdout, lone.Label) || !strings.Contains(o.stdout, "STARTED (UTC)") {
		t.Errorf("list --wide: exit %d\n%s", o.code, o.stdout)
	}
}

// A run compared with itself (the same file twice, a copy, its key beside
// its file, two labels that share a run) is refused as report refuses the
// same measurement named twice: exit 2, naming both arguments.
func TestHistoryCompareSameRunTwice(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"XDG_DATA_HOME": dir}
	base, cand := regression(t, dir, 2)
	if o := runHistory(t, vars, append([]string{"import"}, append(base, cand...)...)...); o.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", o.code, o.stderr)
	}
	cp := filepath.Join(dir, "copy.json")
	b, _ := os.ReadFile(base[0])
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][2]string{{base[0], base[0]}, {base[0], cp}, {r.ID, base[0]}, {"base", base[1]}, {"cand", "cand"}} {
		o := runHistory(t, vars, "compare", args[0], args[1])
		if o.code != ExitUsage || !strings.Contains(o.stderr, "the same run") || !strings.Contains(o.stderr, args[0]+" and "+args[1]) {
			t.Errorf("compare %s %s: exit %d, want %d naming both\n%s%s", args[0], args[1], o.code, ExitUsage, o.stdout, o.stderr)
		}
	}
	if o := runHistory(t, vars, "compare", "base", "cand"); o.code != ExitOK {
		t.Errorf("compare base cand: exit %d\n%s", o.code, o.stderr)
	}
}

// TestHistoryListShowsOldRawLabelsVisibly: a catalog recorded before result
// files were decoded printable may hold a label with an escape sequence;
// history list writes it visibly, never raw, and never cut in half.
func TestHistoryListShowsOldRawLabelsVisibly(t *testing.T) {
	dir := t.TempDir()
	dsn := "sqlite:" + filepath.Join(dir, "h.db")
	rng := rand.New(rand.NewPCG(1, 2))
	label := "evil\x1b]0;PWNED\x07\x1b[31m" + strings.Repeat("x", 60)
	r := fakeRun(rng, "20250301T120000Z-7e7e7e", label, hist0, 100, 5)
	var out bytes.Buffer
	env := &Env{Stdout: &out, Getenv: func(string) string { return "" }}
	if err := app.Record(context.Background(), env, dsn, []*result.Run{r}, []string{filepath.Join(dir, "r.json")}, nil, ""); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"list"}, {"list", "--wide"}} {
		o := runHistory(t, nil, append(args, "--history", dsn)...)
		if o.code != ExitOK || strings.ContainsAny(o.stdout, "\x1b\x07") || !strings.Contains(o.stdout, `evil\x1b]0;P`) {
			t.Errorf("%v: exit %d, a raw escape or no visible label:\n%q", args, o.code, o.stdout)
		}
	}
}
