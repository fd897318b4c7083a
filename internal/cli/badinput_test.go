package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/testenv"
)

// connCounter is a TCP listener on loopback that counts the connections it
// accepts and closes each at once: a target pointed at it proves whether the
// command opened a connection.
type connCounter struct {
	ln net.Listener
	mu sync.Mutex
	n  int
}

func listenCounter(t *testing.T) *connCounter {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cc := &connCounter{ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			cc.mu.Lock()
			cc.n++
			cc.mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return cc
}

func (cc *connCounter) addr() string { return cc.ln.Addr().String() }

func (cc *connCounter) count() int {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.n
}

// runWithEnv is run with an environment of vars (nil: empty).
func runWithEnv(t *testing.T, ctx context.Context, vars map[string]string, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Args: args, Stdout: &out, Stderr: &errb,
		Getenv:   func(k string) string { return vars[k] },
		CPUTime:  func() (time.Duration, time.Duration) { return time.Second, time.Second },
		ProcRoot: "/proc",
		SysFS:    os.DirFS("/sys"),
	}
	code := Main(ctx, env)
	return outcome{code, out.String(), errb.String()}
}

// uniqueName is prefix and 8 random hex digits, for roles and users the test
// creates on a shared server.
func uniqueName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// checkOneMessage asserts the shape of a failing command's stderr: exactly one
// "rightsize:" line, on one line, last (followed only by the usage hint for
// exit 2); for a usage error nothing before it and nothing on stdout; and no
// panic or goroutine dump anywhere.
func checkOneMessage(t *testing.T, o outcome) {
	t.Helper()
	all := o.stdout + o.stderr
	for _, bad := range []string{"panic:", "goroutine ", "runtime error", "<nil>", "%!"} {
		if strings.Contains(all, bad) {
			t.Fatalf("output contains %q:\n%s\n%s", bad, o.stdout, o.stderr)
		}
	}
	lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n")
	var at []int
	for i, l := range lines {
		if strings.HasPrefix(l, "rightsize:") {
			at = append(at, i)
		}
	}
	if len(at) != 1 {
		t.Fatalf("%d lines start with rightsize:, want 1:\n%s", len(at), o.stderr)
	}
	rest := lines[at[0]+1:]
	switch o.code {
	case ExitUsage:
		// Indented lines may explain the message (an unknown flag's
		// name in rightsize); then the usage hint, last.
		for len(rest) > 1 && strings.HasPrefix(rest[0], "  ") {
			rest = rest[1:]
		}
		if len(rest) != 1 || rest[0] != "Run 'rightsize --help' for usage." {
			t.Errorf("after the message, want only indented hints and the usage hint; got %q", rest)
		}
		if at[0] != 0 || o.stdout != "" {
			t.Errorf("a usage error printed something before it:\nstdout: %s\nstderr: %s", o.stdout, o.stderr)
		}
	default:
		if len(rest) != 0 {
			t.Errorf("the message spans several lines or is not last: %q", rest)
		}
	}
}

