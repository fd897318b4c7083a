package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload/fileio"
	"github.com/rightsize/rightsize/internal/workload/tpcc"
)

type outcome struct {
	code           int
	stdout, stderr string
}

func run(t *testing.T, ctx context.Context, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Args: args, Stdout: &out, Stderr: &errb,
		Getenv:   func(string) string { return "" },
		CPUTime:  func() (time.Duration, time.Duration) { return time.Second, time.Second },
		ProcRoot: "/proc",
		SysFS:    os.DirFS("/sys"),
	}
	code := Main(ctx, env)
	return outcome{code, out.String(), errb.String()}
}

// readResult reads a result file.
func readResult(path string) (*result.Run, error) { return session.ReadResult(path) }

func mustReadResult(t *testing.T, path string) *result.Run {
	t.Helper()
	r, err := readResult(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestUsageErrorsExit2WithoutConnecting(t *testing.T) {
	// Port 1 on loopback refuses connections: had the CLI tried to connect,
	// the exit code would be 1, not 2.
	target := "postgres://bob:hunter2@127.0.0.1:1/db"
	cases := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"no workload", []string{"run"}, []string{"name a workload"}},
		{"unknown workload", []string{"run", "oltp_nope"}, []string{`unknown workload "oltp_nope"`, "oltp_read_write"}},
		{"unknown flag", []string{"run", "oltp_point_select", "--bogus"}, []string{"bogus"}},
		{"bad duration", []string{"run", "oltp_point_select", "--time", "soon"}, []string{"not a duration"}},
		{"every problem at once", []string{"run", "oltp_read_write", "--target", target, "--threads", "0", "--time", "0", "--arrival", "bursty", "--tables", "0"},
			[]string{"threads 0", "time 0s", "arrival", "tables"}},
		{"bad scheme", []string{"run", "oltp_point_select", "--target", "oracle://x@y/z"}, []string{"oracle"}},
		{"same target twice", []string{"run", "oltp_point_select", "--target", "sqlite:a.db", "--target", "sqlite:a.db"}, []string{"given twice"}},
		{"same database by another name", []string{"run", "oltp_point_select", "--target", "postgres://postgres:hunter2@localhost:5432/db",
			"--target", "postgres://postgres@127.0.0.1/db", "--target", "postgres://postgres@127.0.0.1/other"},
			[]string{"--target #2 postgres://postgres@127.0.0.1:5432/db?sslmode=prefer is the same target as --target #1 postgres://postgres@localhost:5432/db?sslmode=prefer"}},
		{"same MySQL database by another name", []string{"run", "oltp_point_select", "--target", "mysql://root@localhost/db", "--target", "mysql://root@[::1]:3306/db"},
			[]string{"--target #2 mysql://root@[::1]:3306/db?tls=preferred is the same target as --target #1 mysql://root@localhost:3306/db?tls=preferred"}},
		{"think with rate", []string{"run", "oltp_point_select", "--rate", "10", "--think-time", "1s", "--target", target}, []string{"think-time"}},
		{"prepare negative loaders", []string{"prepare", "oltp_point_select", "--threads", "-1", "--target", target}, []string{"threads -1"}},
		{"pgbench script refused", []string{"run", "pgbench", "-f", "testdata/bad_pgbench.sql", "--target", target}, []string{"testdata/bad_pgbench.sql:2: \\set: syntax error"}},
		{"pgbench on SQLite", []string{"run", "pgbench", "-S", "--target", "sqlite:/nonexistent/x.db"}, []string{"PostgreSQL only"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := run(t, context.Background(), tc.args...)
			if o.code != ExitUsage {
				t.Fatalf("exit %d, want %d; stderr:\n%s", o.code, ExitUsage, o.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, o.stderr)
				}
			}
			if strings.Contains(o.stderr+o.stdout, "hunter2") {
				t.Errorf("password printed:\n%s", o.stderr)
			}
		})
	}
}

// TestSameFileByAnotherName: a file named relative and absolute is one
// target (exit 2 before anything is opened or created).
func TestSameFileByAnotherName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, args := range [][]string{
		{"run", "oltp_point_select", "--target", "sqlite:a.db", "--target", "sqlite:" + filepath.Join(dir, "a.db")},
		{"run", "fileio", "--target", "f.dat", "--target", filepath.Join(dir, "f.dat")},
	} {
		o := run(t, context.Background(), args...)
		want := "--target #2 " + args[5] + " is the same "
		if o.code != ExitUsage || !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "as --target #1 "+args[3]) {
			t.Errorf("%q: exit %d, want %d and %q\n%s", args, o.code, ExitUsage, want, o.stderr)
		}
		if ents, _ := os.ReadDir(dir); len(ents) > 0 {
			t.Errorf("%q: made %d file(s) in the working directory", args, len(ents))
		}
	}
}

func TestRunSQLiteWritesResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	o := run(t, context.Background(), "run", "oltp_read_only", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "1000", "--threads", "2", "--time", "1s", "--warmup", "1s",
		"--report-interval", "500ms", "--out", out, "--label", "smoke")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := mustReadResult(t, out)
	if r.SchemaVersion != result.SchemaVersion || r.Workload != "oltp_read_only" || r.Label != "smoke" || r.Partial {
		t.Errorf("header: %+v", r)
	}
	if r.Summary.Count == 0 || r.Summary.Throughput <= 0 || r.Summary.Latency.P99Ms <= 0 || r.Summary.Unit != "transactions" {
		t.Errorf("summary: %+v", r.Summary)
	}
	// 14 reads and 2 other statements per read-only transaction.
	if r.Summary.Reads != 14*r.Summary.Count || r.Summary.Other != 2*r.Summary.Count {
		t.Errorf("reads %d other %d for %d transactions", r.Summary.Reads, r.Summary.Other, r.Summary.Count)
	}
	if r.Warmup == nil || r.Warmup.Count == 0 {
		t.Error("no warm-up summary")
	}
	var warm, meas int
	for _, iv := range r.Intervals {
		if iv.Phase == "warmup" {
			warm++
		} else {
			meas++
		}
	}
	if warm != 2 || meas != 2 {
		t.Errorf("intervals: %d warm-up, %d measured; want 2 and 2", warm, meas)
	}
	if r.Host == nil || r.Host.CPUs < 1 || r.Intervals[len(r.Intervals)-1].Host == nil || !strings.Contains(o.stdout, "host (") {
		t.Errorf("host metrics: run %+v, last interval %+v", r.Host, r.Intervals[len(r.Intervals)-1].Host)
	}
	if r.Client == nil || r.Options["tables"] == nil || len(r.Instances) != 1 || r.Instances[0].Dialect != "sqlite" {
		t.Errorf("client %+v options %v instances %+v", r.Client, r.Options, r.Instances)
	}
	// Where it ran: the server, and the generator's machine.
	if s := r.Instances[0].Server(); !strings.HasPrefix(s, "SQLite 3.") || r.Instances[0].ServerProduct != "SQLite" {
		t.Errorf("server %q (product %q)", s, r.Instances[0].ServerProduct)
	}
	if model, _ := host.CPUModel("/proc"); r.Machine == nil || r.Machine.CPUModel != model || model == "" {
		t.Errorf("machine %+v, want the CPU model %q", r.Machine, model)
	}
	for _, w := range []string{"tps:", "warmup ]", "point_select", "p99", "result: " + out} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, o.stdout)
		}
	}
}

func TestDefaultTargetPreparesEmbeddedSQLite(t *testing.T) {
	t.Chdir(t.TempDir())
	o := run(t, context.Background(), "run", "oltp_point_select", "--time", "1s", "--table-size", "500")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(filepath.Join("rightsize-data", "sbtest.db")); err != nil {
		t.Errorf("default database not created: %v", err)
	}
	m, _ := filepath.Glob(filepath.Join("results", "*-oltp_point_select.json"))
	if len(m) != 1 {
		t.Fatalf("results/: %v", m)
	}
	if r := mustReadResult(t, m[0]); r.Summary.Count == 0 {
		t.Error("no transactions")
	}
}

func TestSeveralTargetsAreSeveralInstances(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	o := run(t, context.Background(), "run", "oltp_point_select", "--prepare", "always", "--table-size", "500",
		"--target", "sqlite:"+filepath.Join(dir, "a.db"), "--target", "sqlite:"+filepath.Join(dir, "b.db"),
		"--time", "1s", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	r := mustReadResult(t, out)
	if len(r.Instances) != 2 {
		t.Fatalf("%d instances", len(r.Instances))
	}
	sum := r.Instances[0].Summary.Count + r.Instances[1].Summary.Count
	if r.Instances[0].Summary.Count == 0 || r.Instances[1].Summary.Count == 0 || sum != r.Summary.Count {
		t.Errorf("instances %d + %d, aggregate %d", r.Instances[0].Summary.Count, r.Instances[1].Summary.Count, r.Summary.Count)
	}
	if !strings.Contains(o.stdout, "per instance") {
		t.Errorf("no per-instance section:\n%s", o.stdout)
	}
}

func TestInterruptWritesPartialResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(2500*time.Millisecond, func() { cancel(errors.New("received terminated")) })
	o := run(t, ctx, "run", "oltp_point_select", "--prepare", "always", "--table-size", "500",
		"--target", "sqlite:"+filepath.Join(dir, "a.db"), "--warmup", "1s", "--time", "60s", "--out", out)
	if o.code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", o.code, ExitInterrupted, o.stderr)
	}
	r := mustReadResult(t, out)
	if !r.Partial || !r.Summary.Partial || !strings.Contains(r.PartialReason, "terminated") {
		t.Errorf("partial %v %v %q", r.Partial, r.Summary.Partial, r.PartialReason)
	}
	if r.Summary.DurationS < 0.5 || r.Summary.DurationS > 5 || r.Summary.Count == 0 {
		t.Errorf("measured %v s, %d transactions", r.Summary.DurationS, r.Summary.Count)
	}
}

