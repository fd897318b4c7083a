package tpcc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// checkDialects are the databases the consistency checks run on; each
// returns the URL of a fresh, empty database.
var checkDialects = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "tpcc.db") }},
	{"postgres", func(t *testing.T) string { return testenv.PostgresURL(t) }},
	{"mysql", func(t *testing.T) string { return testenv.MySQLURL(t) }},
}

// openCheck opens a TPC-C instance on rawURL and a plain connection to it.
func openCheck(t *testing.T, rawURL string) (*Workload, *instance, dialect.Conn) {
	t.Helper()
	ctx := context.Background()
	w := New()
	tg, err := w.ParseTarget(rawURL, workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wi, err := tg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	in := wi.(*instance)
	t.Cleanup(func() { in.Close() })
	if _, err := in.Target.D.EnsureDatabase(ctx, in.Target.T); err != nil {
		t.Fatal(err)
	}
	c, err := in.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return w, in, c
}

// The tiny population: the shape of clause 4.3.3.1 (orders 1..2100 of each
// district delivered, the next ones new; one HISTORY row of 10.00 per
// customer; W_YTD and D_YTD the sums of HISTORY), but 2 warehouses of 2
// districts of 4 customers and 2,103 orders, with 1 to 3 lines an order.
// Unlike the spec's, delivered lines have amounts (line n: (n-1) x 1.07, so
// the first is 0.00) and C_BALANCE carries them, so that conditions 10 and 12
// add something.
const (
	tinyWarehouses = 2
	tinyDistricts  = 2
	tinyCustomers  = 4
	tinyNewOrders  = 3
	tinyOrders     = initialDelivered + tinyNewOrders // 2103
)

func tinyLines(oid int) int    { return oid%3 + 1 }  // 1..3
func tinyCarrier(oid int) int  { return oid%10 + 1 } // 1..10
func tinyCustomer(oid int) int { return (oid-1)%tinyCustomers + 1 }

// tinyAmount is the amount of line n of an order, in cents.
func tinyAmount(oid, n int, delivered bool) int64 {
	if delivered {
		return int64(n-1) * 107
	}
	return int64(oid%50)*100 + int64(n)*13
}

func cents2(c int64) float64 { return float64(c) / 100 }

// sliceRows is a RowSource over rows built in memory.
type sliceRows struct {
	rows [][]any
	i    int
}

func (s *sliceRows) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceRows) Values() ([]any, error) { return s.rows[s.i-1], nil }
func (s *sliceRows) Err() error             { return nil }

// tinyCounts are the groups and rows the conditions examine on it.
type tinyCounts struct{ warehouses, districts, orders, lines, customers int64 }

