package custom

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

type progress struct {
	mu       sync.Mutex
	messages []string
}

func (p *progress) Total(int64)      {}
func (p *progress) Add(int64)        {}
func (p *progress) Message(s string) { p.mu.Lock(); p.messages = append(p.messages, s); p.mu.Unlock() }

// meter counts the spans a VU reports, per operation.
type meter struct {
	ends [8]int // by operation: buy, browse, buy/1..3, browse/1, begin, commit
	errs []error
}

func (m *meter) Start(op int) workload.Span { return workload.Span{Op: op, Start: time.Now()} }
func (m *meter) End(s workload.Span, err error) {
	m.ends[s.Op]++
	if err != nil {
		m.errs = append(m.errs, err)
	}
}
func (m *meter) Count(int, int64) {}
func (*meter) Retrying() bool     { return false }

func load(t *testing.T) *Workload {
	t.Helper()
	w, err := Load("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func count(t *testing.T, c dialect.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// scenario runs testdata/shop.yaml on rawURL: prepare refuses a missing
// existing table, then creates and loads its own; a run is refused until
// the writes to the existing table are allowed; three virtual users run
// the mix at once; cleanup drops the file's tables and never the existing
// one.
func scenario(t *testing.T, rawURL string) {
	ctx := context.Background()
	if err := load(t).Validate(); !errors.Is(err, workfile.ErrWritesExisting) || !strings.Contains(err.Error(), "transaction buy writes existing table(s) customers") {
		t.Fatalf("a file that writes an existing table, without --allow-writes: %v", err)
	}
	in := testenv.Open(t, load(t), rawURL, "--allow-writes").(*Instance)
	p := &progress{}
	err := in.Prepare(ctx, workload.PrepareOptions{}, p)
	if !errors.Is(err, workload.ErrNotPrepared) || !strings.Contains(err.Error(), "declares customers existing") {
		t.Fatalf("prepare without the existing table: %v", err)
	}
	if err := objects.EnsureDatabase(ctx, in.Target.D, in.Target.T); err != nil {
		t.Fatal(err)
	}
	c, err := in.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The copy of production: 50 customers with a balance of 1000.
	if _, err := c.Exec(ctx, "CREATE TABLE customers (id BIGINT NOT NULL PRIMARY KEY, balance DECIMAL(14,2) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		if _, err := c.Exec(ctx, "INSERT INTO customers (id, balance) VALUES (?, 1000)", i*10); err != nil {
			t.Fatal(err)
		}
	}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "SELECT COUNT(*) FROM items"); n != 2000 {
		t.Errorf("items: %d rows, want 2000", n)
	}
	if n := count(t, c, "SELECT COUNT(DISTINCT category) FROM items"); n != 3 {
		t.Errorf("items: %d categories, want 3", n)
	}
	notes, err := in.Match(ctx)
	if err != nil || !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "writes the existing table(s) customers (allowed by --allow-writes)")
	}) {
		t.Fatalf("match with --allow-writes: notes %q, %v", notes, err)
	}
	const vus, events = 3, 200
	meters := make([]meter, vus)
	var wg sync.WaitGroup
	for i := range vus {
		v, err := in.NewVU(ctx, i, uint64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.Close()
			for range events {
				_ = v.Event(ctx, &meters[i])
			}
		}()
	}
	wg.Wait()
	var buys, all int
	for _, m := range meters {
		for _, err := range m.errs {
			t.Errorf("event: %v", err)
		}
		buys += m.ends[0]
		all += m.ends[0] + m.ends[1]
	}
	if all != vus*events || buys < vus*events*30/100 || buys > vus*events*50/100 {
		t.Errorf("%d buys of %d events, want about 40 %%", buys, all)
	}
	// Each statement is timed as its own operation, and so are BEGIN and
	// COMMIT of the transaction that is not autocommit (buy).
	for _, m := range meters {
		if b, r := m.ends[0], m.ends[1]; m.ends[2] != b || m.ends[3] != b || m.ends[4] != b || m.ends[5] != r || m.ends[6] != b || m.ends[7] != b {
			t.Errorf("operations %v: want each of buy's statements, begin and commit %d times, browse's %d", m.ends, b, r)
		}
	}
	// The instance's VUs share the sequence: the orders are 1..buys.
	if n, hi := count(t, c, "SELECT COUNT(*) FROM orders"), count(t, c, "SELECT MAX(id) FROM orders"); n != int64(buys) || hi != int64(buys) {
		t.Errorf("orders: %d rows, highest id %d; want %d and %d", n, hi, buys, buys)
	}
	// Sampled customers exist; each total is the price returned (into) times the quantity.
	if n := count(t, c, "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.id = o.customer_id)"); n != 0 {
		t.Errorf("%d orders of customers that do not exist", n)
	}
	if n := count(t, c, "SELECT COUNT(*) FROM orders o JOIN items i ON i.id = o.item_id WHERE o.total <> i.price * o.qty"); n != 0 {
		t.Errorf("%d orders whose total is not the item's price times the quantity", n)
	}
	if n := count(t, c, "SELECT COUNT(*) FROM customers WHERE balance < 1000"); n == 0 {
		t.Error("no customer was charged")
	}
	if n := count(t, c, "SELECT COUNT(*) FROM orders WHERE method NOT IN ('card', 'transfer')"); n != 0 {
		t.Errorf("%d orders with a method the choice does not have", n)
	}

	removed, err := in.Cleanup(ctx, workload.PrepareOptions{Force: true})
	if err != nil || !slices.Equal(removed, []string{"items", "orders"}) {
		t.Errorf("cleanup: removed %v, %v; want items, orders", removed, err)
	}
	if ok, err := c.TableExists(ctx, "customers"); !ok || err != nil {
		t.Errorf("cleanup --force dropped the existing table customers (%v)", err)
	}

	// A table of the file's name that rightsize made for another workload
	// is neither loaded over nor dropped without --force.
	if _, err := c.Exec(ctx, "CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if err := objects.Ensure(ctx, c, in.Target.D); err != nil {
		t.Fatal(err)
	}
	if err := objects.Write(ctx, c, "orders", "tpcc", map[string]any{"warehouses": 1}); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"prepare": in.Prepare(ctx, workload.PrepareOptions{}, p),
		"cleanup": func() error { _, err := in.Cleanup(ctx, workload.PrepareOptions{}); return err }(),
	} {
		if err == nil || !strings.Contains(err.Error(), "orders (tpcc's) were made by rightsize for another workload") {
			t.Errorf("%s over tpcc's orders: %v", what, err)
		}
	}
	if ok, err := c.TableExists(ctx, "orders"); !ok || err != nil {
		t.Errorf("tpcc's orders was dropped (%v)", err)
	}
}