// TestBadInput runs invalid invocations through Main: each exits with the
// documented code (2 for usage, 1 for a runtime failure) and one clear
// message, none panics, and every usage error is refused before any
// connection is opened (the targets point at a listener that counts them).
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	lst := listenCounter(t)
	pg := "postgres://bob:hunter2@" + lst.addr() + "/db?sslmode=disable&connect_timeout=2"
	my := "mysql://bob:hunter2@" + lst.addr() + "/db?timeout=2s"
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notJSON := file("bad.json", "not json\n")
	emptyObj := file("empty.json", "{}\n")
	futureSweep := file("sweep.json", `{"schema_version":99,"axis":"threads","steps":[]}`)
	futureRun := file("run.json", `{"schema_version":99,"summary":{}}`)
	badVMs := file("vms.yaml", "garbage: [\n")
	zeroVM := file("vms0.yaml", "- name: a\n  vcpu: 0\n")
	badHost := file("host.yaml", "sockets: 1\ncores_per_socket: -4\nthreads_per_core: 1\nnuma_nodes: 1\nmemory_per_node: 1GiB\n")
	missing := filepath.Join(dir, "none.json")
	fio := filepath.Join(dir, "fio.dat") // never created: every case is refused first
	hist := "sqlite:" + filepath.Join(dir, "history.db")
	lite := "sqlite:" + filepath.Join(dir, "empty.db")

	type tc struct {
		name string
		args []string
		code int
		want string // a substring of the message
	}
	usage := []tc{
		{"no workload", []string{"run"}, 2, "name a workload"},
		{"unknown workload", []string{"run", "oltp_nope", "--target", pg}, 2, `unknown workload "oltp_nope"`},
		{"unknown subcommand", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"unknown measure subcommand", []string{"measure", "frob"}, 2, "frob"},
		{"unknown history subcommand", []string{"history", "frob", "--history", hist}, 2, `unknown subcommand "frob"`},
		{"unknown flag", []string{"run", "oltp_read_write", "--bogus", "--target", pg}, 2, "unknown flag: --bogus"},
		{"flag of another phase", []string{"prepare", "oltp_read_write", "--time", "5s", "--target", pg}, 2, "unknown flag: --time"},
		{"table-size 0", []string{"run", "oltp_read_write", "--table-size", "0", "--target", pg}, 2, "--table-size"},
		{"tables -1", []string{"prepare", "oltp_read_write", "--tables", "-1", "--target", my}, 2, "--tables"},
		{"warehouses 0", []string{"prepare", "tpcc", "--warehouses", "0", "--target", pg}, 2, "warehouses 0"},
		{"fileio size 0", []string{"prepare", "fileio", "--size", "0", "--file", fio}, 2, `size "0"`},
		{"fileio size negative", []string{"prepare", "fileio", "--size", "-1G", "--file", fio}, 2, "negative"},
		{"fileio pattern t0", []string{"run", "fileio", "--pattern", "t0 o1 b4k", "--file", fio}, 2, "threads must be"},
		{"fileio pattern block", []string{"run", "fileio", "--pattern", "t1 o1 b1000", "--file", fio}, 2, "multiple of 512"},
		{"fileio pattern garbage", []string{"run", "fileio", "--pattern", "zz", "--file", fio}, 2, `token "zz"`},
		{"fileio rw", []string{"run", "fileio", "--rw", "frob", "--file", fio}, 2, `rw "frob"`},
		{"fileio read mix", []string{"run", "fileio", "--read", "150", "--file", fio}, 2, `"150"`},
		{"fileio engine", []string{"run", "fileio", "--engine", "spdk", "--file", fio}, 2, `engine "spdk"`},
		{"time negative", []string{"run", "oltp_read_write", "--time", "-1s", "--target", pg}, 2, "time -1s"},
		{"time not a duration", []string{"run", "oltp_read_write", "--time", "soon", "--target", pg}, 2, "not a duration"},
		{"time overflows", []string{"run", "oltp_read_write", "--time", "9999999999999", "--target", pg}, 2, "9999999999999"},
		{"time NaN", []string{"run", "oltp_read_write", "--time", "NaN", "--target", pg}, 2, "NaN"},
		{"time Inf", []string{"run", "oltp_read_write", "--time", "Inf", "--target", pg}, 2, "Inf"},
		{"warmup negative", []string{"run", "oltp_read_write", "--warmup", "-5s", "--target", pg}, 2, "warmup -5s"},
		{"grace negative", []string{"run", "oltp_read_write", "--grace", "-1s", "--target", pg}, 2, "grace -1s"},
		{"report-interval 0", []string{"run", "oltp_read_write", "--report-interval", "0", "--target", pg}, 2, "report-interval 0s"},
		{"rate abc", []string{"run", "oltp_read_write", "--rate", "abc", "--target", pg}, 2, `"abc" is not a rate`},
		{"rate negative", []string{"run", "oltp_read_write", "--rate", "-5", "--target", pg}, 2, `"-5" is not a rate`},
		{"rate multiple without baseline", []string{"run", "oltp_read_write", "--rate", "2x", "--target", pg}, 2, "give --baseline-rate"},
		{"baseline without multiple", []string{"run", "tpcc", "--rate", "50", "--baseline-rate", "20", "--target", my}, 2, "only used with --rate given as a multiple"},
		{"baseline negative", []string{"run", "oltp_read_write", "--baseline-rate", "-3", "--target", pg}, 2, "not a baseline"},
		{"threads 0", []string{"run", "oltp_read_write", "--threads", "0", "--target", pg}, 2, "threads 0"},
		{"threads with fileio", []string{"run", "fileio", "--threads", "4", "--file", fio}, 2, "--threads does not apply to fileio"},
		{"rate with fileio", []string{"run", "fileio", "--rate", "10", "--file", fio}, 2, "--rate does not apply to fileio"},
		{"sweep rate and threads lists", []string{"sweep", "oltp_read_write", "--rate", "10,20", "--threads", "1,2", "--target", pg}, 2, "one axis at a time"},
		{"sweep threads not a number", []string{"sweep", "oltp_read_write", "--threads", "1,x", "--target", pg}, 2, `"x"`},
		{"db-cpus not a number", []string{"run", "oltp_read_write", "--db-cpus", "two", "--target", pg}, 2, `--db-cpus "two": want CPUs from 0.05`},
		{"db-cpus 0", []string{"sweep", "oltp_read_write", "--db-cpus", "0,1", "--target", pg}, 2, `--db-cpus "0": want CPUs`},
		{"db-cpus list on a run", []string{"run", "oltp_read_write", "--db-cpus", "1,2", "--target", pg}, 2, "a run holds the database to one allotment"},
		{"db-cpus and rate lists", []string{"sweep", "oltp_read_write", "--db-cpus", "1,2", "--rate", "10,20", "--target", pg}, 2, "one axis at a time"},
		{"db-cpus list in a search", []string{"sweep", "oltp_read_write", "--db-cpus", "1,2", "--rate", "search", "--slo", "20ms", "--target", pg}, 2, "one --db-cpus allotment"},
		{"think-time with rate", []string{"run", "oltp_read_write", "--rate", "10", "--think-time", "1s", "--target", pg}, 2, "think-time"},
		{"arrival", []string{"run", "oltp_read_write", "--rate", "10", "--arrival", "bursty", "--target", pg}, 2, `arrival "bursty"`},
		{"think-dist", []string{"run", "oltp_read_write", "--think-dist", "weird", "--target", pg}, 2, `think-dist "weird"`},
		{"retry class", []string{"run", "oltp_read_write", "--retry", "bogus", "--target", pg}, 2, `retry "bogus"`},
		{"max retries zero", []string{"run", "oltp_read_write", "--max-retries", "0", "--target", pg}, 2, `max-retries 0: want 1 or more`},
		{"connect-timeout 0", []string{"run", "oltp_read_write", "--connect-timeout", "0", "--target", pg}, 2, "connect-timeout 0s: want a positive duration"},
		{"connect-timeout negative", []string{"prepare", "tpcc", "--connect-timeout", "-1s", "--target", my}, 2, "connect-timeout -1s: want a positive duration"},
		{"connect-timeout not a duration", []string{"check", "tpcc", "--connect-timeout", "soon", "--target", my}, 2, `"soon" is not a duration`},
		{"prepare mode", []string{"run", "oltp_read_write", "--prepare", "maybe", "--target", pg}, 2, `prepare "maybe"`},
		{"rand-type", []string{"run", "oltp_read_write", "--rand-type", "bogus", "--target", pg}, 2, `"bogus"`},
		{"seed negative", []string{"run", "oltp_read_write", "--seed", "-1", "--target", pg}, 2, "--seed"},
		{"prepare loaders negative", []string{"prepare", "oltp_read_write", "--threads", "-1", "--target", pg}, 2, "threads -1"},
		{"prepare --loaders negative", []string{"prepare", "oltp_read_write", "--loaders", "-1", "--target", pg}, 2, "loaders -1"},
		{"instances 0", []string{"run", "oltp_read_write", "--instances", "0", "--target", pg}, 2, `instances "0"`},
		{"instances list in run", []string{"run", "oltp_read_write", "--instances", "1,2", "--target", pg}, 2, "a list is for sweep"},
		{"instances over the cap", []string{"run", "oltp_read_write", "--instances", "100000", "--target", pg}, 2, "at most 1000 at once"},
		{"max-error-pct over 100", []string{"run", "oltp_read_write", "--max-error-pct", "101", "--target", pg}, 2, "max-error-pct 101: want a percentage from 0 to 100"},
		{"tpcc weights", []string{"run", "tpcc", "--weights", "1,2,3", "--target", pg}, 2, "weights"},
		{"tpcc think-scale", []string{"run", "tpcc", "--think-scale", "-1", "--target", pg}, 2, "think-scale -1"},
		{"tpcc in-server form", []string{"run", "tpcc", "--in-server=triggers", "--target", pg}, 2, `in-server "triggers"`},
		{"tpcc in-server on SQLite", []string{"prepare", "tpcc", "--in-server", "--target", lite}, 2, "SQLite has no server"},
		{"tpcc in-server functions on MySQL", []string{"run", "tpcc", "--in-server=functions", "--target", my}, 2, "stored procedures"},
		{"check without checks", []string{"check", "oltp_read_write", "--target", pg}, 2, "oltp_read_write"},
		{"SQL in create-table-options", []string{"prepare", "oltp_read_write", "--create-table-options", "x; DROP TABLE y", "--target", pg}, 2, "create-table-options"},
		{"SQL in create-table-options on MySQL", []string{"prepare", "oltp_read_write", "--create-table-options", "ENGINE=InnoDB; DROP TABLE y", "--target", my}, 2, "create-table-options"},
		{"url unclosed IPv6", []string{"run", "oltp_read_write", "--target", "postgres://bob:hunter2@[::1"}, 2, "malformed URL"},
		{"url port out of range", []string{"run", "oltp_read_write", "--target", "mysql://bob:hunter2@host:99999/db"}, 2, "port"},
		{"url port 0", []string{"run", "oltp_read_write", "--target", "postgres://bob:hunter2@127.0.0.1:0/db"}, 2, "port"},
		{"url sqlite without path", []string{"run", "oltp_read_write", "--target", "sqlite:"}, 2, "needs a file path"},
		{"url unknown scheme", []string{"run", "oltp_read_write", "--target", "ftp://x"}, 2, `unknown scheme "ftp"`},
		{"url host in the path, one slash", []string{"run", "oltp_read_write", "--target", "postgres:/127.0.0.1/db"}, 2, "did you mean postgres://127.0.0.1/db?"},
		{"url host in the path, three slashes", []string{"run", "oltp_read_write", "--target", "postgres://bob:hunter2@/" + lst.addr() + "/db"}, 2, "did you mean postgres://bob@" + lst.addr() + "/db?"},
		{"url host in the path, mysql", []string{"run", "oltp_read_write", "--target", "mysql:///127.0.0.1:3306/db"}, 2, "did you mean mysql://127.0.0.1:3306/db?"},
		{"url bad query", []string{"run", "oltp_read_write", "--target", "postgres://bob@" + lst.addr() + "/db?a=%zz"}, 2, "query"},
		{"same target twice", []string{"run", "oltp_read_write", "--target", pg, "--target", pg}, 2, "given twice"},
		{"target from an unset variable", []string{"run", "oltp_read_write", "--target", "env:RS_NO_SUCH_VARIABLE"}, 2, "RS_NO_SUCH_VARIABLE"},
		{"plan vm without settings", []string{"plan", "--vm", "db1"}, 2, `vm "db1"`},
		{"plan vm vcpu not a number", []string{"plan", "--vm", "db1:vcpu=x"}, 2, `vcpu "x"`},
		{"plan vm busy", []string{"plan", "--vm", "db1:vcpu=4,busy=2"}, 2, `busy "2"`},
		{"plan vm unknown setting", []string{"plan", "--vm", "db1:vcpu=4,frob=1"}, 2, `unknown setting "frob"`},
		{"plan vm memory", []string{"plan", "--vm", "db1:vcpu=4,mem=lots"}, 2, `"lots"`},
		{"plan vms file not YAML", []string{"plan", "--vms", badVMs}, 2, "want a list of VMs"},
		{"plan vms file zero vcpu", []string{"plan", "--vms", zeroVM}, 2, "vcpu 0"},
		{"plan host file", []string{"plan", "--host", badHost, "--vm", "a:vcpu=2"}, 2, "cores_per_socket"},
		{"plan format", []string{"plan", "--format", "xml", "--vm", "a:vcpu=2"}, 2, `format "xml"`},
		{"plan cpu-target", []string{"plan", "--cpu-target", "0", "--vm", "a:vcpu=2"}, 2, "cpu-target 0"},
		{"plan ht-gain", []string{"plan", "--ht-gain", "abc", "--vm", "a:vcpu=2"}, 2, `ht-gain "abc"`},
		{"plan from without rate", []string{"plan", "--from", notJSON}, 2, "--target-rate"},
		{"report no files", []string{"report"}, 2, "name at least one"},
		{"report format", []string{"report", "--format", "pdf", notJSON}, 2, `format "pdf"`},
		{"analyze no file", []string{"analyze"}, 2, "name one sweep file"},
		{"analyze cpu-target 180", []string{"analyze", "--cpu-target", "180", notJSON}, 2, "cpu-target 180: want more than 0 and at most 100"},
		{"analyze slo not a duration", []string{"analyze", "--slo", "soon", notJSON}, 2, `"soon" is not a p99 objective (use 50ms, 0.5s or a number of milliseconds`},
		{"sweep cpu-target 180", []string{"sweep", "oltp_read_write", "--threads", "1,2", "--cpu-target", "180", "--target", pg}, 2, "cpu-target 180: want more than 0 and at most 100"},
		{"sweep slo not a duration", []string{"sweep", "oltp_read_write", "--threads", "1,2", "--slo", "fast", "--target", pg}, 2, `"fast" is not a p99 objective`},
		{"sweep slo negative", []string{"sweep", "oltp_read_write", "--threads", "1,2", "--slo", "-5ms", "--target", pg}, 2, `"-5ms" is not a p99 objective`},
		{"search without an objective", []string{"sweep", "oltp_read_write", "--rate", "search", "--target", pg}, 2, "a search needs the objective it meets: give --slo"},
		{"search both axes", []string{"sweep", "oltp_read_write", "--rate", "search", "--threads", "search", "--slo", "20ms", "--target", pg}, 2, "search one axis at a time"},
		{"search threads at a rate", []string{"sweep", "oltp_read_write", "--threads", "search", "--rate", "100", "--slo", "20ms", "--target", pg}, 2, "--threads search runs a closed loop"},
		{"search rate over a threads list", []string{"sweep", "oltp_read_write", "--rate", "search", "--threads", "1,2", "--slo", "20ms", "--target", pg}, 2, "--threads is the most events in flight"},
		{"search precision 0", []string{"sweep", "oltp_read_write", "--rate", "search", "--slo", "20ms", "--precision", "0", "--target", pg}, 2, "--precision 0: want a percentage"},
		{"search one step", []string{"sweep", "oltp_read_write", "--rate", "search", "--slo", "20ms", "--max-steps", "1", "--target", pg}, 2, "--max-steps 1: want 2 to 100"},
		{"slo on p90", []string{"sweep", "oltp_read_write", "--threads", "1,2", "--slo", "p90=20ms", "--target", pg}, 2, "give it on p99 (50ms) or p95 (p95=50ms)"},
		{"history bad catalog", []string{"history", "list", "--history", "ftp://x"}, 2, "invalid history catalog"},
		{"history catalog port", []string{"history", "list", "--history", "postgres://bob:hunter2@127.0.0.1:99999/db"}, 2, "invalid port"},
		{"run with a bad catalog", []string{"run", "oltp_read_write", "--target", pg, "--history", "ftp://x"}, 2, "invalid history catalog"},
		{"run with a catalog that is a directory", []string{"run", "oltp_read_write", "--target", pg, "--history", "sqlite:" + dir + "/.."}, 2, "names a directory"},
		{"sweep with a bad catalog", []string{"sweep", "oltp_read_write", "--threads", "1,2", "--target", pg, "--history", "postgres://bob:hunter2@h:0/db"}, 2, "invalid history catalog"},
		{"url sqlite directory", []string{"run", "oltp_read_write", "--target", "sqlite:" + dir + "/.."}, 2, "is a directory"},
		{"history compare one side", []string{"history", "compare", "a", "--history", hist}, 2, "name a baseline and a candidate"},
		{"history fail-if-slower", []string{"history", "compare", "a", "b", "--fail-if-slower", "abc", "--history", hist}, 2, "not a percentage"},
		{"shard malformed", []string{"run", "oltp_read_write", "--target", pg, "--shard", "3", "--run-id", "r"}, 2, "want I/N"},
		{"shard index past the count", []string{"run", "oltp_read_write", "--target", pg, "--shard", "4/4", "--run-id", "r"}, 2, "must be 0..3"},
		{"shard without a run id", []string{"run", "oltp_read_write", "--target", pg, "--shard", "0/4"}, 2, "needs --run-id or --start-at"},
		{"shard with steady state", []string{"run", "oltp_read_write", "--target", pg, "--shard", "0/2", "--run-id", "r", "--warmup", "20s", "--steady-state", "5s"}, 2, "--shard and --steady-state"},
		{"shard with prepare always", []string{"run", "oltp_read_write", "--target", pg, "--shard", "0/2", "--run-id", "r", "--prepare", "always"}, 2, "--shard and --prepare always"},
		{"shard with more shards than virtual users", []string{"run", "oltp_read_write", "--target", pg, "--shard", "0/4", "--run-id", "r", "--threads", "2"}, 2, "give at least 4 threads"},
		{"run id with a slash", []string{"run", "oltp_read_write", "--target", pg, "--run-id", "a/b"}, 2, `--run-id "a/b"`},
		{"start-at not a time", []string{"run", "oltp_read_write", "--target", pg, "--start-at", "tomorrow"}, 2, "RFC 3339"},
		{"merge nothing", []string{"merge"}, 2, "name the shards' result files"},
		{"merge files and a run", []string{"merge", "--run", "r", notJSON}, 2, "not both"},
	}
	runtime := []tc{
		{"report missing file", []string{"report", missing}, 1, "no such file"},
		{"report not JSON", []string{"report", notJSON}, 1, "is not JSON"},
		{"report JSON of no known kind", []string{"report", emptyObj}, 1, "neither a result, a sweep nor a plan"},
		{"report future sweep", []string{"report", futureSweep}, 1, "schema version"},
		{"report future result", []string{"report", futureRun}, 1, "schema_version 99"},
		{"analyze not JSON", []string{"analyze", notJSON}, 1, "not a sweep file"},
		{"analyze missing file", []string{"analyze", missing}, 1, "no such file"},
		{"analyze future sweep", []string{"analyze", futureSweep}, 1, "schema version 99"},
		{"plan from not a sweep", []string{"plan", "--from", notJSON, "--target-rate", "100", "--host", seedHostFile}, 1, "not a sweep file"},
		{"plan vms missing", []string{"plan", "--vms", missing}, 1, "no such file"},
		{"history import not JSON", []string{"history", "import", notJSON, "--history", hist}, 1, "not JSON"},
		{"history show unknown key", []string{"history", "show", "nope", "--history", hist}, 1, "nope"},
		{"history catalog not a database", []string{"history", "list", "--history", "sqlite:" + notJSON}, 1, "not a database"},
		{"run on a database with no tables", []string{"run", "oltp_read_write", "--prepare", "never", "--target", lite, "--time", "1s", "--out", "-", "--no-history"}, 1, "sbtest1"},
		{"postgres unreachable", []string{"run", "oltp_read_write", "--target", "postgres://bob:hunter2@127.0.0.1:1/db?sslmode=prefer", "--time", "1s", "--out", "-", "--no-history"}, 1, "connection refused"},
		{"mysql unreachable", []string{"prepare", "oltp_read_write", "--target", "mysql://bob:hunter2@127.0.0.1:1/db"}, 1, "connection refused"},
		{"postgres server closes at once", []string{"cleanup", "oltp_read_write", "--target", pg}, 1, "postgres"},
		{"merge a result that is not a shard's", []string{"merge", "--no-history", futureRun}, 1, "schema_version 99"},
		{"merge a run the catalog lacks", []string{"merge", "--run", "nope", "--history", hist}, 1, "no shard of run nope"},
	}
	for _, c := range append(usage, runtime...) {
		t.Run(c.name, func(t *testing.T) {
			before := lst.count()
			o := run(t, context.Background(), c.args...)
			if o.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", o.code, c.code, o.stdout, o.stderr)
			}
			checkOneMessage(t, o)
			if !strings.Contains(o.stderr, c.want) {
				t.Errorf("stderr does not mention %q:\n%s", c.want, o.stderr)
			}
			if strings.Contains(o.stdout+o.stderr, "hunter2") {
				t.Errorf("the password is shown:\n%s%s", o.stdout, o.stderr)
			}
			if c.code == ExitUsage {
				if n := lst.count() - before; n != 0 {
					t.Errorf("a usage error opened %d connection(s) first", n)
				}
			}
		})
	}
	if _, err := os.Stat(fio); err == nil {
		t.Error("a refused fileio invocation created its file")
	}
	if n := len(usage) + len(runtime); n < 40 {
		t.Errorf("%d invocations, want at least 40", n)
	}
	t.Logf("%d usage errors, %d runtime failures", len(usage), len(runtime))
}