func TestPostgresPasswordNeverShown(t *testing.T) {
	base := testenv.PostgresURL(t) // a fresh database; trust auth ignores the password
	withPW := strings.Replace(base, "postgres://postgres@", "postgres://postgres:S3cretPW@", 1)
	if withPW == base {
		t.Fatalf("unexpected test URL shape %s", base)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	p := run(t, context.Background(), "prepare", "oltp_point_select", "--target", withPW, "--table-size", "1000", "--tables", "2")
	r := run(t, context.Background(), "run", "oltp_point_select", "--target", withPW, "--table-size", "1000", "--tables", "2",
		"--threads", "2", "--time", "1s", "--out", out)
	missing := run(t, context.Background(), "run", "oltp_point_select", "--target", withPW, "--tables", "3", "--time", "1s", "--out", "-")
	c := run(t, context.Background(), "cleanup", "oltp_point_select", "--target", withPW, "--tables", "2")
	for _, o := range []outcome{p, r, c} {
		if o.code != ExitOK {
			t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
		}
	}
	if missing.code != ExitFailure || !strings.Contains(missing.stderr, "sbtest3") {
		t.Errorf("run on missing tables: exit %d, stderr %s", missing.code, missing.stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	all := p.stdout + p.stderr + r.stdout + r.stderr + c.stdout + c.stderr + missing.stderr + string(data)
	if strings.Contains(all, "S3cretPW") {
		t.Error("the password appears in output or in the result file")
	}
	res := mustReadResult(t, out)
	if res.Instances[0].Dialect != "postgres" || res.Instances[0].ServerVersion == "" || res.Summary.Count == 0 {
		t.Errorf("instance %+v", res.Instances[0])
	}
}

func TestOpenLoopOnMySQL(t *testing.T) {
	url := testenv.MySQLURL(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if o := run(t, context.Background(), "prepare", "oltp_read_write", "--target", url, "--table-size", "1000"); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	o := run(t, context.Background(), "run", "oltp_read_write", "--target", url, "--table-size", "1000",
		"--rate", "50", "--threads", "4", "--time", "2s", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	r := mustReadResult(t, out)
	if r.Load.Mode != "open" || r.Summary.ServiceTime == nil {
		t.Fatalf("load %+v", r.Load)
	}
	// 50/s for 2 s: 100 intended starts, served in the window, served after
	// it (in --grace: begun in time), or dropped; the offered rate says so.
	s := r.Summary
	if got := s.Count + s.Errors + s.AfterWindow + s.Cancelled + s.Dropped; got < 99 || got > 101 {
		t.Errorf("count %d + errors %d + after the window %d + cancelled %d + dropped %d = %d, want 100", s.Count, s.Errors, s.AfterWindow, s.Cancelled, s.Dropped, got)
	}
	if got := s.Offered * s.DurationS; got < 99 || got > 101 {
		t.Errorf("offered %g/s over %g s = %g starts, want 100", s.Offered, s.DurationS, got)
	}
	if r.Summary.Latency.P50Ms < r.Summary.ServiceTime.P50Ms {
		t.Errorf("response time p50 %v < service time p50 %v", r.Summary.Latency.P50Ms, r.Summary.ServiceTime.P50Ms)
	}
}

// TestMySQLAuthFailureHidesPassword: a refused login fails with exit 1 and an
// error that names the target but never the password.
func TestMySQLAuthFailureHidesPassword(t *testing.T) {
	base := testenv.MySQLURL(t)
	withPW := strings.Replace(base, "mysql://root@", "mysql://root:Wr0ngPW-xyz@", 1)
	if withPW == base {
		t.Fatalf("unexpected test URL shape %s", base)
	}
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", withPW, "--time", "1s", "--out", "-")
	if o.code != ExitFailure {
		t.Fatalf("exit %d, want %d\n%s", o.code, ExitFailure, o.stderr)
	}
	if strings.Contains(o.stdout+o.stderr, "Wr0ngPW") {
		t.Errorf("password in output:\n%s%s", o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "root@") {
		t.Errorf("the error does not name the target:\n%s", o.stderr)
	}
}

// TestBlockingIORaisesMaxProcs: virtual users on a network database do
// blocking I/O and get a Go processor each, up to 4 per CPU; an embedded
// SQLite run does not.
func TestBlockingIORaisesMaxProcs(t *testing.T) {
	url := testenv.PostgresURL(t)
	dir := t.TempDir()
	procs := func(args ...string) int {
		var out, errb bytes.Buffer
		got := 0
		code := Main(context.Background(), Env{Args: args, Stdout: &out, Stderr: &errb, MaxProcs: 2, NumCPU: 2,
			Getenv: func(string) string { return "" }, SetMaxProcs: func(n int) { got = n }})
		if code != ExitOK {
			t.Fatalf("exit %d\n%s", code, errb.String())
		}
		return got
	}
	procs("prepare", "oltp_point_select", "--target", url, "--table-size", "100")
	if got := procs("run", "oltp_point_select", "--target", url, "--table-size", "100", "--threads", "3", "--time", "1s", "--out", "-"); got != 5 {
		t.Errorf("postgres with 3 threads: GOMAXPROCS set to %d, want 5", got)
	}
	// Past 4 per CPU (at least 8) more processors starve the ticker.
	if got := procs("run", "oltp_point_select", "--target", url, "--table-size", "100", "--threads", "20", "--time", "1s", "--out", "-"); got != 8 {
		t.Errorf("postgres with 20 threads on 2 CPUs: GOMAXPROCS set to %d, want 8", got)
	}
	if got := procs("run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "a.db"), "--prepare", "always",
		"--table-size", "100", "--threads", "3", "--time", "1s", "--out", "-"); got != 0 {
		t.Errorf("sqlite: GOMAXPROCS set to %d, want it left alone", got)
	}
}

func TestRateMultipleNeedsBaseline(t *testing.T) {
	for _, args := range [][]string{
		{"run", "tpcc", "--rate", "2x"},
		{"run", "tpcc", "--rate", "50", "--baseline-rate", "20"},
		{"run", "tpcc", "--rate", "0x", "--baseline-rate", "20"},
		{"run", "tpcc", "--rate", "fast"},
		{"run", "tpcc", "--weights", "1,2,3"},
		{"run", "tpcc", "--warehouses", "0"},
		{"check", "oltp_read_write"},
	} {
		o := run(t, context.Background(), append(args, "--target", "postgres://u@127.0.0.1:1/db")...)
		if o.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, o.code, ExitUsage, o.stderr)
		}
	}
}

// The whole TPC-C cycle through the command line on MariaDB: prepare, an
// open-loop run at a multiple of a baseline rate, check (which must fail
// with exit 1 once a row is corrupted), cleanup.
func TestTPCCCycleOnMySQL(t *testing.T) {
	if testing.Short() {
		t.Skip("loads TPC-C")
	}
	url := testenv.MySQLURL(t)
	ctx := context.Background()
	if o := run(t, ctx, "prepare", "tpcc", "--warehouses", "1", "--seed", "5", "--target", url); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	// 2 × 5 = 10/s with 8 in flight: a rate a loaded 2-core machine keeps
	// up with (at 50/s with 4 in flight the schedule fell behind in a CI run
	// sharing the cores, and every start that ran was due in the warm-up).
	o := run(t, ctx, "run", "tpcc", "--warehouses", "1", "--threads", "8", "--rate", "2x", "--baseline-rate", "5",
		"--time", "3s", "--warmup", "1s", "--target", url, "--out", out)
	if o.code != ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := mustReadResult(t, out)
	if r.Load.Mode != "open" || r.Load.Rate != 10 || r.Load.RateMultiple != 2 || r.Load.BaselineRate != 5 {
		t.Errorf("load %+v: want open loop at 2 x 5 = 10/s", r.Load)
	}
	if f, err := tpcc.FiguresOf(r.Section); err != nil || f == nil || f.TpmC <= 0 || f.Warehouses != 1 || len(f.Mix) != 5 || len(f.Limits) != 5 {
		t.Fatalf("tpcc section: %+v (%v)", f, err)
	}
	if r.Summary.Counters["order_lines"] == 0 {
		t.Errorf("counters: %v", r.Summary.Counters)
	}
	for _, w := range []string{"tpmC", "NOPM", "new_order", "of 5/s = 10/s"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, o.stdout)
		}
	}
	if o := run(t, ctx, "check", "tpcc", "--target", url); o.code != ExitOK || !strings.Contains(o.stdout, "all consistency conditions hold") {
		t.Fatalf("check after the run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// Corrupt one warehouse's year-to-date: conditions 1 and 8 must fail.
	db := execOn(t, url)
	db("UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1")
	o = run(t, ctx, "check", "tpcc", "--target", url)
	if o.code != ExitFailure || !strings.Contains(o.stdout, "FAILED 3.3.2.1") || !strings.Contains(o.stderr, "2 consistency conditions failed") {
		t.Fatalf("check of a corrupted database: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if o := run(t, ctx, "run", "tpcc", "--warehouses", "3", "--time", "1s", "--target", url, "--out", "-"); o.code != ExitFailure || !strings.Contains(o.stderr, "holds 1 warehouse(s), --warehouses asks 3") {
		t.Errorf("run with more warehouses than loaded: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, ctx, "cleanup", "tpcc", "--target", url); o.code != ExitOK {
		t.Fatalf("cleanup: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, ctx, "run", "tpcc", "--time", "1s", "--target", url, "--out", "-"); o.code != ExitFailure || !strings.Contains(o.stderr, "prepare tpcc") {
		t.Errorf("run after cleanup: exit %d, want %d and a hint to prepare\n%s", o.code, ExitFailure, o.stderr)
	}
}

// execOn returns a function that runs SQL on the database at url.
func execOn(t *testing.T, url string) func(sql string) {
	t.Helper()
	ctx := context.Background()
	tg, d, err := dialectall.ForURL(url, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

// fileio through the command line: a missing file is laid out, a list of
// read mixes runs each in turn, each writes its result, and the side-by-side
// table has the seed's per-VM and per-GB rows.
func TestFileioReadMixesSideBySide(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vol.dat")
	out := filepath.Join(dir, "r.json")
	o := run(t, context.Background(), "run", "fileio", "--file", file, "--size", "16m", "--pattern", "t1 o4 b4k",
		"--read", "100,70", "--time", "500ms", "--report-interval", "500ms", "--vms", "50", "--capacity", "2TB", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, step := range []string{"read100", "read70"} {
		r := mustReadResult(t, filepath.Join(dir, "r-"+step+".json"))
		if f, err := fileio.FiguresOf(r.Section); err != nil || f == nil || f.Total.IOPS <= 0 || f.Derived == nil || f.Derived.IOPSPerGB <= 0 {
			t.Errorf("%s: fileio section %+v (%v)", step, f, err)
		}
	}
	for _, want := range []string{"step 2 of 2: read 70%", "100% read", "70% read", "IOPS per VM", "IOPS per GB", "write p99 ms"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	if o := run(t, context.Background(), "run", "fileio", "--file", file, "--threads", "4", "--time", "1s"); o.code != ExitUsage || !strings.Contains(o.stderr, "--threads does not apply") {
		t.Errorf("--threads with fileio: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, context.Background(), "cleanup", "fileio", "--file", file); o.code != ExitOK {
		t.Errorf("cleanup: exit %d\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cleanup left %s: %v", file, err)
	}
}

// A sweep over threads on SQLite: one result per step, the step table, the
// verdict and the sweep file with every knee method.
func TestSweepThreads(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "1000", "--threads", "1,2,3,4", "--time", "300ms", "--report-interval", "300ms",
		"--slo", "1s", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, n := range []string{"1", "2", "3", "4"} {
		r := mustReadResult(t, filepath.Join(dir, "s-threads"+n+".json"))
		if r.Load.Threads != mustAtoi(t, n) || r.Summary.Count == 0 {
			t.Errorf("step threads %s: load %+v count %d", n, r.Load, r.Summary.Count)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "s-sweep.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sw sweepFile
	if err := json.Unmarshal(b, &sw); err != nil {
		t.Fatal(err)
	}
	if sw.Axis != "threads" || len(sw.Steps) != 4 || len(sw.Knees) != 3 || (sw.USL == nil && sw.USLError == "") || sw.SLOMs != 1000 {
		t.Errorf("sweep file: %+v", sw)
	}
	for _, want := range []string{"steps:", "threads 4", "sweep verdict (threads):", "marginal:", "kneedle:", "slo:"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	// analyze reproduces the verdict from the file alone.
	a := run(t, context.Background(), "analyze", filepath.Join(dir, "s-sweep.json"))
	verdict := o.stdout[strings.Index(o.stdout, "sweep verdict"):strings.Index(o.stdout, "sweep: ")]
	if a.code != ExitOK || !strings.Contains(a.stdout, verdict) {
		t.Errorf("analyze: exit %d\n%s\nwant the run's verdict:\n%s", a.code, a.stdout, verdict)
	}
	// --slo as a duration or as milliseconds, the same objective.
	ms := run(t, context.Background(), "analyze", "--slo", "20", filepath.Join(dir, "s-sweep.json"))
	dur := run(t, context.Background(), "analyze", "--slo", "20ms", filepath.Join(dir, "s-sweep.json"))
	if ms.code != ExitOK || dur.code != ExitOK || ms.stdout != dur.stdout || !strings.Contains(dur.stdout, "20 ms") {
		t.Errorf("analyze --slo 20 and 20ms differ: exit %d, %d\n%s\n%s%s", ms.code, dur.code, ms.stdout, dur.stdout, dur.stderr)
	}
	if b := run(t, context.Background(), "analyze", filepath.Join(dir, "s-threads1.json")); b.code != ExitFailure || !strings.Contains(b.stderr, "no steps") {
		t.Errorf("analyze of a run file: exit %d\n%s", b.code, b.stderr)
	}
}

func TestSweepUsage(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "oltp_point_select", "--threads", "1,2", "--rate", "10,20"},
		{"sweep", "oltp_point_select", "--threads", "4"},
		{"sweep", "oltp_point_select", "--threads", "1,x"},
		{"sweep", "fileio", "--file", "/tmp/none.dat", "--threads", "1,2"},
		{"sweep", "oltp_point_select", "--rate", "0,100,200"},
		{"sweep", "oltp_point_select", "--rate", "1x,2x,2000", "--baseline-rate", "100"},
	} {
		if o := run(t, context.Background(), append(args, "--target", "postgres://u@127.0.0.1:1/db")...); o.code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, o.code, ExitUsage, o.stderr)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sweepFile is what a sweep file holds: the sweep's data and what the
// analysis found; and the verdict, which files of the first layouts held
// and newer ones give when their data is analysed and worded again.
type sweepFile struct {
	result.Sweep
	Knees    []analysis.Knee `json:"knees"`
	USL      *analysis.USL   `json:"usl"`
	USLError string          `json:"usl_error"`
	Verdict  []string        `json:"verdict"`
}

// UnmarshalJSON reads the sweep's data through result.Sweep's own decoding
// (which its promoted UnmarshalJSON would otherwise do alone, leaving the
// analysis out) and the analysis beside it.
func (f *sweepFile) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &f.Sweep); err != nil {
		return err
	}
	var a struct {
		Knees    []analysis.Knee `json:"knees"`
		USL      *analysis.USL   `json:"usl"`
		USLError string          `json:"usl_error"`
		Verdict  []string        `json:"verdict"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	f.Knees, f.USL, f.USLError, f.Verdict = a.Knees, a.USL, a.USLError, a.Verdict
	if f.Verdict == nil {
		f.Verdict = report.SweepSentences(analysis.Analyze(&f.Sweep, analysis.OptionsOf(&f.Sweep)))
	}
	return nil
}

func readSweep(t *testing.T, path string) sweepFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sw sweepFile
	if err := json.Unmarshal(b, &sw); err != nil {
		t.Fatal(err)
	}
	return sw
}

// A sweep over instances: numbered SQLite files in a directory, created and
// loaded by --prepare auto; each step drives the first N at once; the sweep
// file, its Markdown twin and analyze --format markdown agree.
func TestSweepInstances(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+dir+"/fleet/",
		"--instances", "1,2,3", "--table-size", "500", "--time", "300ms", "--report-interval", "300ms", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for n := 1; n <= 3; n++ {
		if _, err := os.Stat(filepath.Join(dir, "fleet", "sbtest-"+strconv.Itoa(n)+".db")); err != nil {
			t.Errorf("numbered file %d: %v", n, err)
		}
		r := mustReadResult(t, filepath.Join(dir, "s-instances"+strconv.Itoa(n)+".json"))
		if len(r.Instances) != n || r.Summary.Count == 0 || (n > 1 && r.Fairness == nil) {
			t.Errorf("step %d: %d instances, %d events, fairness %v", n, len(r.Instances), r.Summary.Count, r.Fairness)
		}
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	if sw.Axis != "instances" || len(sw.Steps) != 3 || sw.Steps[2].X != 3 || !sw.HostIsServer || len(sw.Verdict) == 0 {
		t.Errorf("sweep file: %+v", sw)
	}
	if !strings.Contains(o.stdout, "inst cov%") {
		t.Errorf("the steps printed at the end lack the instances' fairness:\n%s", o.stdout)
	}
	if len(sw.Steps) == 3 && (sw.Steps[0].Fairness != nil || sw.Steps[2].Fairness == nil) {
		t.Errorf("sweep steps' fairness: 1 instance %v, 3 instances %v; want none, then the instances'", sw.Steps[0].Fairness, sw.Steps[2].Fairness)
	}
	md, err := os.ReadFile(filepath.Join(dir, "s-sweep.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# oltp_point_select sweep over instances", "| instances 3 |", "|---:|", "## Verdict", sw.Verdict[0], "| inst cov% |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	a := run(t, context.Background(), "analyze", "--format", "markdown", filepath.Join(dir, "s-sweep.json"))
	if a.code != ExitOK || a.stdout != string(md) {
		t.Errorf("analyze --format markdown: exit %d, differs from the sweep's Markdown:\n%s\n---\n%s", a.code, a.stdout, md)
	}
	if a := run(t, context.Background(), "analyze", "--format", "html", filepath.Join(dir, "s-sweep.json")); a.code != ExitUsage {
		t.Errorf("analyze --format html: exit %d", a.code)
	}
	// More instances than targets given, and a list outside sweep, are usage errors.
	for _, args := range [][]string{
		{"sweep", "oltp_point_select", "--target", "sqlite:" + dir + "/a.db", "--target", "sqlite:" + dir + "/b.db", "--instances", "1,3"},
		{"run", "oltp_point_select", "--target", "sqlite:" + dir + "/a.db", "--instances", "1,2"},
		{"run", "fileio", "--file", dir + "/f.dat", "--instances", "2"},
		{"run", "oltp_point_select", "--target", "postgres://u:pw@127.0.0.1:1", "--instances", "2"},
	} {
		if o := run(t, context.Background(), args...); o.code != ExitUsage || strings.Contains(o.stderr, "pw@") {
			t.Errorf("%v: exit %d, want %d\n%s", args, o.code, ExitUsage, o.stderr)
		}
	}
}

// --instances from one server URL numbers databases on that server: prepare
// creates and loads NAME_1 and NAME_2, run drives both.
func TestInstancesNumberedPostgres(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	if o := run(t, ctx, "prepare", "oltp_point_select", "--target", url, "--instances", "2", "--table-size", "200"); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	o := run(t, ctx, "run", "oltp_point_select", "--target", url, "--instances", "2", "--table-size", "200",
		"--time", "300ms", "--report-interval", "300ms", "--prepare", "never", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := mustReadResult(t, out)
	name := url[strings.LastIndex(url, "/")+1:]
	name, _, _ = strings.Cut(name, "?")
	if len(r.Instances) != 2 || !strings.Contains(r.Instances[0].Target, "/"+name+"_1?") || !strings.Contains(r.Instances[1].Target, "/"+name+"_2?") {
		t.Fatalf("instances: %s, %s", r.Instances[0].Target, r.Instances[len(r.Instances)-1].Target)
	}
	for i, in := range r.Instances {
		if in.Summary.Count == 0 || in.Dialect != "postgres" {
			t.Errorf("instance %d: %+v", i+1, in)
		}
	}
}

// fileio's read mixes are a sweep's axis of their own: a step each, the
// storage table with the host's columns, and no knee (the load did not vary).
func TestSweepReadMixes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vol.dat")
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "fileio", "--file", file, "--size", "16m", "--pattern", "t1 o4 b4k",
		"--read", "100,50", "--time", "300ms", "--report-interval", "300ms", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	if sw.Axis != "read %" || !sw.OwnSteps || len(sw.Steps) != 2 || sw.Steps[1].X != 50 || len(sw.Knees) != 0 || sw.USL != nil {
		t.Errorf("sweep file: %+v", sw)
	}
	for _, want := range []string{"100% read", "50% read", "host iowait %", "not the load: no knee"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
}

// --baseline-rate auto measures 1x first (closed loop, one thread per
// instance) and runs each multiple of it.
func TestSweepBaselineAuto(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--threads", "4", "--rate", "0.1x,0.2x", "--baseline-rate", "auto",
		"--time", "500ms", "--report-interval", "500ms", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	base := mustReadResult(t, filepath.Join(dir, "s-baseline.json"))
	if base.Load.Threads != 1 || base.Load.Rate != 0 || base.Summary.Throughput <= 0 {
		t.Fatalf("baseline: load %+v throughput %g", base.Load, base.Summary.Throughput)
	}
	sw := readSweep(t, filepath.Join(dir, "s-sweep.json"))
	if sw.Axis != "rate" || sw.BaselineRate != base.Summary.Throughput || !strings.HasSuffix(sw.Baseline, "s-baseline.json") {
		t.Errorf("sweep: axis %q baseline %g (measured %g) file %q", sw.Axis, sw.BaselineRate, base.Summary.Throughput, sw.Baseline)
	}
	for i, mult := range []float64{0.1, 0.2} {
		r := mustReadResult(t, filepath.Join(dir, "s-rate0"+strconv.Itoa(i+1)+"x.json"))
		if math.Abs(r.Load.Rate-mult*sw.BaselineRate) > 1e-6*sw.BaselineRate || r.Load.RateMultiple != mult || r.Load.BaselineRate != sw.BaselineRate {
			t.Errorf("step %gx: load %+v, baseline %g", mult, r.Load, sw.BaselineRate)
		}
	}
	if o := run(t, context.Background(), "run", "oltp_point_select", "--baseline-rate", "auto", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite")); o.code != ExitUsage {
		t.Errorf("auto without a multiple: exit %d\n%s", o.code, o.stderr)
	}
}

// --steady-state ends the warm-up when throughput and p99 settle: a point
// select on a warm SQLite file settles well within a 20 s limit, the result
// records when, and the run takes far less than the whole warm-up.
func TestSteadyState(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	start := time.Now()
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--warmup", "20s", "--steady-state", "600ms", "--steady-tolerance", "30",
		"--time", "300ms", "--report-interval", "100ms", "--out", out)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	r := mustReadResult(t, out)
	ss := r.Load.SteadyState
	if ss == nil || !ss.Reached || ss.AtS <= 0 || ss.AtS >= 20 || ss.WindowS != 0.6 || ss.TolerancePct != 30 {
		t.Fatalf("steady state: %+v", ss)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("the run took %v: the warm-up did not end early", took)
	}
	if !strings.Contains(o.stdout, "steady state: reached after") {
		t.Errorf("stdout lacks the steady-state line:\n%s", o.stdout)
	}
	for _, args := range [][]string{
		{"--steady-state", "1s"}, // no warm-up
		{"--warmup", "2s", "--steady-state", "1s", "--steady-tolerance", "100"}, // tolerance out of range
		{"--warmup", "2s", "--steady-state", "3s"},                              // window longer than the warm-up
	} {
		a := append([]string{"run", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite")}, args...)
		if o := run(t, context.Background(), a...); o.code != ExitUsage || !strings.Contains(o.stderr, "steady-state") {
			t.Errorf("%v: exit %d\n%s", args, o.code, o.stderr)
		}
	}
}

// A sweep file written before the analysis moved out of the sweep's data
// (knees, USL, demand and verdict stored beside the steps) still loads: its
// data is read, the analysis done again, and it gives the verdict it
// holds, in analyze, plan and report alike.
func TestSweepFileOfTheFirstLayout(t *testing.T) {
	const path = "testdata/sweep-written-by-v1.json"
	old := readSweep(t, path)
	if len(old.Verdict) == 0 || len(old.Knees) == 0 {
		t.Fatalf("%s holds no analysis", path)
	}
	a := run(t, context.Background(), "analyze", path)
	if a.code != ExitOK {
		t.Fatalf("analyze: exit %d: %s", a.code, a.stderr)
	}
	// Steps are named as the steps table names them ("threads 1"), where
	// the first layout's verdict said "1 threads" and "(1)": the one change.
	stepName := strings.NewReplacer("at 1 threads", "at threads 1", "at 8 threads", "at threads 8", "step (1)", "step (threads 1)")
	for i, line := range old.Verdict {
		line = stepName.Replace(line)
		old.Verdict[i] = line
		if !strings.Contains(a.stdout, line) {
			t.Errorf("analyze lacks the stored verdict %q:\n%s", line, a.stdout)
		}
	}
	r := run(t, context.Background(), "report", "--format", "md", path)
	if r.code != ExitOK || !strings.Contains(r.stdout, old.Verdict[0]) {
		t.Errorf("report: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
}

// prepare's --loaders is its parallel loaders, --threads the same flag
// under sysbench's name: both load the tables.
func TestPrepareLoaders(t *testing.T) {
	for _, flag := range []string{"--loaders", "--threads"} {
		db := filepath.Join(t.TempDir(), "db.sqlite")
		o := run(t, context.Background(), "prepare", "oltp_point_select", "--target", "sqlite:"+db, "--tables", "2", "--table-size", "500", flag, "2")
		if o.code != ExitOK || !strings.Contains(o.stdout, "prepared sqlite:"+db) {
			t.Errorf("prepare %s 2: exit %d\n%s%s", flag, o.code, o.stdout, o.stderr)
		}
	}
}
