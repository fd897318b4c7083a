package tpcc

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// ldSummary is what a load of W warehouses holds, summed the way the
// database tests query it back.
type ldSummary struct {
	rows        map[string]int64
	sQuantity   int64   // SUM(s_quantity)
	olItems     int64   // SUM(ol_i_id)
	oPerm       int64   // SUM(o_id * o_c_id)
	cDataLen    int64   // SUM(LENGTH(c_data))
	credBC      int64   // customers with c_credit 'BC'
	iOriginal   int64   // i_data containing ORIGINAL
	sOriginal   int64   // s_data containing ORIGINAL
	iPriceCents int64   // SUM(i_price) in cents
	olAmount    float64 // SUM(ol_amount)
	sample      map[[3]int64][2]string
}

// ldSamples are the customers (w, d, c) whose first and last names the
// summaries keep.
var ldSamples = [][3]int64{{1, 1, 1}, {1, 1, 999}, {1, 1, 1001}, {1, 4, 2222}, {1, 10, 3000}}

var ldSummaries sync.Map // [2]uint64{seed, W} -> *ldSummary

// ldSummarize generates a load in memory (no database) and summarises it.
func ldSummarize(t testing.TB, seed uint64, W int) *ldSummary {
	t.Helper()
	key := [2]uint64{seed, uint64(W)}
	if v, ok := ldSummaries.Load(key); ok {
		return v.(*ldSummary)
	}
	s := &ldSummary{rows: map[string]int64{}, sample: map[[3]int64][2]string{}}
	now := time.Now()
	units := allUnits(W)
	for _, u := range units {
		for _, g := range unitGens(u, seed, now, nil) {
			for g.Next() {
				v, _ := g.Values()
				s.rows[g.name]++
				switch g.name {
				case "stock":
					s.sQuantity += v[2].(int64)
					if strings.Contains(v[16].(string), original) {
						s.sOriginal++
					}
				case "order_line":
					s.olItems += v[4].(int64)
					s.olAmount += v[8].(float64)
				case "orders":
					s.oPerm += v[0].(int64) * v[3].(int64)
				case "customer":
					s.cDataLen += int64(len(v[20].(string)))
					if v[13] == "BC" {
						s.credBC++
					}
					k := [3]int64{v[2].(int64), v[1].(int64), v[0].(int64)}
					if slices.Contains(ldSamples, k) {
						s.sample[k] = [2]string{v[3].(string), v[5].(string)}
					}
				case "item":
					s.iPriceCents += int64(math.Round(v[3].(float64) * 100))
					if strings.Contains(v[4].(string), original) {
						s.iOriginal++
					}
				}
			}
		}
	}
	ldSummaries.Store(key, s)
	return s
}

// ldWithin fails unless got/n is want ± tol.
func ldWithin(t testing.TB, what string, got, n int64, want, tol float64) {
	t.Helper()
	share := float64(got) / float64(n)
	if math.Abs(share-want) > tol {
		t.Errorf("%s: %d of %d = %.4f, want %.2f ± %.3f", what, got, n, share, want, tol)
	}
}