// TestBadInputOnServers: runtime failures that need the real servers: a
// wrong password, a missing database, a read-only user running prepare.
// PostgreSQL here trusts loopback (pg_hba "trust"), so a wrong password
// cannot fail there; MariaDB checks it.
func TestBadInputOnServers(t *testing.T) {
	ctx := context.Background()
	myURL := testenv.MySQLURL(t)
	pgURL := testenv.PostgresURL(t)
	myDB := strings.TrimPrefix(mustURL(t, myURL).Path, "/")
	pgDB := strings.TrimPrefix(mustURL(t, pgURL).Path, "/")
	myAdmin := execOn(t, myURL)
	pgAdmin := execOn(t, pgURL)

	// A MariaDB user with a password, and one that may only read.
	pwUser, roUser := uniqueName("rs_pw_"), uniqueName("rs_ro_")
	myAdmin("CREATE USER '" + pwUser + "'@'127.0.0.1' IDENTIFIED BY 'Right-pw-1'")
	myAdmin("GRANT ALL ON `" + myDB + "`.* TO '" + pwUser + "'@'127.0.0.1'")
	myAdmin("CREATE USER '" + roUser + "'@'127.0.0.1' IDENTIFIED BY 'Ro-pw-1'")
	myAdmin("GRANT SELECT ON `" + myDB + "`.* TO '" + roUser + "'@'127.0.0.1'")
	t.Cleanup(func() {
		myAdmin("DROP USER IF EXISTS '" + pwUser + "'@'127.0.0.1'")
		myAdmin("DROP USER IF EXISTS '" + roUser + "'@'127.0.0.1'")
	})
	// A PostgreSQL role that may connect but not create anything: since
	// PostgreSQL 15 the public schema grants CREATE to its owner only.
	pgRole := uniqueName("rs_ro_")
	pgAdmin("CREATE ROLE " + pgRole + " LOGIN")
	pgAdmin("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
	t.Cleanup(func() { pgAdmin("DROP ROLE IF EXISTS " + pgRole) })

	myAt := func(user, pw, db string) string {
		return "mysql://" + url.UserPassword(user, pw).String() + "@127.0.0.1:3306/" + db
	}
	pgAt := func(user, db string) string {
		return "postgres://" + user + "@127.0.0.1:5432/" + db + "?sslmode=disable"
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"mysql wrong password", []string{"run", "oltp_point_select", "--target", myAt(pwUser, "Wrong-pw-2", myDB), "--time", "1s", "--out", "-", "--no-history"},
			[]string{"Access denied", pwUser}},
		{"mysql wrong password on prepare", []string{"prepare", "oltp_point_select", "--target", myAt(pwUser, "Wrong-pw-2", myDB)},
			[]string{"Access denied"}},
		{"mysql missing database", []string{"run", "oltp_point_select", "--target", myAt(pwUser, "Right-pw-1", myDB+"_missing"), "--time", "1s", "--out", "-", "--no-history"},
			[]string{myDB + "_missing"}},
		{"postgres missing database", []string{"run", "oltp_point_select", "--target", pgAt("postgres", pgDB+"_missing"), "--time", "1s", "--out", "-", "--no-history"},
			[]string{"does not exist"}},
		{"postgres missing database on cleanup", []string{"cleanup", "tpcc", "--target", pgAt("postgres", pgDB+"_missing")},
			[]string{"does not exist"}},
		{"mysql read-only user prepares", []string{"prepare", "oltp_read_write", "--target", myAt(roUser, "Ro-pw-1", myDB), "--table-size", "100"},
			[]string{"CREATE command denied"}},
		{"postgres role without CREATE prepares", []string{"prepare", "oltp_read_write", "--target", pgAt(pgRole, pgDB), "--table-size", "100"},
			[]string{"permission denied"}},
		{"postgres role without CREATE prepares tpcc", []string{"prepare", "tpcc", "--target", pgAt(pgRole, pgDB)},
			[]string{"permission denied"}},
		{"check tpcc on an empty database", []string{"check", "tpcc", "--target", pgAt("postgres", pgDB)},
			[]string{"tpcc"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := run(t, ctx, c.args...)
			if o.code != ExitFailure {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", o.code, ExitFailure, o.stdout, o.stderr)
			}
			checkOneMessage(t, o)
			t.Logf("%s", o.stderr)
			for _, w := range c.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, o.stderr)
				}
			}
			for _, pw := range []string{"Wrong-pw-2", "Right-pw-1", "Ro-pw-1"} {
				if strings.Contains(o.stdout+o.stderr, pw) {
					t.Errorf("password %s shown:\n%s%s", pw, o.stdout, o.stderr)
				}
			}
		})
	}
	// Nothing was created by the refused prepares.
	var n int64
	queryOn(t, myURL, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = '"+myDB+"'", &n)
	if n != 0 {
		t.Errorf("%d tables in %s after the read-only user's prepare", n, myDB)
	}
	queryOn(t, pgURL, "SELECT COUNT(*) FROM pg_tables WHERE schemaname = 'public'", &n)
	if n != 0 {
		t.Errorf("%d tables in public after the role's prepare", n)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// queryOn runs a one-row query on url and scans it into dest.
func queryOn(t *testing.T, url, query string, dest ...any) {
	t.Helper()
	ctx := context.Background()
	c := connectTo(t, url)
	if err := c.QueryRow(ctx, query, nil, dest...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// connectTo opens one connection to url, closed when the test ends.
func connectTo(t *testing.T, url string) dialect.Conn {
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
	return c
}