// loadTiny creates the tables the conditions read and loads the tiny
// population, consistent with all twelve conditions.
func loadTiny(t *testing.T, in *instance, c dialect.Conn) tinyCounts {
	t.Helper()
	ctx := context.Background()
	for _, name := range checkTables {
		if _, err := c.Exec(ctx, tableByName(name).createSQL(in.Target.D)); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	rows := map[string][][]any{}
	add := func(table string, v ...any) { rows[table] = append(rows[table], v) }
	for w := 1; w <= tinyWarehouses; w++ {
		add("warehouse", int64(w), "w", "s1", "s2", "city", "ST", "123451111", 0.1, cents2(1000*tinyDistricts*tinyCustomers))
		for d := 1; d <= tinyDistricts; d++ {
			add("district", int64(d), int64(w), "d", "s1", "s2", "city", "ST", "123451111", 0.1,
				cents2(1000*tinyCustomers), int64(tinyOrders+1))
			delivered := make([]int64, tinyCustomers+1) // cents, by c_id
			for o := 1; o <= tinyOrders; o++ {
				isDelivered := o <= initialDelivered
				var carrier, deliveryD any
				if isDelivered {
					carrier, deliveryD = int64(tinyCarrier(o)), now
				}
				add("orders", int64(o), int64(d), int64(w), int64(tinyCustomer(o)), now, carrier, int64(tinyLines(o)), int64(1))
				for n := 1; n <= tinyLines(o); n++ {
					a := tinyAmount(o, n, isDelivered)
					if isDelivered {
						delivered[tinyCustomer(o)] += a
					}
					add("order_line", int64(o), int64(d), int64(w), int64(n), int64(o*7%100+1), int64(w), deliveryD,
						int64(5), cents2(a), "dist-info-dist-info-1234")
				}
				if !isDelivered {
					add("new_order", int64(o), int64(d), int64(w))
				}
			}
			for cid := 1; cid <= tinyCustomers; cid++ {
				add("customer", int64(cid), int64(d), int64(w), "first", "OE", "BARBARBAR", "s1", "s2", "city", "ST",
					"123451111", "0123456789012345", now, "GC", 50000.0, 0.1, cents2(delivered[cid]-1000), 10.0,
					int64(1), int64(0), "data")
				add("history", int64(cid), int64(d), int64(w), int64(d), int64(w), now, 10.0, "history data")
			}
		}
	}
	for _, name := range checkTables {
		if _, err := c.Load(ctx, name, tableByName(name).columns(), &sliceRows{rows: rows[name]}); err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
	}
	return tinyCounts{
		warehouses: int64(len(rows["warehouse"])), districts: int64(len(rows["district"])),
		orders: int64(len(rows["orders"])), lines: int64(len(rows["order_line"])), customers: int64(len(rows["customer"])),
	}
}

// checkProgress records the progress messages.
type checkProgress struct{ messages []string }

func (p *checkProgress) Total(int64)      {}
func (p *checkProgress) Add(int64)        {}
func (p *checkProgress) Message(s string) { p.messages = append(p.messages, s) }
func byName(rs []workload.CheckResult) map[string]workload.CheckResult {
	m := map[string]workload.CheckResult{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}

// failed lists the numbers of the conditions that failed.
func failed(rs []workload.CheckResult) []int {
	var out []int
	for i, r := range rs {
		if !r.Passed {
			out = append(out, i+1)
		}
	}
	return out
}

func runCheck(t *testing.T, w *Workload, in *instance) []workload.CheckResult {
	t.Helper()
	p := &checkProgress{}
	rs, err := in.Check(context.Background(), p)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if len(rs) != 12 {
		t.Fatalf("Check returned %d results, want 12", len(rs))
	}
	for i, r := range rs {
		if want := fmt.Sprintf("3.3.2.%d", i+1); r.Name != want {
			t.Errorf("result %d is %q, want %q", i, r.Name, want)
		}
		if r.Title == "" {
			t.Errorf("%s has no title", r.Name)
		}
		if !r.Passed && len(r.Details) == 0 {
			t.Errorf("%s failed without details", r.Name)
		}
		if r.Skipped != "" && !r.Passed {
			t.Errorf("%s skipped but failed", r.Name)
		}
	}
	if len(p.messages) != 12 {
		t.Errorf("%d progress messages, want one per condition: %q", len(p.messages), p.messages)
	}
	return rs
}

func describe(rs []workload.CheckResult) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  %s passed=%v skipped=%q checked=%d %q", r.Name, r.Passed, r.Skipped, r.Checked, r.Details)
	}
	return b.String()
}

// corruption is one statement that breaks a condition, and its inverse.
type corruption struct {
	name    string
	target  int      // the condition it is aimed at
	also    []int    // the other conditions it breaks (and why, in the comment)
	do      string   // the corrupting statement
	undo    string   // restores the population
	details []string // substrings each expected in the target's details
}