func TestLoadGeneratorsRanges(t *testing.T) {
	t.Parallel()
	now := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	lengths := func(t *testing.T, table string, v []any, col int, lo, hi int) {
		t.Helper()
		s, ok := v[col].(string)
		if !ok || len(s) < lo || len(s) > hi {
			t.Fatalf("%s.%s = %#v: want a string of %d..%d", table, tableByName(table).cols[col].name, v[col], lo, hi)
		}
	}
	intIn := func(t *testing.T, table string, v []any, col int, lo, hi int64) {
		t.Helper()
		x, ok := v[col].(int64)
		if !ok || x < lo || x > hi {
			t.Fatalf("%s.%s = %#v: want an int64 in [%d, %d]", table, tableByName(table).cols[col].name, v[col], lo, hi)
		}
	}
	floatIn := func(t *testing.T, table string, v []any, col int, lo, hi float64) {
		t.Helper()
		x, ok := v[col].(float64)
		if !ok || x < lo || x > hi {
			t.Fatalf("%s.%s = %#v: want a float64 in [%v, %v]", table, tableByName(table).cols[col].name, v[col], lo, hi)
		}
	}
	digits := func(t *testing.T, table string, v []any, col, n int) {
		t.Helper()
		s := v[col].(string)
		if len(s) != n || strings.Trim(s, "0123456789") != "" {
			t.Fatalf("%s col %d = %q: want %d digits", table, col, s, n)
		}
	}
	var ordersOL []int64
	lines := map[[2]int64]int64{} // (d, o_id) -> lines
	for _, u := range []loadUnit{{unitItem, 0}, {unitWarehouse, 3}, {unitStock, 3}, {unitCustomer, 3}, {unitOrders, 3}, {unitOrderLine, 3}} {
		for _, g := range unitGens(u, 99, now, nil) {
			if len(g.vals) != len(tableByName(g.name).cols) {
				t.Fatalf("%s: %d values for %d columns", g.name, len(g.vals), len(tableByName(g.name).cols))
			}
			row := 0
			for g.Next() {
				v, _ := g.Values()
				row++
				switch g.name {
				case "item":
					intIn(t, g.name, v, 0, int64(row), int64(row))
					intIn(t, g.name, v, 1, 1, 10000)
					lengths(t, g.name, v, 2, 14, 24)
					floatIn(t, g.name, v, 3, 1, 100)
					lengths(t, g.name, v, 4, 26, 50)
				case "warehouse":
					intIn(t, g.name, v, 0, 3, 3)
					lengths(t, g.name, v, 1, 6, 10)
					for c := 2; c <= 4; c++ {
						lengths(t, g.name, v, c, 10, 20)
					}
					lengths(t, g.name, v, 5, 2, 2)
					lengths(t, g.name, v, 6, 9, 9)
					if !strings.HasSuffix(v[6].(string), "11111") {
						t.Fatalf("w_zip %q", v[6])
					}
					floatIn(t, g.name, v, 7, 0, 0.2)
					floatIn(t, g.name, v, 8, 300000, 300000)
				case "district":
					intIn(t, g.name, v, 0, int64(row), int64(row))
					intIn(t, g.name, v, 1, 3, 3)
					floatIn(t, g.name, v, 8, 0, 0.2)
					floatIn(t, g.name, v, 9, 30000, 30000)
					intIn(t, g.name, v, 10, 3001, 3001)
				case "stock":
					intIn(t, g.name, v, 0, int64(row), int64(row))
					intIn(t, g.name, v, 1, 3, 3)
					intIn(t, g.name, v, 2, 10, 100)
					for c := 3; c < 13; c++ {
						lengths(t, g.name, v, c, 24, 24)
					}
					for c := 13; c < 16; c++ {
						intIn(t, g.name, v, c, 0, 0)
					}
					lengths(t, g.name, v, 16, 26, 50)
				case "customer":
					d, c := int64((row-1)/3000+1), int64((row-1)%3000+1)
					intIn(t, g.name, v, 0, c, c)
					intIn(t, g.name, v, 1, d, d)
					intIn(t, g.name, v, 2, 3, 3)
					lengths(t, g.name, v, 3, 8, 16)
					if v[4] != "OE" {
						t.Fatalf("c_middle %v", v[4])
					}
					if c <= 1000 && v[5] != LastName(c-1) {
						t.Fatalf("c_last of %d = %v, want %s", c, v[5], LastName(c-1))
					}
					digits(t, g.name, v, 11, 16)
					if v[12] != any(now) {
						t.Fatalf("c_since %v", v[12])
					}
					if v[13] != "BC" && v[13] != "GC" {
						t.Fatalf("c_credit %v", v[13])
					}
					floatIn(t, g.name, v, 14, 50000, 50000)
					floatIn(t, g.name, v, 15, 0, 0.5)
					floatIn(t, g.name, v, 16, -10, -10)
					floatIn(t, g.name, v, 17, 10, 10)
					intIn(t, g.name, v, 18, 1, 1)
					intIn(t, g.name, v, 19, 0, 0)
					lengths(t, g.name, v, 20, 300, 500)
				case "history":
					intIn(t, g.name, v, 0, int64((row-1)%3000+1), int64((row-1)%3000+1))
					floatIn(t, g.name, v, 6, 10, 10)
					lengths(t, g.name, v, 7, 12, 24)
				case "orders":
					id := int64((row-1)%3000 + 1)
					intIn(t, g.name, v, 0, id, id)
					intIn(t, g.name, v, 3, 1, 3000)
					if id < 2101 {
						intIn(t, g.name, v, 5, 1, 10)
					} else if v[5] != nil {
						t.Fatalf("o_carrier_id of order %d = %v, want NULL", id, v[5])
					}
					intIn(t, g.name, v, 6, 5, 15)
					ordersOL = append(ordersOL, v[6].(int64))
				case "order_line":
					lines[[2]int64{v[1].(int64), v[0].(int64)}]++
					intIn(t, g.name, v, 3, lines[[2]int64{v[1].(int64), v[0].(int64)}], lines[[2]int64{v[1].(int64), v[0].(int64)}])
					intIn(t, g.name, v, 4, 1, 100000)
					intIn(t, g.name, v, 5, 3, 3)
					intIn(t, g.name, v, 7, 5, 5)
					if v[0].(int64) < 2101 {
						floatIn(t, g.name, v, 8, 0, 0)
						if v[6] != any(now) {
							t.Fatalf("ol_delivery_d %v", v[6])
						}
					} else {
						floatIn(t, g.name, v, 8, 0.01, 9999.99)
						if v[6] != nil {
							t.Fatalf("ol_delivery_d %v of an undelivered order", v[6])
						}
					}
					lengths(t, g.name, v, 9, 24, 24)
				case "new_order":
					intIn(t, g.name, v, 0, 2101, 3000)
				}
			}
			if row != g.n {
				t.Fatalf("%s: %d rows, want %d", g.name, row, g.n)
			}
		}
	}
	if len(ordersOL) != 30000 || len(lines) != 30000 {
		t.Fatalf("%d orders, %d with lines", len(ordersOL), len(lines))
	}
	for i, n := range ordersOL { // the two units agree on o_ol_cnt
		if k := [2]int64{int64(i/3000 + 1), int64(i%3000 + 1)}; lines[k] != n {
			t.Fatalf("order %v: o_ol_cnt %d, %d order lines", k, n, lines[k])
		}
	}
}

