package tpcc

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// ldProgress records prepare's reports; safe for concurrent use so the race
// detector can judge the loaders' use of it.
type ldProgress struct {
	mu       sync.Mutex
	total    int64
	added    int64
	totals   int
	messages []string
	onAdd    func(added int64)
	onMsg    func(s string)
}

func (p *ldProgress) Total(n int64) { p.mu.Lock(); p.total = n; p.totals++; p.mu.Unlock() }
func (p *ldProgress) Add(n int64) {
	p.mu.Lock()
	p.added += n
	a, f := p.added, p.onAdd
	p.mu.Unlock()
	if f != nil {
		f(a)
	}
}
func (p *ldProgress) Message(s string) {
	p.mu.Lock()
	p.messages = append(p.messages, s)
	f := p.onMsg
	p.mu.Unlock()
	if f != nil {
		f(s)
	}
}

func (p *ldProgress) said(sub string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.messages {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

// ldOpen opens TPC-C with W warehouses on rawURL.
func ldOpen(t *testing.T, rawURL string, W int) *instance {
	t.Helper()
	return testenv.Open(t, New(), rawURL, "--warehouses="+strconv.Itoa(W)).(*instance)
}

func ldConn(t *testing.T, in *instance) dialect.Conn {
	t.Helper()
	c, err := in.Target.D.Connect(context.Background(), in.Target.T)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ldInt(t *testing.T, c dialect.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

func ldFloat(t *testing.T, c dialect.Conn, q string) float64 {
	t.Helper()
	var f float64
	if err := c.QueryRow(context.Background(), q, nil, &f); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return f
}

func ldExists(t *testing.T, c dialect.Conn, name string) bool {
	t.Helper()
	ok, err := c.TableExists(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// ldVerify checks a load of W warehouses with seed against clause 4.3.3.1
// and against the same load generated in memory.
func ldVerify(t *testing.T, c dialect.Conn, W int, seed uint64) {
	t.Helper()
	ctx := context.Background()
	want := ldSummarize(t, seed, W)
	w := int64(W)
	for name, n := range map[string]int64{
		"warehouse": w, "district": 10 * w, "customer": 30000 * w, "history": 30000 * w,
		"orders": 30000 * w, "new_order": 9000 * w, "item": 100000, "stock": 100000 * w,
		"order_line": want.rows["order_line"],
	} {
		if got := ldInt(t, c, "SELECT COUNT(*) FROM "+name); got != n {
			t.Errorf("%s: %d rows, want %d", name, got, n)
		}
	}
	if got := ldInt(t, c, "SELECT SUM(o_ol_cnt) FROM orders"); got != want.rows["order_line"] {
		t.Errorf("SUM(o_ol_cnt) = %d, want %d", got, want.rows["order_line"])
	}
	zero := map[string]string{
		"orders whose o_carrier_id is not NULL exactly from 2101": "SELECT COUNT(*) FROM orders WHERE (o_carrier_id IS NULL AND o_id < 2101) OR (o_carrier_id IS NOT NULL AND (o_id >= 2101 OR o_carrier_id < 1 OR o_carrier_id > 10))",
		"order lines delivered unlike their order":                "SELECT COUNT(*) FROM order_line WHERE (ol_delivery_d IS NULL AND ol_o_id < 2101) OR (ol_delivery_d IS NOT NULL AND ol_o_id >= 2101) OR (ol_amount = 0) <> (ol_o_id < 2101)",
		"districts with d_next_o_id other than 3001":              "SELECT COUNT(*) FROM district WHERE d_next_o_id <> 3001",
		"districts whose o_c_id is not a permutation":             "SELECT COUNT(*) FROM (SELECT o_w_id, o_d_id FROM orders GROUP BY o_w_id, o_d_id HAVING COUNT(DISTINCT o_c_id) <> 3000 OR MIN(o_c_id) <> 1 OR MAX(o_c_id) <> 3000) x",
		"districts whose new orders are not 2101..3000":           "SELECT COUNT(*) FROM (SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id HAVING COUNT(*) <> 900 OR MIN(no_o_id) <> 2101 OR MAX(no_o_id) <> 3000) x",
		"customers without c_since":                               "SELECT COUNT(*) FROM customer WHERE c_since IS NULL",
		"history rows not matching a customer":                    "SELECT COUNT(*) FROM history WHERE h_c_w_id <> h_w_id OR h_c_d_id <> h_d_id OR h_amount <> 10",
	}
	for what, q := range zero {
		if n := ldInt(t, c, q); n != 0 {
			t.Errorf("%s: %d", what, n)
		}
	}

	// Shares of clause 4.3.3.1.
	ldWithin(t, "i_data with ORIGINAL", ldInt(t, c, "SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'"), 100000, 0.10, 0.015)
	ldWithin(t, "s_data with ORIGINAL", ldInt(t, c, "SELECT COUNT(*) FROM stock WHERE s_data LIKE '%ORIGINAL%'"), 100000*w, 0.10, 0.015)
	ldWithin(t, "c_credit BC", ldInt(t, c, "SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'"), 30000*w, 0.10, 0.015)

	// The data are the seed's, whatever the loaders and interruptions.
	for q, n := range map[string]int64{
		"SELECT SUM(s_quantity) FROM stock":                                   want.sQuantity,
		"SELECT SUM(ol_i_id) FROM order_line":                                 want.olItems,
		"SELECT SUM(o_id * o_c_id) FROM orders":                               want.oPerm,
		"SELECT SUM(LENGTH(c_data)) FROM customer":                            want.cDataLen,
		"SELECT COUNT(*) FROM customer WHERE c_credit = 'BC'":                 want.credBC,
		"SELECT COUNT(*) FROM item WHERE i_data LIKE '%ORIGINAL%'":            want.iOriginal,
		"SELECT COUNT(*) FROM stock WHERE s_data LIKE '%ORIGINAL%'":           want.sOriginal,
		"SELECT COUNT(*) FROM customer WHERE LENGTH(c_first) < 8":             0,
		"SELECT COUNT(*) FROM stock WHERE LENGTH(s_dist_05) <> 24":            0,
		"SELECT COUNT(*) FROM customer WHERE c_discount > 0.5":                0,
		"SELECT COUNT(*) FROM warehouse WHERE w_tax > 0.2 OR w_ytd <> 300000": 0,
	} {
		if got := ldInt(t, c, q); got != n {
			t.Errorf("%s = %d, want %d", q, got, n)
		}
	}
	if got := ldFloat(t, c, "SELECT SUM(ol_amount) FROM order_line"); math.Abs(got-want.olAmount) > 0.5 {
		t.Errorf("SUM(ol_amount) = %.2f, want %.2f", got, want.olAmount)
	}
	if got := ldFloat(t, c, "SELECT SUM(i_price) FROM item"); math.Abs(got-float64(want.iPriceCents)/100) > 0.005 {
		t.Errorf("SUM(i_price) = %.2f, want %.2f", got, float64(want.iPriceCents)/100)
	}
	for k, names := range want.sample {
		if k[0] > w {
			continue
		}
		var first, last string
		err := c.QueryRow(ctx, "SELECT c_first, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?",
			[]any{k[0], k[1], k[2]}, &first, &last)
		if err != nil || first != names[0] || last != names[1] {
			t.Errorf("customer %v: %q %q (%v), want %q %q", k, first, last, err, names[0], names[1])
		}
	}

	// Timestamps read back as the load's time, in every dialect.
	ts, err := c.Prepare(ctx, "SELECT c_since FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?")
	if err != nil {
		t.Fatal(err)
	}
	var since string
	if err := ts.QueryRow(ctx, []any{1, 1, 1}, &since); err != nil {
		t.Fatal(err)
	}
	ts.Close()
	if at, err := time.Parse(time.DateTime, since); err != nil || time.Since(at) < -time.Minute || time.Since(at) > time.Hour {
		t.Errorf("c_since read back as %q (%v), want the load's time as 2006-01-02 15:04:05 (UTC)", since, err)
	}

	// c_last of customers 1..1000 is LastName(c_id-1).
	st, err := c.Prepare(ctx, "SELECT c_id, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id <= 1000")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Query(ctx, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	var last string
	n := 0
	for rows.Next() {
		if err := rows.Scan(&id, &last); err != nil {
			t.Fatal(err)
		}
		if last != LastName(id-1) {
			t.Errorf("c_last of customer %d = %q, want %q", id, last, LastName(id-1))
		}
		n++
	}
	if err := rows.Close(); err != nil || n != 1000 {
		t.Errorf("customers 1..1000 of district 3: %d (%v)", n, err)
	}
}

// ldScenario runs prepare and cleanup through their cases on one database
// with one warehouse: a foreign table refused, a forced prepare cancelled
// midway and resumed, a complete load kept, a cleanup that leaves a foreign
// table.
func ldScenario(t *testing.T, rawURL string) {
	ctx := context.Background()
	in := ldOpen(t, rawURL, 1)
	if _, err := in.Target.D.EnsureDatabase(ctx, in.Target.T); err != nil {
		t.Fatal(err)
	}
	c := ldConn(t, in)
	const seed = 7

	// A table of the user's: refused, nothing changed.
	if _, err := c.Exec(ctx, "CREATE TABLE stock (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO stock (x) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	err := in.Prepare(ctx, workload.PrepareOptions{Seed: seed}, &ldProgress{})
	if !errors.Is(err, objects.ErrNotOwned) || !strings.Contains(err.Error(), "stock") {
		t.Fatalf("prepare over a foreign stock: %v, want ErrNotOwned naming stock", err)
	}
	if n := ldInt(t, c, "SELECT COUNT(*) FROM stock"); n != 1 {
		t.Fatalf("foreign stock has %d rows after a refused prepare", n)
	}
	for _, tb := range schema {
		if tb.name != "stock" && ldExists(t, c, tb.name) {
			t.Fatalf("refused prepare created %s", tb.name)
		}
	}

	// --force, cancelled midway: when a loader starts its second unit (so
	// that at least one unit is complete and others are partial).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	loaders := 4
	if in.Target.D.Capabilities().SingleWriter {
		loaders = 1
	}
	started := 0
	p := &ldProgress{onMsg: func(s string) {
		if strings.HasPrefix(s, "loading warehouse ") || s == "loading item" {
			if started++; started == loaders+1 {
				cancel()
			}
		}
	}}
	err = in.Prepare(cctx, workload.PrepareOptions{Force: true, Seed: seed}, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled prepare returned %v, want context.Canceled", err)
	}
	t.Logf("cancelled prepare: %v", err)
	if n := ldInt(t, c, "SELECT COUNT(*) FROM "+objects.Table); n != int64(len(schema)) {
		t.Errorf("%d records after the cancelled prepare, want %d", n, len(schema))
	}

	// Resumed, with the recorded seed (Seed 0 keeps it).
	p = &ldProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	var full int64
	for _, n := range ldSummarize(t, seed, 1).rows {
		full += n
	}
	if p.total == 0 || p.total >= full || p.added != p.total {
		t.Errorf("resumed prepare: total %d, added %d; want less than a full load's %d", p.total, p.added, full)
	}
	t.Logf("resumed prepare loaded %d of %d rows", p.added, full)
	ldVerify(t, c, 1, seed)
	if in.Target.D.Name() == "postgres" { // vacuumed and analyzed by prepare, not left to autovacuum
		var names []string
		for _, tb := range schema {
			names = append(names, "'"+tb.name+"'")
		}
		q := "SELECT COUNT(*) FROM pg_stat_user_tables WHERE last_vacuum IS NOT NULL AND last_analyze IS NOT NULL AND relname IN (" + strings.Join(names, ", ") + ")"
		if n := ldInt(t, c, q); n != int64(len(schema)) {
			t.Errorf("%d of the %d tables vacuumed and analyzed after prepare", n, len(schema))
		}
	}
	if _, analyzes := in.Target.D.(dialect.Analyzer); p.said("analyzing ") != analyzes {
		t.Errorf("resumed prepare's messages %q: saying it analyzed a table is %v, want %v", p.messages, !analyzes, analyzes)
	}
	if cl, ok, err := in.loadConstants(ctx, c); err != nil || !ok || cl != loadConstantsFor(seed) {
		t.Errorf("loadConstants = %v %v %v, want %v", cl, ok, err, loadConstantsFor(seed))
	}

	// Complete: kept.
	p = &ldProgress{}
	start := time.Now()
	if err := in.Prepare(ctx, workload.PrepareOptions{Seed: seed}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("already loaded") || p.added != 0 {
		t.Errorf("second prepare: messages %q, added %d", p.messages, p.added)
	}
	t.Logf("second prepare (kept) took %v", time.Since(start))

	// Cleanup leaves a table without a record, drops the rest.
	if err := objects.Delete(ctx, c, "stock"); err != nil {
		t.Fatal(err)
	}
	removed, err := in.Cleanup(ctx, workload.PrepareOptions{})
	if !errors.Is(err, objects.ErrNotOwned) || !strings.Contains(err.Error(), "stock") || len(removed) != len(schema)-1 || slices.Contains(removed, "stock") {
		t.Fatalf("cleanup: removed %q, %v; want every table but stock, and ErrNotOwned naming stock", removed, err)
	}
	for _, tb := range schema {
		if got := ldExists(t, c, tb.name); got != (tb.name == "stock") {
			t.Errorf("after cleanup, %s exists: %v", tb.name, got)
		}
	}
	if ldExists(t, c, objects.Table) {
		t.Errorf("%s left behind with no record", objects.Table)
	}
	if _, ok, err := in.loadConstants(ctx, c); ok || err != nil {
		t.Errorf("loadConstants after cleanup: %v %v", ok, err)
	}
	if removed, err := in.Cleanup(ctx, workload.PrepareOptions{Force: true}); err != nil || !slices.Equal(removed, []string{"stock"}) {
		t.Fatalf("cleanup --force: removed %q, %v; want stock", removed, err)
	}
	if ldExists(t, c, "stock") {
		t.Error("cleanup --force left stock")
	}
}

func TestPrepareSQLite(t *testing.T) {
	t.Parallel()
	ldScenario(t, "sqlite:"+filepath.Join(t.TempDir(), "data", "tpcc.db"))
}

func TestPreparePostgres(t *testing.T) {
	t.Parallel()
	ldScenario(t, testenv.PostgresURL(t))
}

func TestPrepareMySQL(t *testing.T) {
	t.Parallel()
	ldScenario(t, testenv.MySQLURL(t))
}

// TestPreparePostgresTwoWarehouses loads W=2 with three loaders, then with
// another seed (a reload).
func TestPreparePostgresTwoWarehouses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := ldOpen(t, testenv.PostgresURL(t), 2)
	start := time.Now()
	if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 7, Threads: 3}, &ldProgress{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("W=2 loaded in %v", time.Since(start))
	c := ldConn(t, in)
	ldVerify(t, c, 2, 7)
	s7 := ldInt(t, c, "SELECT SUM(s_quantity) FROM stock")

	p := &ldProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 8, Threads: 3}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("the TPC-C tables were loaded with seed 7, --seed asks 8: dropping and loading again") {
		t.Errorf("reload with another seed said %q", p.messages)
	}
	ldVerify(t, c, 2, 8)
	if s8 := ldInt(t, c, "SELECT SUM(s_quantity) FROM stock"); s8 == s7 {
		t.Errorf("seeds 7 and 8 loaded the same SUM(s_quantity) %d", s8)
	}
	if cl, ok, err := in.loadConstants(ctx, c); err != nil || !ok || cl != loadConstantsFor(8) {
		t.Errorf("loadConstants = %v %v %v, want %v", cl, ok, err, loadConstantsFor(8))
	}
}

// ldGrow loads 1 warehouse, then prepares 2 with the seed kept: only the
// second warehouse's rows are loaded, and the tables hold what a load of 2
// holds.
func ldGrow(t *testing.T, rawURL string) {
	ctx := context.Background()
	one := ldOpen(t, rawURL, 1)
	if err := one.Prepare(ctx, workload.PrepareOptions{Seed: 7, Force: true}, &ldProgress{}); err != nil {
		t.Fatal(err)
	}
	two := ldOpen(t, rawURL, 2)
	p := &ldProgress{}
	if err := two.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	var w1, w2 int64
	for name, n := range ldSummarize(t, 7, 1).rows {
		w1 += n
		if name == "item" {
			w1 -= n // loaded once, with the first warehouse
		}
	}
	for _, n := range ldSummarize(t, 7, 2).rows {
		w2 += n
	}
	if !p.said("growing from 1 to 2 warehouse(s)") || float64(p.added) < 0.9*float64(w1) || float64(p.added) > 1.1*float64(w1) {
		t.Errorf("grow: said %q, loaded %d rows; want about one warehouse's %d, not the %d of a full load", p.messages, p.added, w1, w2)
	}
	c := ldConn(t, two)
	ldVerify(t, c, 2, 7)
	// Prepared again: kept.
	p = &ldProgress{}
	if err := two.Prepare(ctx, workload.PrepareOptions{}, p); err != nil || !p.said("already loaded: 2 warehouse(s), seed 7") {
		t.Errorf("prepare after the grow: %v, said %q", err, p.messages)
	}
	if _, err := two.Cleanup(ctx, workload.PrepareOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestPrepareGrowsSQLite(t *testing.T) {
	t.Parallel()
	ldGrow(t, "sqlite:"+filepath.Join(t.TempDir(), "grow.db"))
}

func TestPrepareGrowsPostgres(t *testing.T) {
	t.Parallel()
	ldGrow(t, testenv.PostgresURL(t))
}

func TestPrepareGrowsMySQL(t *testing.T) {
	t.Parallel()
	ldGrow(t, testenv.MySQLURL(t))
}

// A prepare interrupted while analyzing (after every row is loaded and
// indexed) leaves its tables recorded as indexed: the next prepare loads
// nothing, creates no index, and analyzes what was left.
func TestPrepareResumesTheAnalyzePostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := ldOpen(t, testenv.PostgresURL(t), 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &ldProgress{onMsg: func(s string) {
		if s == "analyzing customer" {
			cancel()
		}
	}}
	if err := in.Prepare(cctx, workload.PrepareOptions{Seed: 3}, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("prepare cancelled while analyzing customer: %v, want context.Canceled", err)
	}
	p = &ldProgress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if p.added != 0 || p.said("dropping") || p.said("indexing") || !p.said("analyzing customer") {
		t.Errorf("prepare after an interrupted analyze: loaded %d rows, said %q; want no rows, no index, customer analyzed", p.added, p.messages)
	}
	c := ldConn(t, in)
	ldVerify(t, c, 1, 3)
	if n := ldInt(t, c, "SELECT COUNT(*) FROM pg_stat_user_tables WHERE relname = 'customer' AND last_vacuum IS NOT NULL"); n != 1 {
		t.Error("customer not vacuumed after the resumed prepare")
	}
}
