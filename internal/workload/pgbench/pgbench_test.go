package pgbench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/custom"
)

type progress struct{ messages []string }

func (p *progress) Total(int64)      {}
func (p *progress) Add(int64)        {}
func (p *progress) Message(s string) { p.messages = append(p.messages, s) }

// meter records the spans a VU reports.
type meter struct {
	ops  []int
	errs []error
	durs []time.Duration
}

func (m *meter) Start(op int) workload.Span { return workload.Span{Op: op, Start: time.Now()} }
func (m *meter) End(s workload.Span, err error) {
	m.ops = append(m.ops, s.Op)
	m.errs = append(m.errs, err)
	m.durs = append(m.durs, time.Since(s.Start))
}
func (m *meter) Count(int, int64) {}
func (*meter) Retrying() bool     { return false }

func newFlags(w *Workload) *pflag.FlagSet {
	fs := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	w.BindFlags(fs)
	return fs
}

func open(t *testing.T, rawURL string, args ...string) *instance {
	t.Helper()
	return testenv.Open(t, New(), rawURL, args...).(*instance)
}

func connect(t *testing.T, in *instance) dialect.Conn {
	t.Helper()
	c, err := in.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func count(t *testing.T, c dialect.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// events runs n events on a new VU of in and returns what it reported.
func events(t *testing.T, in *instance, id, n int) *meter {
	t.Helper()
	ctx := context.Background()
	v, err := in.NewVU(ctx, id, uint64(id)+1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	m := &meter{}
	for range n {
		_ = v.Event(ctx, m)
	}
	return m
}

func scriptFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "my.sql")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPrepareRunCleanup: prepare makes pgbench's tables as pgbench -i does;
// the built-in scripts keep its invariant (the balances' sums equal the
// history's); cleanup drops them.
func TestPrepareRunCleanup(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	in := open(t, url, "--scale=2", "--fillfactor=90", "-b", "tpcb-like@2", "-b", "simple-update@1", "-S")
	if err := in.Prepare(ctx, workload.PrepareOptions{}, &progress{}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, in)
	for q, want := range map[string]int64{
		"SELECT count(*) FROM pgbench_branches":                                                                 2,
		"SELECT count(*) FROM pgbench_tellers":                                                                  20,
		"SELECT count(*) FROM pgbench_accounts":                                                                 200000,
		"SELECT count(*) FROM pgbench_accounts WHERE bid = 2":                                                   100000,
		"SELECT count(*) FROM pgbench_tellers WHERE bid = 2":                                                    10,
		"SELECT count(*) FROM pgbench_history":                                                                  0,
		"SELECT count(*) FROM pgbench_branches WHERE filler IS NULL":                                            2,
		"SELECT length(filler) FROM pgbench_accounts WHERE aid = 7":                                             0, // '' blank-padded
		"SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench_%' AND reloptions::text = '{fillfactor=90}'": 3,
		"SELECT count(*) FROM pg_indexes WHERE indexname IN ('pgbench_branches_pkey', 'pgbench_tellers_pkey', 'pgbench_accounts_pkey')": 3,
	} {
		if got := count(t, c, q); got != want {
			t.Errorf("%s = %d, want %d", q, got, want)
		}
	}
	notes, err := in.Match(ctx)
	if err != nil || !strings.Contains(strings.Join(notes, "; "), ":scale is 2") {
		t.Fatalf("match: %v, %v", notes, err)
	}
	m := events(t, in, 3, 300)
	seen := map[int]int{}
	for i, err := range m.errs {
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		seen[m.ops[i]]++
	}
	if seen[0] < 100 || seen[1] < 30 || seen[2] < 30 {
		t.Errorf("scripts run %v times of 300, want about 150, 75, 75", seen)
	}
	hist := count(t, c, "SELECT count(*) FROM pgbench_history")
	if hist != int64(seen[0]+seen[1]) {
		t.Errorf("history has %d rows after %d tpcb-like and %d simple-update", hist, seen[0], seen[1])
	}
	sum := count(t, c, "SELECT sum(delta) FROM pgbench_history")
	if a := count(t, c, "SELECT sum(abalance) FROM pgbench_accounts"); a != sum {
		t.Errorf("accounts' balances %d, history's deltas %d", a, sum)
	}
	if max := count(t, c, "SELECT max(aid) FROM pgbench_history"); max > 200000 {
		t.Errorf("aid %d is beyond 100,000 * :scale", max)
	}
	removed, err := in.Cleanup(ctx, workload.PrepareOptions{})
	if err != nil || len(removed) != 4 {
		t.Fatalf("cleanup: %v, %v", removed, err)
	}
	if n := count(t, c, "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench_%' AND relkind = 'r'"); n != 0 {
		t.Errorf("%d tables left", n)
	}
}

// TestScriptFile: a script file's \set, \gset with a prefix, \if, \sleep,
// -D and :client_id run as pgbench runs them; the sleep counts in the
// transaction's time.
func TestScriptFile(t *testing.T) {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	f := scriptFile(t, `\set a 5
SELECT :a * 2 AS b, 'x' AS c \gset r_
\if :r_b = 10 and :r_b is not null
  INSERT INTO t VALUES (:client_id, :r_b, :d);
\elif true
  INSERT INTO t VALUES (-1, 0, 'elif');
\else
  INSERT INTO t VALUES (-2, 0, 'else');
\endif
\sleep 30 ms
SELECT count(*) AS n FROM t \gset
\if :n > 1
  \sleep 1 us
\endif
`)
	in := open(t, url, "-f", f, "-D", "d=hello")
	c := connect(t, in)
	if _, err := c.Exec(ctx, "CREATE TABLE t (id int, b int, d text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Match(ctx); err != nil {
		t.Fatal(err)
	}
	m := events(t, in, 7, 2)
	for i, err := range m.errs {
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if m.durs[i] < 30*time.Millisecond {
			t.Errorf("event %d took %v, less than its \\sleep", i, m.durs[i])
		}
	}
	var id, b int64
	var d string
	if err := c.QueryRow(ctx, "SELECT id, b, d FROM t LIMIT 1", nil, &id, &b, &d); err != nil {
		t.Fatal(err)
	}
	if id != 7 || b != 10 || d != "hello" || count(t, c, "SELECT count(*) FROM t") != 2 {
		t.Errorf("row (%d, %d, %q), want (7, 10, hello), 2 rows", id, b, d)
	}
	if name := in.Spec().Transactions[0].Name; name != "my" {
		t.Errorf("the file's operation is %q, want my", name)
	}
}

// TestRunTimeErrors: what pgbench aborts a client for fails the event,
// naming the file and line; an open transaction is rolled back.
func TestRunTimeErrors(t *testing.T) {
	url := testenv.PostgresURL(t)
	f := scriptFile(t, `BEGIN;
SELECT 1;
\set x 1 / :zero
END;
SELECT 1 AS one WHERE false \gset
`)
	in := open(t, url, "-f", f, "-D", "zero=0")
	m := events(t, in, 0, 2)
	for _, err := range m.errs {
		var se *custom.ScriptError
		if !errors.As(err, &se) || !strings.HasSuffix(err.Error(), "my.sql:3: division by zero") {
			t.Errorf("error %v, want my.sql:3: division by zero", err)
		}
	}
	// The second event began a transaction of its own: the first was
	// rolled back (else BEGIN would fail, or warn and the SELECT fail).
	f2 := scriptFile(t, "SELECT 1 AS one WHERE false \\gset\n")
	in2 := open(t, url, "-f", f2)
	m = events(t, in2, 0, 1)
	if err := m.errs[0]; err == nil || !strings.Contains(err.Error(), "my.sql:1: \\gset: expected one row, got 0") {
		t.Errorf("error %v", err)
	}
}

// TestRefused: a script pgbench refuses is refused by Validate with its
// file and line; a database other than PostgreSQL by the target.
func TestRefused(t *testing.T) {
	f := scriptFile(t, "SELECT 1;\n\\set x random(1, 10\n")
	w := New()
	fs := newFlags(w)
	if err := fs.Parse([]string{"-f", f, "-b", "nope", "-f", "missing.sql@2"}); err != nil {
		t.Fatal(err)
	}
	err := w.Validate()
	if !errors.Is(err, pgbenchscript.ErrInvalid) {
		t.Fatalf("error %v does not wrap ErrInvalid", err)
	}
	for _, want := range []string{f + `:2: \set: syntax error`, `--builtin nope: no builtin script found for name "nope"`, `could not open file "missing.sql"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	w = New()
	tg, err := w.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "x.db"), workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Open(context.Background()); !errors.Is(err, dialect.ErrBadTarget) || !strings.Contains(err.Error(), "PostgreSQL only") {
		t.Errorf("sqlite target: %v", err)
	}
	// pgbench's limit of 128 scripts, refused before any is read.
	w = New()
	fs = newFlags(w)
	var many []string
	for range MaxScripts + 1 {
		many = append(many, "-f", "/dev/zero")
	}
	_ = fs.Parse(many)
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "at most 128 SQL scripts are allowed") || !errors.Is(err, pgbenchscript.ErrInvalid) {
		t.Errorf("129 scripts: %v", err)
	}
	// A device is refused unread, as a usage error.
	w = New()
	fs = newFlags(w)
	_ = fs.Parse([]string{"-f", "/dev/zero"})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "not a regular file") || !errors.Is(err, pgbenchscript.ErrInvalid) {
		t.Errorf("-f /dev/zero: %v", err)
	}
	w = New()
	fs = newFlags(w)
	_ = fs.Parse([]string{"-b", "select-only@0"})
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "total script weight must not be zero") {
		t.Errorf("weight 0: %v", err)
	}
}

// pgbenchBin returns Debian's pgbench: the tests fail without it in CI.
func pgbenchBin(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pgbench is not installed (.ci/run installs postgresql-client)")
		}
		t.Skip("pgbench is not installed")
	}
	return bin
}

func runPgbench(t *testing.T, url string, args ...string) string {
	t.Helper()
	c := exec.Command(pgbenchBin(t), append(args, url)...)
	c.Env = append(os.Environ(), "PGSSLMODE=disable")
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestInterop: rightsize runs on tables pgbench -i made (with a note, its
// scale counted), and pgbench runs on tables rightsize made.
func TestInterop(t *testing.T) {
	ctx := context.Background()
	t.Run("rightsize on pgbench's tables", func(t *testing.T) {
		url := testenv.PostgresURL(t)
		runPgbench(t, url, "-i", "-s", "3", "-q")
		in := open(t, url)
		notes, err := in.Match(ctx)
		joined := strings.Join(notes, "; ")
		if err != nil || !strings.Contains(joined, "made by another tool") || !strings.Contains(joined, ":scale is 3") {
			t.Fatalf("match: %q, %v", joined, err)
		}
		m := events(t, in, 0, 50)
		for _, err := range m.errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		c := connect(t, in)
		if n := count(t, c, "SELECT count(*) FROM pgbench_history"); n != 50 {
			t.Errorf("history: %d rows after 50 tpcb-like", n)
		}
		// --scale that differs from the tables' is a mismatch.
		in = open(t, url, "--scale=5")
		if _, err := in.Match(ctx); !errors.Is(err, workload.ErrMismatch) {
			t.Errorf("--scale 5 on scale 3: %v", err)
		}
		// Not rightsize's tables: cleanup leaves them without --force.
		if _, err := in.Cleanup(ctx, workload.PrepareOptions{}); err == nil {
			t.Errorf("cleanup dropped pgbench's tables without --force")
		}
	})
	t.Run("pgbench on rightsize's tables", func(t *testing.T) {
		url := testenv.PostgresURL(t)
		in := open(t, url, "--scale=2")
		if err := in.Prepare(ctx, workload.PrepareOptions{}, &progress{}); err != nil {
			t.Fatal(err)
		}
		out := runPgbench(t, url, "-M", "prepared", "-c", "2", "-t", "25")
		if !strings.Contains(out, "scaling factor: 2") || !strings.Contains(out, "number of transactions actually processed: 50/50") {
			t.Errorf("pgbench:\n%s", out)
		}
		c := connect(t, in)
		if n := count(t, c, "SELECT count(*) FROM pgbench_history"); n != 50 {
			t.Errorf("history: %d rows after pgbench's 50", n)
		}
		if _, err := in.Match(ctx); err != nil {
			t.Errorf("match after pgbench ran: %v", err)
		}
	})
}

// TestExpressionsAsPgbench: pgbench itself evaluates expressions (debug()
// prints each) and rightsize's evaluation of the same gives the same
// values: integer and double arithmetic, hash, permute, coercions.
func TestExpressionsAsPgbench(t *testing.T) {
	url := testenv.PostgresURL(t)
	exprs := []string{
		"1 + 2 * 3 - 4 / 3", "7 % -3", "-7 / 2", "5.0 / 4", "0.1 + 0.2", "1e15 / 7",
		"hash(42)", "hash(42, 7)", "hash_fnv1a(-1, 123456789)", "hash_murmur2(9223372036854775807, -1)",
		"permute(5, 10, 1)", "permute(999999, 1000000, 42)", "permute(-3, 7, 0)", "permute(12, 10)",
		"abs(-9223372036854775807)", "least(3, 1.5, 2)", "greatest(-1, -2)", "int(-2.5)", "int(7.49)",
		"double(1) / 3", "pow(2, 62)", "sqrt(2)", "ln(10)", "exp(1)", "pi() * 2",
		"case when 3 > 2 then 10 else 20 end", "(1 < 2) is true", "not (1 = 1) or 2 = 2", "1 << 62 >> 60",
		"~5 & 12", ":scale * 100000", "5 # 3 | 8", "9223372036854775807 / -1", "-9223372036854775808 % 3",
	}
	var b strings.Builder
	for i, e := range exprs {
		b.WriteString(`\set v` + string(rune('a'+i%26)) + " debug(" + e + ")\n")
	}
	f := scriptFile(t, b.String())
	out := runPgbench(t, url, "-n", "-t", "1", "-s", "4", "--random-seed", "77", "-f", f)
	var pg []string
	for _, line := range strings.Split(out, "\n") {
		if _, v, ok := strings.Cut(line, "): "); ok && strings.HasPrefix(line, "debug(") {
			pg = append(pg, v)
		}
	}
	if len(pg) != len(exprs) {
		t.Fatalf("pgbench printed %d values for %d expressions:\n%s", len(pg), len(exprs), out)
	}
	// default_seed is pgbench's own from --random-seed: read it back from
	// hash(42) = hash(42, default_seed) by trying rightsize's with seeds
	// is not possible; so the expressions without a seed are compared
	// through a program whose default_seed pgbench printed.
	seedOut := runPgbench(t, url, "-n", "-t", "1", "--random-seed", "77", "-f", scriptFile(t, "\\set s debug(:default_seed)\n"))
	_, seedText, _ := strings.Cut(seedOut[strings.Index(seedOut, "debug("):], "): int ")
	seedText = strings.Fields(seedText)[0]
	prog := pgbenchscript.NewProgram()
	s, err := prog.Add("x", f, b.String(), 1)
	if err != nil {
		t.Fatal(err)
	}
	st := prog.NewState(nil)
	slot, _ := prog.Lookup("scale")
	st.SetInt(slot, 4)
	slot, _ = prog.Lookup("default_seed")
	st.SetText(slot, []byte(seedText))
	for i, c := range s.Cmds {
		v, err := st.Eval(c.Expr)
		var got string
		if err != nil {
			got = "error"
		} else {
			got = v.K.String() + " " + v.String()
		}
		want := pg[i]
		if got != want && !(err != nil && strings.HasPrefix(want, "error")) {
			t.Errorf("%s: rightsize %s, pgbench %s", exprs[i], got, want)
		}
	}
}