var corruptions = []corruption{
	// One cent off: the tolerance is half a cent. W_YTD is also sum(H_AMOUNT).
	{name: "w_ytd", target: 1, also: []int{8},
		do:      "UPDATE warehouse SET w_ytd = w_ytd + 0.01 WHERE w_id = 2",
		undo:    "UPDATE warehouse SET w_ytd = w_ytd - 0.01 WHERE w_id = 2",
		details: []string{"w_id=2: w_ytd=80.01, sum(d_ytd)=80.00"}},
	{name: "d_next_o_id", target: 2,
		do:      "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 2",
		undo:    "UPDATE district SET d_next_o_id = d_next_o_id - 1 WHERE d_w_id = 1 AND d_id = 2",
		details: []string{"w_id=1 d_id=2: d_next_o_id-1=2104, max(o_id)=2103, max(no_o_id)=2103"}},
	// A hole in the new orders: order 2102 is then undelivered without a
	// NEW-ORDER row (5), and one more order counts as delivered (11).
	{name: "new_order hole", target: 3, also: []int{5, 11},
		do:      "DELETE FROM new_order WHERE no_w_id = 2 AND no_d_id = 1 AND no_o_id = 2102",
		undo:    "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2102, 1, 2)",
		details: []string{"w_id=2 d_id=1: max(no_o_id)=2103, min(no_o_id)=2101, count(new_order)=2"}},
	// An order line without an order: no order's count changes (6), and no
	// order joins it (7, 10, 12).
	{name: "orphan order line", target: 4,
		do: "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount) " +
			"VALUES (9999, 1, 1, 1, 1, 1, 5, 1.00)",
		undo:    "DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 9999",
		details: []string{"w_id=1 d_id=1: sum(o_ol_cnt)="}},
	// A delivered order loses its carrier: its lines are still delivered
	// (7), and the district has fewer orders with a carrier than the load
	// delivers (11).
	{name: "carrier lost", target: 5, also: []int{7, 11},
		do:      "UPDATE orders SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 5",
		undo:    fmt.Sprintf("UPDATE orders SET o_carrier_id = %d WHERE o_w_id = 1 AND o_d_id = 2 AND o_id = 5", tinyCarrier(5)),
		details: []string{"w_id=1 d_id=2 o_id=5: o_carrier_id=NULL but no new_order row"}},
	// One line moves from order 11 to order 10 in O_OL_CNT only: the
	// district's sum (4) is unchanged.
	{name: "o_ol_cnt", target: 6,
		do:   "UPDATE orders SET o_ol_cnt = o_ol_cnt + (CASE WHEN o_id = 10 THEN 1 ELSE -1 END) WHERE o_w_id = 2 AND o_d_id = 2 AND o_id IN (10, 11)",
		undo: "UPDATE orders SET o_ol_cnt = o_ol_cnt - (CASE WHEN o_id = 10 THEN 1 ELSE -1 END) WHERE o_w_id = 2 AND o_d_id = 2 AND o_id IN (10, 11)",
		details: []string{
			fmt.Sprintf("w_id=2 d_id=2 o_id=10: o_ol_cnt=%d, count(order_line)=%d", tinyLines(10)+1, tinyLines(10)),
			fmt.Sprintf("w_id=2 d_id=2 o_id=11: o_ol_cnt=%d, count(order_line)=%d", tinyLines(11)-1, tinyLines(11)),
		}},
	// The first line of a delivered order (amount 0.00, so no balance moves)
	// loses its delivery date.
	{name: "ol_delivery_d lost", target: 7,
		do:      "UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 8 AND ol_number = 1",
		undo:    "UPDATE order_line SET ol_delivery_d = (SELECT MAX(o_entry_d) FROM orders) WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 8 AND ol_number = 1",
		details: []string{fmt.Sprintf("w_id=1 d_id=1 o_id=8: o_carrier_id=%d but 1 order line has ol_delivery_d NULL", tinyCarrier(8))}},
	// A payment booked to the wrong warehouse: its district changes too (9).
	{name: "h_w_id", target: 8, also: []int{9},
		do:      "UPDATE history SET h_w_id = 2 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 3",
		undo:    "UPDATE history SET h_w_id = 1 WHERE h_c_w_id = 1 AND h_c_d_id = 1 AND h_c_id = 3",
		details: []string{"w_id=1: w_ytd=80.00, sum(h_amount)=70.00", "w_id=2: w_ytd=80.00, sum(h_amount)=90.00"}},
	// A payment booked to the wrong district of the right warehouse.
	{name: "h_d_id", target: 9,
		do:      "UPDATE history SET h_d_id = 2 WHERE h_c_w_id = 2 AND h_c_d_id = 1 AND h_c_id = 2",
		undo:    "UPDATE history SET h_d_id = 1 WHERE h_c_w_id = 2 AND h_c_d_id = 1 AND h_c_id = 2",
		details: []string{"w_id=2 d_id=1: d_ytd=40.00, sum(h_amount)=30.00", "w_id=2 d_id=2: d_ytd=40.00, sum(h_amount)=50.00"}},
	// A payment booked to the wrong customer of the right district.
	{name: "h_c_id", target: 10,
		do:      "UPDATE history SET h_c_id = 4, h_data = 'moved' WHERE h_c_w_id = 1 AND h_c_d_id = 2 AND h_c_id = 1",
		undo:    "UPDATE history SET h_c_id = 1, h_data = 'history data' WHERE h_data = 'moved'",
		details: []string{"w_id=1 d_id=2 c_id=1: c_balance=", "w_id=1 d_id=2 c_id=4: c_balance="}},
	// An undelivered order lost, its NEW-ORDER row kept: its lines no longer
	// add up to the district's O_OL_CNT (4), and one NEW-ORDER row too many
	// for the orders (11). (A delivered order added without lines is no
	// longer caught: it is one delivered since the load, as far as the
	// tables tell.)
	{name: "order lost, new order kept", target: 11, also: []int{4},
		do: "DELETE FROM orders WHERE o_w_id = 2 AND o_d_id = 1 AND o_id = 2102",
		undo: fmt.Sprintf("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local) VALUES (2102, 1, 2, %d, NULL, %d, 1)",
			tinyCustomer(2102), tinyLines(2102)),
		details: []string{"w_id=2 d_id=1: count(orders)=2102, count(new_order)=3, want a difference of 2100 + 0 delivered since the load (2100 orders with a carrier)"}},
	{name: "c_ytd_payment", target: 12,
		do:   "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3",
		undo: "UPDATE customer SET c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 2 AND c_id = 3",
		// The tiny population is not rightsize's load: a failure here says
		// that the tool that loaded and ran it may be the cause.
		details: []string{"w_id=1 d_id=2 c_id=3: c_balance+c_ytd_payment=", "these tables were not loaded by rightsize"}},
}