func TestPostgres(t *testing.T) { scenario(t, testenv.PostgresURL(t)) }
func TestMySQL(t *testing.T)    { scenario(t, testenv.MySQLURL(t)) }
func TestSQLite(t *testing.T)   { scenario(t, "sqlite:"+filepath.Join(t.TempDir(), "shop.db")) }

// TestRefusesOtherDialects: a file that names its databases runs on them
// only.
func TestRefusesOtherDialects(t *testing.T) {
	spec, err := workfile.Parse("pg.yaml", []byte("name: pg\ndialects: [postgres]\ntables: [{name: a, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := New(spec, "0")
	tg, err := w.ParseTarget("sqlite:"+filepath.Join(t.TempDir(), "x.db"), workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Open(context.Background()); !errors.Is(err, ErrDialect) || !strings.Contains(err.Error(), "pg.yaml names postgres, not sqlite") {
		t.Errorf("open on sqlite: %v", err)
	}
}

func TestMeta(t *testing.T) {
	m := load(t).Meta()
	// The transactions are the types; their statements, BEGIN and COMMIT
	// are the queries.
	want := []workload.Op{{Name: "buy", Kind: workload.Transaction, Type: true}, {Name: "browse", Kind: workload.Transaction, Type: true},
		{Name: "buy/1", Kind: workload.Read}, {Name: "buy/2", Kind: workload.Write}, {Name: "buy/3", Kind: workload.Write},
		{Name: "browse/1", Kind: workload.Read}, {Name: "begin", Kind: workload.Other}, {Name: "commit", Kind: workload.Other}}
	if m.Name != "shop" || m.Arg != "testdata/shop.yaml" || m.CommandArg() != "testdata/shop.yaml" || !slices.Equal(m.Ops, want) || !m.Prepare {
		t.Errorf("meta: %+v\nops want %+v", m, want)
	}
	for _, want := range []string{"buy", "40.0 %", "customers", "existing", "2,000 rows"} {
		if !strings.Contains(m.Long, want) {
			t.Errorf("help lacks %q:\n%s", want, m.Long)
		}
	}
}

// TestScannerTypes: a returned value of each type the dialects hand a
// Scanner becomes a value a later statement binds (MySQL's FLOAT comes as
// a float32, its BIGINT UNSIGNED as a uint64), reusing the value's bytes.
func TestScannerTypes(t *testing.T) {
	at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	for _, c := range []struct {
		in   any
		want string
	}{
		{int64(-7), "-7"}, {uint64(7), "7"}, {uint64(1 << 63), "9223372036854775808"}, {float32(1.5), "1.5"},
		{2.25, "2.25"}, {[]byte("ab"), "ab"}, {"cd", "cd"}, {true, "1"}, {at, "2026-12-06T01:02:03Z"},
	} {
		var v workfile.Value
		if err := (scanner{&v}).Scan(c.in); err != nil {
			t.Errorf("%T %v: %v", c.in, c.in, err)
			continue
		}
		if got := v.String(); got != c.want || v.Null {
			t.Errorf("%T %v: %q (null %v), want %q", c.in, c.in, got, v.Null, c.want)
		}
	}
	var v workfile.Value
	if err := (scanner{&v}).Scan(nil); err != nil || !v.Null {
		t.Errorf("NULL: %+v, %v", v, err)
	}
}

// retryMeter retries every event once: its spans are recorded.
type retryMeter struct {
	meter
	retrying bool
	spans    []workload.Span
}

func (m *retryMeter) End(s workload.Span, err error) { m.spans = append(m.spans, s) }
func (m *retryMeter) Retrying() bool                 { return m.retrying }

// TestRetrySpansEveryAttempt: a retried transaction is the same one again,
// and its span starts at its first attempt, as the event's latency does.
func TestRetrySpansEveryAttempt(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "r.yaml")
	text := "name: r\ntables: [{name: a, rows: 10, columns: [{name: id, type: int, gen: {type: seq}}], primary_key: [id]}]\n" +
		"params: {k: {type: int, min: 1, max: 10}}\n" +
		"transactions:\n  - {name: x, weight: 1, statements: ['SELECT id FROM a WHERE id = :k']}\n  - {name: y, weight: 1, statements: ['SELECT id FROM a WHERE id > :k']}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	in := testenv.Open(t, w, "sqlite:"+filepath.Join(t.TempDir(), "r.db")).(*Instance)
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	v, err := in.NewVU(ctx, 0, 42)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for range 20 {
		m := &retryMeter{}
		if err := v.Event(ctx, m); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
		m.retrying = true
		if err := v.Event(ctx, m); err != nil {
			t.Fatal(err)
		}
		// The transactions' spans (ops 0 and 1; their statements' follow).
		var txs []workload.Span
		for _, sp := range m.spans {
			if sp.Op < 2 {
				txs = append(txs, sp)
			}
		}
		if len(txs) != 2 || txs[1].Op != txs[0].Op || !txs[1].Start.Equal(txs[0].Start) {
			t.Fatalf("retry: transaction spans %v; want the retry's op and start the first attempt's", txs)
		}
	}
}

// TestSeqGoesOnAcrossRunsAndShards: a sequence with after: inserts past
// the rows earlier runs inserted, and two shards of one run insert
// disjoint keys, so that no run collides with another's rows.
func TestSeqGoesOnAcrossRunsAndShards(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "s.yaml")
	text := "name: s\ntables: [{name: t, rows: 5, columns: [{name: id, type: bigint, gen: {type: seq}}], primary_key: [id]}]\n" +
		"params: {n: {type: seq, after: t.id}}\n" +
		"transactions:\n  - {name: ins, statements: ['INSERT INTO t (id) VALUES (:n)']}\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	target := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	first := testenv.Open(t, w, target).(*Instance)
	if err := first.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	vu := func(in *Instance) workload.VU {
		t.Helper()
		v, err := in.NewVU(ctx, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { v.Close() })
		return v
	}
	events := func(v workload.VU, n int) {
		t.Helper()
		for range n {
			if err := v.Event(ctx, &meter{}); err != nil {
				t.Fatalf("event: %v", err)
			}
		}
	}
	events(vu(first), 10) // 6..15
	// A later run in two shards, their virtual users connected (the
	// highest id read) before either inserts: 20 ids above 15 between
	// them (from 17: the shards start on a whole round of two).
	var shards []workload.VU
	for i := range 2 {
		in := testenv.Open(t, w, target).(*Instance)
		in.SetShard(i, 2)
		shards = append(shards, vu(in))
	}
	for _, v := range shards {
		events(v, 10)
	}
	c, err := first.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, hi := count(t, c, "SELECT COUNT(*) FROM t"), count(t, c, "SELECT MAX(id) FROM t"); n != 35 || hi != 36 {
		t.Errorf("%d rows up to %d; want 35 up to 36", n, hi)
	}
	if n := count(t, c, "SELECT COUNT(*) FROM t WHERE id > 15"); n != 20 {
		t.Errorf("%d rows above the first run's 15, want the shards' 20", n)
	}
}
