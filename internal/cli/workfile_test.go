package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
)

// TestWorkloadFileRefusedExit2: a workload file with problems, one that
// does not exist, and a run that would write an existing table without
// consent each exit 2 with one clear message and touch nothing.
func TestWorkloadFileRefusedExit2(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: b\ntables: [{name: a, existing: true}]\nparams:\n  p: {type: int, min: 5, max: 2}\ntransactions: [{name: x, statements: ['SELECT :q']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	writes := filepath.Join(dir, "writes.yaml")
	if err := os.WriteFile(writes, []byte("name: w\ntables: [{name: a, existing: true}]\ntransactions: [{name: x, statements: ['UPDATE a SET n = n + 1']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	builtin := filepath.Join(dir, "tpcc.yaml")
	if err := os.WriteFile(builtin, []byte("name: tpcc\ntables: [{name: a, existing: true}]\ntransactions: [{name: x, statements: ['SELECT 1']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "w.db")
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"every problem with its line", []string{"run", bad}, []string{bad + ":4: parameter p: max 2 is below min 5", bad + ":5: transaction x, statement 1: unknown parameter :q"}},
		{"sweep reads it too", []string{"sweep", bad, "--threads", "1,2"}, []string{bad + ":4:"}},
		{"a built-in's name", []string{"run", builtin}, []string{"name: tpcc is a built-in workload's"}},
		{"no such file", []string{"run", filepath.Join(dir, "nope.yaml")}, []string{"cannot read the workload file", "nope.yaml"}},
		{"writes an existing table", []string{"run", writes, "--target", "sqlite:" + db, "--time", "1s"}, []string{"transaction x writes existing table(s) a", "allow_writes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := run(t, context.Background(), c.args...)
			if o.code != 2 {
				t.Errorf("exit %d, want 2\nstdout: %s\nstderr: %s", o.code, o.stdout, o.stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, o.stderr)
				}
			}
		})
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("the refused run created the database file")
	}
}

// TestWorkloadFileRuns: 'rightsize run FILE.yaml' prepares the file's
// table on SQLite and runs its mix; the result names the workload and its
// file, and has one operation per transaction with its response time.
func TestWorkloadFileRuns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kv.yaml")
	spec := `name: kv
description: reads and writes of a key-value table
tables:
  - name: kv
    rows: 1000
    columns:
      - {name: k, type: bigint, gen: {type: seq}}
      - {name: v, type: varchar(20), gen: {type: pattern, pattern: "v-####"}}
    primary_key: [k]
params:
  key: {type: int, min: 1, max: 1000, dist: gaussian, parameter: 3}
  val: {type: pattern, pattern: "w-@@@@"}
transactions:
  - name: get
    weight: 3
    autocommit: true
    statements: ["SELECT v FROM kv WHERE k = :key"]
  - name: put
    weight: 1
    statements: ["UPDATE kv SET v = :val WHERE k = :key"]
  - name: never
    weight: 0
    statements: ["SELECT 1"]
`
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	o := run(t, context.Background(), "run", file, "--target", "sqlite:"+filepath.Join(dir, "kv.db"), "--prepare", "always",
		"--threads", "2", "--time", "2s", "--out", out, "--no-history")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, file+":22: transaction never: weight 0: it never runs") {
		t.Errorf("the file's warning is not printed:\n%s", o.stderr)
	}
	r := mustReadResult(t, out)
	if r.Workload != "kv" || r.Options["file"] != file || r.Options["allow-writes"] != false {
		t.Errorf("result: workload %q, options %v", r.Workload, r.Options)
	}
	ops := map[string]int64{}
	for _, op := range r.Ops {
		ops[op.Name] = op.Count
	}
	if ops["get"] == 0 || ops["put"] == 0 || ops["never"] != 0 || ops["get"] < 2*ops["put"] {
		t.Errorf("operations %v: want get about 3 times put, never none", ops)
	}
	if !strings.Contains(o.stdout, "get") || !strings.Contains(o.stdout, "put") {
		t.Errorf("the summary does not show the transactions:\n%s", o.stdout)
	}
	h := run(t, context.Background(), "run", file, "--help")
	if h.code != 0 || !strings.Contains(h.stdout, "reads and writes of a key-value table") || !strings.Contains(h.stdout, "--allow-writes") {
		t.Errorf("help: exit %d\n%s", h.code, h.stdout)
	}
}

// TestWorkloadFileK8sJob: 'k8s job FILE.yaml' prints the file's ConfigMap
// and a Job whose shards run its mounted copy.
func TestWorkloadFileK8sJob(t *testing.T) {
	file := filepath.Join(t.TempDir(), "kv.yaml")
	text := "name: kv\ntables: [{name: kv, existing: true}]\ntransactions: [{name: get, statements: ['SELECT 1 FROM kv']}]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(filepath.Dir(file), "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: b\ntables: [{name: a, existing: true}]\ntransactions: [{name: x, statements: ['SELECT :q']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := run(t, context.Background(), "k8s", "job", bad, "--generators", "2", "--secret", "rs"); o.code != 2 || !strings.Contains(o.stderr, bad+":3: transaction x, statement 1: unknown parameter :q") {
		t.Errorf("k8s job of a bad file: exit %d\n%s", o.code, o.stderr)
	}
	o := run(t, context.Background(), "k8s", "job", file, "--generators", "2", "--secret", "rs", "--threads", "4")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	for _, want := range []string{"kind: ConfigMap", "kv.yaml: |", "  name: kv", "kind: Job", "- /etc/rightsize/workload/kv.yaml", "mountPath: /etc/rightsize/workload", "- --threads=4"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("manifest lacks %q:\n%s", want, o.stdout)
		}
	}
	if !strings.Contains(o.stderr, "-workload   # afterwards") {
		t.Errorf("the instructions do not say to delete the ConfigMap:\n%s", o.stderr)
	}
}

// TestWorkloadFileSweepsOnServers: a workload file prepared and swept on
// PostgreSQL and MariaDB ('prepare FILE', 'sweep FILE --rate' in the open
// loop, 'cleanup FILE'): every step's result has each transaction's
// operation, and the sweep its steps.
func TestWorkloadFileSweepsOnServers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "acct.yaml")
	text := `name: acct
tables:
  - name: acct
    rows: 500
    columns:
      - {name: id, type: bigint, gen: {type: seq}}
      - {name: balance, type: "decimal(12,2)", gen: {type: decimal, min: 0, max: 1000}}
    primary_key: [id]
params:
  a: {type: int, min: 1, max: 500, dist: exponential, parameter: 2}
  amount: {type: decimal, min: 1, max: 9.99}
transactions:
  - name: read
    weight: 4
    autocommit: true
    statements: ["SELECT balance FROM acct WHERE id = :a"]
  - name: move
    weight: 1
    statements:
      - sql: SELECT balance FROM acct WHERE id = :a
        into: [before]
      - "UPDATE acct SET balance = CAST(:before AS decimal(12,2)) - :amount WHERE id = :a"
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, url := range map[string]string{"postgres": testenv.PostgresURL(t), "mysql": testenv.MySQLURL(t)} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if o := run(t, ctx, "prepare", file, "--target", url); o.code != 0 {
				t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
			}
			out := filepath.Join(t.TempDir(), "s.json")
			o := run(t, ctx, "sweep", file, "--target", url, "--rate", "50,100", "--threads", "2", "--time", "1s",
				"--report-interval", "500ms", "--out", out, "--no-history")
			if o.code != 0 {
				t.Fatalf("sweep: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
			}
			for _, step := range []string{"rate50", "rate100"} {
				r := mustReadResult(t, strings.TrimSuffix(out, ".json")+"-"+step+".json")
				ops := map[string]int64{}
				for _, op := range r.Ops {
					ops[op.Name] = op.Count
				}
				if r.Workload != "acct" || ops["read"] == 0 || ops["move"] == 0 || r.Summary.Errors != 0 {
					t.Errorf("%s: workload %q, operations %v, %d errors", step, r.Workload, ops, r.Summary.Errors)
				}
			}
			if sw := readSweep(t, strings.TrimSuffix(out, ".json")+"-sweep.json"); sw.Workload != "acct" || len(sw.Steps) != 2 {
				t.Errorf("sweep: workload %q, %d steps", sw.Workload, len(sw.Steps))
			}
			if o := run(t, ctx, "cleanup", file, "--target", url); o.code != 0 || !strings.Contains(o.stdout, "removed acct") {
				t.Errorf("cleanup: exit %d\n%s%s", o.code, o.stdout, o.stderr)
			}
		})
	}
}

// TestListNamesWorkloadFiles: 'rightsize list' ends with the line of a
// workload file, and 'check' (which a file has not) does not offer one.
func TestListNamesWorkloadFiles(t *testing.T) {
	o := run(t, context.Background(), "list")
	if o.code != 0 || !strings.Contains(o.stdout, "FILE.yaml") || !strings.Contains(o.stdout, "docs/workload-files.md") {
		t.Errorf("list: exit %d\n%s", o.code, o.stdout)
	}
	c := run(t, context.Background(), "check", "x.yaml")
	if c.code != 2 || strings.Contains(c.stderr, "workload file") {
		t.Errorf("check x.yaml: exit %d\n%s", c.code, c.stderr)
	}
}

// TestWorkloadFileBaselineRate: a file's baseline_rate is what --rate 1x
// means when the command line gives no --baseline-rate; an explicit
// --baseline-rate wins, and a rate per second runs without complaint.
func TestWorkloadFileBaselineRate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.yaml")
	spec := "name: app\nbaseline_rate: 40\ntables:\n  - name: kv\n    rows: 10\n    columns: [{name: k, type: bigint, gen: {type: seq}}]\n    primary_key: [k]\ntransactions: [{name: get, statements: ['SELECT k FROM kv WHERE k = 1']}]\n"
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	target := "sqlite:" + filepath.Join(dir, "app.db")
	for _, c := range []struct {
		name     string
		args     []string
		rate     float64
		baseline float64
	}{
		{"the file's", []string{"--rate", "2x"}, 80, 40},
		{"the flag wins", []string{"--rate", "2x", "--baseline-rate", "5"}, 10, 5},
		{"a rate per second", []string{"--rate", "7"}, 7, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".json")
			args := append([]string{"run", file, "--target", target, "--prepare", "always", "--time", "1s", "--out", out, "--no-history"}, c.args...)
			o := run(t, context.Background(), args...)
			if o.code != 0 {
				t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
			}
			r := mustReadResult(t, out)
			if r.Load.Rate != c.rate || r.Load.BaselineRate != c.baseline {
				t.Errorf("rate %v, baseline %v; want %v, %v", r.Load.Rate, r.Load.BaselineRate, c.rate, c.baseline)
			}
		})
	}
}