func exec(t *testing.T, c dialect.Conn, q string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestCheckCorruptions loads the tiny population on each dialect, checks that
// all twelve conditions hold, then breaks each condition with one statement,
// checks that it is caught (and which others break with it), and undoes it.
func TestCheckCorruptions(t *testing.T) {
	for _, dc := range checkDialects {
		t.Run(dc.name, func(t *testing.T) {
			t.Parallel()
			w, in, c := openCheck(t, dc.url(t))
			n := loadTiny(t, in, c)

			rs := runCheck(t, w, in)
			if f := failed(rs); len(f) > 0 {
				t.Fatalf("conditions %v fail on the tiny population:%s", f, describe(rs))
			}
			for _, r := range rs {
				if r.Skipped != "" {
					t.Errorf("%s skipped on the initial population: %s", r.Name, r.Skipped)
				}
			}
			wantChecked := []int64{n.warehouses, n.districts, n.districts, n.districts, n.orders, n.orders,
				n.lines, n.warehouses, n.districts, n.customers, n.districts, n.customers}
			for i, r := range rs {
				if r.Checked != wantChecked[i] {
					t.Errorf("%s checked %d, want %d", r.Name, r.Checked, wantChecked[i])
				}
			}

			for _, k := range corruptions {
				exec(t, c, k.do)
				rs := runCheck(t, w, in)
				exec(t, c, k.undo)
				want := append([]int{k.target}, k.also...)
				slices.Sort(want)
				if got := failed(rs); !slices.Equal(got, want) {
					t.Errorf("%s: conditions %v fail, want %v:%s", k.name, got, want, describe(rs))
					continue
				}
				r := rs[k.target-1]
				for _, d := range k.details {
					if !slices.ContainsFunc(r.Details, func(s string) bool { return strings.Contains(s, d) }) {
						t.Errorf("%s: %s details %q lack %q", k.name, r.Name, r.Details, d)
					}
				}
				t.Logf("%s: %s fails (also %v): %q", k.name, r.Name, k.also, r.Details)
			}

			// A Delivery as HammerDB's runs it: order 2101 of district
			// (1, 1) delivered (its NEW-ORDER row deleted, a carrier, its
			// lines dated, their amount on the customer's balance), but
			// C_DELIVERY_CNT left 0. Every condition holds, 11 among them
			// (issue 47: it failed, deciding from C_DELIVERY_CNT that no
			// Delivery had run).
			deliver := []string{
				"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 1 AND no_o_id = 2101",
				"UPDATE orders SET o_carrier_id = 3 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2101",
				"UPDATE order_line SET ol_delivery_d = (SELECT MAX(o_entry_d) FROM orders) WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101",
				fmt.Sprintf("UPDATE customer SET c_balance = c_balance + (SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 1 AND ol_o_id = 2101) "+
					"WHERE c_w_id = 1 AND c_d_id = 1 AND c_id = %d", tinyCustomer(2101)),
			}
			for _, q := range deliver {
				exec(t, c, q)
			}
			rs = runCheck(t, w, in)
			if f := failed(rs); len(f) > 0 {
				t.Errorf("conditions %v fail after a Delivery that left C_DELIVERY_CNT 0:%s", f, describe(rs))
			}
			if r := rs[10]; r.Skipped != "" || r.Checked != n.districts {
				t.Errorf("3.3.2.11 after a Delivery: skipped %q, checked %d; want it checked on %d districts", r.Skipped, r.Checked, n.districts)
			}
			// The orders inconsistent after it: an undelivered order lost,
			// its NEW-ORDER row kept.
			exec(t, c, "DELETE FROM orders WHERE o_w_id = 1 AND o_d_id = 1 AND o_id = 2102")
			rs = runCheck(t, w, in)
			exec(t, c, fmt.Sprintf("INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_carrier_id, o_ol_cnt, o_all_local) VALUES (2102, 1, 1, %d, NULL, %d, 1)",
				tinyCustomer(2102), tinyLines(2102)))
			if got, want := failed(rs), []int{4, 11}; !slices.Equal(got, want) {
				t.Errorf("after a Delivery, an order lost: conditions %v fail, want %v:%s", got, want, describe(rs))
			}
			if d := rs[10].Details; len(d) != 1 || d[0] != "w_id=1 d_id=1: count(orders)=2102, count(new_order)=2, want a difference of 2100 + 1 delivered since the load (2101 orders with a carrier)" {
				t.Errorf("3.3.2.11's details: %q", d)
			}

			// More than 20 offending rows: 20 are listed, then the count of the rest.
			exec(t, c, "UPDATE orders SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id <= 25")
			rs = runCheck(t, w, in)
			exec(t, c, "UPDATE orders SET o_ol_cnt = o_ol_cnt - 1 WHERE o_w_id = 1 AND o_d_id = 1 AND o_id <= 25")
			if got, want := failed(rs), []int{4, 6}; !slices.Equal(got, want) {
				t.Errorf("25 orders off: conditions %v fail, want %v:%s", got, want, describe(rs))
			}
			if d := rs[5].Details; len(d) != 21 || d[20] != "... and 5 more" ||
				!strings.HasPrefix(d[0], "w_id=1 d_id=1 o_id=1: ") || !strings.HasPrefix(d[19], "w_id=1 d_id=1 o_id=20: ") {
				t.Errorf("25 orders off: details %q", d)
			}

			rs = runCheck(t, w, in)
			if f := failed(rs); len(f) > 0 {
				t.Errorf("conditions %v fail after the undos:%s", f, describe(rs))
			}
		})
	}
}

// TestCheckNotPrepared: a database without the tables, or without a
// warehouse, is an error, not a failed condition.
func TestCheckNotPrepared(t *testing.T) {
	ctx := context.Background()
	_, in, c := openCheck(t, "sqlite:"+filepath.Join(t.TempDir(), "tpcc.db"))
	_, err := in.Check(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "tables warehouse, district, customer, history, orders, new_order, order_line do not exist: run rightsize prepare tpcc first") {
		t.Errorf("empty database: %v", err)
	}
	for _, name := range checkTables {
		if name != "order_line" {
			exec(t, c, tableByName(name).createSQL(in.Target.D))
		}
	}
	_, err = in.Check(ctx, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "table order_line does not exist: run rightsize prepare tpcc first") {
		t.Errorf("no order_line: %v", err)
	}
	exec(t, c, tableByName("order_line").createSQL(in.Target.D))
	_, err = in.Check(ctx, nil)
	if err == nil || !strings.HasSuffix(err.Error(), "table warehouse is empty: run rightsize prepare tpcc first") {
		t.Errorf("no warehouse: %v", err)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := in.Check(cctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// nopMeter discards what a VU reports.
type nopMeter struct{}

func (nopMeter) Start(op int) workload.Span { return workload.Span{Op: op} }
func (nopMeter) End(workload.Span, error)   {}
func (nopMeter) Count(int, int64)           {}
func (nopMeter) Retrying() bool             { return false }

// TestCheckPrepared loads one warehouse with prepare on each dialect, checks
// that all twelve conditions hold, runs the five transactions on two
// terminals and checks again: everything holds, condition 11 counting the
// orders delivered since the load.
func TestCheckPrepared(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a warehouse on each dialect")
	}
	const stepsPerVU = 300
	for _, dc := range checkDialects {
		t.Run(dc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			w, in, _ := openCheck(t, dc.url(t))
			start := time.Now()
			if err := in.Prepare(ctx, workload.PrepareOptions{Threads: 4, Seed: 1}, nil); err != nil {
				t.Fatalf("prepare: %v", err)
			}
			loaded := time.Now()
			rs := runCheck(t, w, in)
			t.Logf("load %v, check %v", loaded.Sub(start).Round(time.Millisecond), time.Since(loaded).Round(time.Millisecond))
			if f := failed(rs); len(f) > 0 {
				t.Fatalf("conditions %v fail after prepare:%s", f, describe(rs))
			}
			want := []int64{1, 10, 10, 10, 30000, 30000, -1, 1, 10, 30000, 10, 30000}
			for i, r := range rs {
				if r.Skipped != "" {
					t.Errorf("%s skipped after prepare: %s", r.Name, r.Skipped)
				}
				if want[i] >= 0 && r.Checked != want[i] {
					t.Errorf("%s checked %d, want %d", r.Name, r.Checked, want[i])
				}
			}

			var wg sync.WaitGroup
			errs := make(chan error, 2*stepsPerVU)
			for id := range 2 {
				vu, err := in.NewVU(ctx, id, uint64(id)+1)
				if err != nil {
					t.Fatalf("NewVU: %v", err)
				}
				wg.Go(func() {
					defer vu.Close()
					for range stepsPerVU {
						// A lock timeout (SQLite's 5 s busy timeout, expired
						// on a loaded machine) rolls the transaction back,
						// as a deadlock does; runs retry both by default
						// (--retry), so neither is a failure here.
						if err := vu.Event(ctx, nopMeter{}); err != nil {
							if c := in.Classify(err); !c.Retryable() && c != errclass.LockTimeout {
								errs <- err
							}
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			distinct := map[string]int{}
			for err := range errs {
				distinct[err.Error()]++
			}
			for e, n := range distinct {
				t.Errorf("Event failed %d times: %s", n, e)
			}

			ran := time.Now()
			rs = runCheck(t, w, in)
			t.Logf("check after %d transactions: %v", 2*stepsPerVU, time.Since(ran).Round(time.Millisecond))
			if f := failed(rs); len(f) > 0 {
				t.Errorf("conditions %v fail after the run:%s", f, describe(rs))
			}
			if r := rs[10]; r.Skipped != "" || r.Checked != 10 {
				t.Errorf("3.3.2.11 after a run with Deliveries: skipped %q, checked %d; want it checked on the 10 districts", r.Skipped, r.Checked)
			}
		})
	}
}