func TestLoadGeneratorsShares(t *testing.T) {
	t.Parallel()
	s := ldSummarize(t, 7, 1)
	want := map[string]int64{"item": 100000, "warehouse": 1, "district": 10, "stock": 100000,
		"customer": 30000, "history": 30000, "orders": 30000, "new_order": 9000}
	for k, n := range want {
		if s.rows[k] != n {
			t.Errorf("%s: %d rows, want %d", k, s.rows[k], n)
		}
	}
	if ol := s.rows["order_line"]; ol < 30000*9 || ol > 30000*11 {
		t.Errorf("order_line: %d rows, want about 300000", ol)
	}
	ldWithin(t, "i_data with ORIGINAL", s.iOriginal, 100000, 0.10, 0.015)
	ldWithin(t, "s_data with ORIGINAL", s.sOriginal, 100000, 0.10, 0.015)
	ldWithin(t, "c_credit BC", s.credBC, 30000, 0.10, 0.015)
	// The mean of random[10, 100] is 55; of random[300, 500], 400.
	if m := float64(s.sQuantity) / 100000; math.Abs(m-55) > 0.5 {
		t.Errorf("mean s_quantity %.2f, want 55", m)
	}
	if m := float64(s.cDataLen) / 30000; math.Abs(m-400) > 2 {
		t.Errorf("mean c_data length %.2f, want 400", m)
	}
}

func TestLoadGeneratorsPermutation(t *testing.T) {
	t.Parallel()
	g := unitGens(loadUnit{unitOrders, 1}, 5, time.Now(), nil)[0]
	seen := make(map[[2]int64]bool)
	for g.Next() {
		v, _ := g.Values()
		k := [2]int64{v[1].(int64), v[3].(int64)}
		if seen[k] {
			t.Fatalf("district %d: customer %d has two orders", k[0], k[1])
		}
		seen[k] = true
	}
	if len(seen) != 30000 {
		t.Fatalf("%d (district, customer) pairs, want 30000", len(seen))
	}
}

func TestLoadGeneratorsDeterministic(t *testing.T) {
	t.Parallel()
	now := time.Now()
	rows := func(seed uint64, u loadUnit) []string {
		var out []string
		for _, g := range unitGens(u, seed, now, nil) {
			for g.Next() {
				v, _ := g.Values()
				out = append(out, fmt.Sprint(v...))
			}
		}
		return out
	}
	for _, u := range []loadUnit{{unitItem, 0}, {unitWarehouse, 2}, {unitCustomer, 2}, {unitOrders, 2}, {unitOrderLine, 2}} {
		a, b, c := rows(7, u), rows(7, u), rows(8, u)
		if !slices.Equal(a, b) {
			t.Errorf("%s: the same seed generated different rows", u)
		}
		if slices.Equal(a, c) {
			t.Errorf("%s: seeds 7 and 8 generated the same rows", u)
		}
	}
	// Each warehouse differs from the others.
	if slices.Equal(rows(7, loadUnit{unitWarehouse, 1}), rows(7, loadUnit{unitWarehouse, 2})) {
		t.Error("warehouses 1 and 2 are the same")
	}
	// The customers' C_LAST is the recorded load constant's.
	if a, b := loadConstantsFor(7), loadConstantsFor(7); a != b || a == loadConstantsFor(8) {
		t.Errorf("load constants: %v %v %v", a, b, loadConstantsFor(8))
	}
}

// BenchmarkLoadGenerate measures generating one warehouse's rows (no
// database).
func BenchmarkLoadGenerate(b *testing.B) {
	now := time.Now()
	for b.Loop() {
		for k := unitOrderLine; k < numUnitKinds; k++ {
			for _, g := range unitGens(loadUnit{k, 1}, 1, now, nil) {
				for g.Next() {
					g.Values()
				}
			}
		}
	}
}
