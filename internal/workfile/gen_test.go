package workfile

import (
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/datagen"
)

func mustParse(t testing.TB, name string, data []byte) *Spec {
	t.Helper()
	s, err := Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func example(t testing.TB) *Spec {
	t.Helper()
	b, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return mustParse(t, "example.yaml", b)
}

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestGenDrawsWithoutAllocating draws every parameter of the example (a
// sample's values loaded), once per event, and every row of its created
// table.
func TestGenDrawsWithoutAllocating(t *testing.T) {
	s := example(t)
	g := s.NewGen(datagen.NewSource(1), 0, 4)
	customers := []Value{IntOf(7), IntOf(11), IntOf(13)}
	if err := g.SetSample(s.Param("customer"), customers); err != nil {
		t.Fatal(err)
	}
	src := datagen.NewSource(2)
	allocs := testing.AllocsPerRun(1000, func() {
		g.Begin(now)
		_ = s.Pick(src)
		for i := range s.Params {
			g.Value(i)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per event", allocs)
	}
	rows := s.Table("items").NewRows(datagen.NewSource(3), now)
	var i int64
	allocs = testing.AllocsPerRun(1000, func() {
		rows.Row(i)
		i++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per row", allocs)
	}
}

func TestGenValues(t *testing.T) {
	s := example(t)
	g := s.NewGen(datagen.NewSource(5), 0, 1)
	if v := g.Value(s.Param("customer")); !v.Null {
		t.Errorf("a sample with no values loaded: %+v, want Null", v)
	}
	coupon := regexp.MustCompile(`^CPN-[0-9]{4}-[a-z]{2}$`)
	amount := regexp.MustCompile(`^[0-9]{1,3}\.[0-9]{2}$`)
	for e := range 2000 {
		g.Begin(now)
		item := g.Value(s.Param("item"))
		if item.Type != IntValue || item.Int < 1 || item.Int > 100_000 {
			t.Fatalf("item %+v", item)
		}
		if c := g.Value(s.Param("coupon")); !coupon.Match(c.Text) {
			t.Fatalf("coupon %q", c.Text)
		}
		a := g.Value(s.Param("amount"))
		if !amount.Match(a.Text) || a.Int < 100 || a.Int > 99999 || a.Scale != 2 {
			t.Fatalf("amount %+v %q", a, a.Text)
		}
		if f, _ := strconv.ParseFloat(string(a.Text), 64); math.Abs(f-a.Float()) > 1e-9 {
			t.Fatalf("amount %q, Float %g", a.Text, a.Float())
		}
		since := g.Value(s.Param("since"))
		if since.Time.After(now) || since.Time.Before(now.Add(-30*24*time.Hour)) {
			t.Fatalf("since %v", since.Time)
		}
		if m := g.Value(s.Param("method")); string(m.Text) != "card" && string(m.Text) != "transfer" {
			t.Fatalf("method %q", m.Text)
		}
		if o := g.Value(s.Param("order_no")); o.Int != 10_000_000+int64(e) {
			t.Fatalf("event %d: order_no %d", e, o.Int)
		}
		// One value per event, however often it is used.
		if again := g.Value(s.Param("item")); again.Int != item.Int {
			t.Fatalf("item changed within an event")
		}
	}
}

// TestSeqInterleaves: VU v of n draws Start + (v + k*n)*Step, so the VUs
// of an instance never draw one value twice.
func TestSeqInterleaves(t *testing.T) {
	s := mustParse(t, "seq.yaml", []byte(withTx("  n: {type: seq, start: 100, step: 5}\n", "SELECT :n")))
	seen := map[int64]bool{}
	const vus = 3
	for vu := range vus {
		g := s.NewGen(datagen.NewSource(uint64(vu)), vu, vus)
		for k := range 10 {
			g.Begin(now)
			v := g.Value(0).Int
			if want := 100 + int64(vu+k*vus)*5; v != want {
				t.Errorf("VU %d, draw %d: %d, want %d", vu, k, v, want)
			}
			if seen[v] {
				t.Errorf("%d drawn twice", v)
			}
			seen[v] = true
		}
	}
}

// TestSharedSeqs: the VUs of an instance sharing its Seqs draw every value
// from Start on once, concurrently, each drawn once per event, without
// allocating.
func TestSharedSeqs(t *testing.T) {
	s := mustParse(t, "seq.yaml", []byte(withTx("  n: {type: seq, start: 100, step: 5}\n", "SELECT :n, :n")))
	seqs := s.NewSeqs()
	const vus, draws = 4, 500
	got := make(chan int64, vus*draws)
	done := make(chan struct{})
	for vu := range vus {
		go func() {
			g := s.NewSharedGen(datagen.NewSource(uint64(vu)), seqs)
			for range draws {
				g.Begin(now)
				v := g.Value(0).Int
				if again := g.Value(0).Int; again != v {
					t.Errorf("one event drew %d, then %d", v, again)
				}
				got <- v
			}
			done <- struct{}{}
		}()
	}
	for range vus {
		<-done
	}
	close(got)
	seen := map[int64]bool{}
	for v := range got {
		if seen[v] || v < 100 || (v-100)%5 != 0 {
			t.Errorf("%d: drawn twice or not in the sequence", v)
		}
		seen[v] = true
	}
	if len(seen) != vus*draws || !seen[100] || !seen[100+5*(vus*draws-1)] {
		t.Errorf("%d values, want %d from 100 on", len(seen), vus*draws)
	}
	g := s.NewSharedGen(datagen.NewSource(9), seqs)
	if allocs := testing.AllocsPerRun(1000, func() { g.Begin(now); g.Value(0) }); allocs != 0 {
		t.Errorf("%.1f allocations per event", allocs)
	}
}

// TestSeqShardsAndAfter: shards of one run draw disjoint shares of a
// sequence that together are the sequence, and a sequence with after:
// starts past its column's highest value.
func TestSeqShardsAndAfter(t *testing.T) {
	s := mustParse(t, "seq.yaml", []byte(withTx("  n: {type: seq, start: 10, step: 5, after: prod.id}\n", "SELECT :n")))
	const shards, draws = 3, 4
	var all []int64
	for i := range shards {
		q := s.NewSeqs()
		q.Shard(i, shards)
		q.AfterMax(s, 0, 23) // 10, 15, 20 are taken: from 25
		g := s.NewSharedGen(datagen.NewSource(1), q)
		for range draws {
			g.Begin(now)
			all = append(all, g.Value(0).Int)
		}
	}
	slices.Sort(all)
	for k, v := range all {
		if want := int64(25 + 5*k); v != want {
			t.Fatalf("the shards drew %v; want 25, 30, ... each once", all)
		}
	}
	// Shards that read different highest values (one started late) still
	// draw disjoint values.
	seen := map[int64]int{}
	for i, highest := range []int64{100, 101} {
		q := s.NewSeqs()
		q.Shard(i, 2)
		q.AfterMax(s, 0, highest)
		g := s.NewSharedGen(datagen.NewSource(1), q)
		for range 50 {
			g.Begin(now)
			v := g.Value(0).Int
			if other, ok := seen[v]; ok {
				t.Fatalf("shard %d drew %d, which shard %d drew too", i, v, other)
			}
			if v <= highest {
				t.Fatalf("shard %d drew %d, not above %d", i, v, highest)
			}
			seen[v] = i
		}
	}
	q := s.NewSeqs()
	q.AfterMax(s, 0, 3) // below start: from start
	g := s.NewSharedGen(datagen.NewSource(1), q)
	if g.Begin(now); g.Value(0).Int != 10 {
		t.Errorf("after a highest value below start: %d, want 10", g.Value(0).Int)
	}
}

func TestChoiceWeights(t *testing.T) {
	s := mustParse(t, "c.yaml", []byte(withTx("  c: {type: choice, values: [{value: 1, weight: 6}, {value: 2, weight: 3}, 3]}\n  d: {type: choice, values: ['1', b]}\n", "SELECT :c, :d")))
	if s.Params[0].Type() != IntValue || s.Params[1].Type() != TextValue {
		t.Errorf("types %v, %v: want int (every value an integer), text (a quoted one)", s.Params[0].Type(), s.Params[1].Type())
	}
	g := s.NewGen(datagen.NewSource(9), 0, 1)
	var count [4]float64
	const n = 100_000
	for range n {
		g.Begin(now)
		count[g.Value(0).Int]++
	}
	for v, want := range []float64{0, 0.6, 0.3, 0.1} {
		if math.Abs(count[v]/n-want) > 0.01 {
			t.Errorf("value %d: %.3f of draws, want %.1f", v, count[v]/n, want)
		}
	}
}

func TestPick(t *testing.T) {
	s := example(t)
	src := datagen.NewSource(4)
	count := make([]float64, len(s.Transactions))
	const n = 100_000
	for range n {
		count[s.Pick(src)]++
	}
	for i, want := range []float64{0.45, 0.43, 0.12} {
		if math.Abs(count[i]/n-want) > 0.01 {
			t.Errorf("%s: %.3f of picks, want %.2f", s.Transactions[i].Name, count[i]/n, want)
		}
	}
}

func TestSampleDraws(t *testing.T) {
	s := example(t)
	g := s.NewGen(datagen.NewSource(1), 0, 1)
	i := s.Param("customer")
	if err := g.SetSample(s.Param("item"), []Value{IntOf(1)}); err == nil {
		t.Error("SetSample accepted a parameter that is not a sample")
	}
	if err := g.SetSample(i, nil); err == nil {
		t.Error("SetSample accepted no values")
	}
	vals := []Value{TextOf("a"), TextOf("b"), TextOf("c"), TextOf("d")}
	if err := g.SetSample(i, vals); err != nil {
		t.Fatal(err)
	}
	var count [4]int
	for range 10_000 {
		g.Begin(now)
		v := g.Value(i)
		count[v.Text[0]-'a']++
	}
	// zipfian 1.1 over the index: the first value is drawn most.
	if !(count[0] > count[1] && count[1] > count[2] && count[2] > count[3]) {
		t.Errorf("counts %v, want decreasing (zipfian)", count)
	}
}

func TestRows(t *testing.T) {
	s := example(t)
	tb := s.Table("items")
	r := tb.NewRows(datagen.NewSource(1), now)
	title := regexp.MustCompile(`^item-[a-z]{5}-[0-9]{4}$`)
	for i := int64(0); i < 1000; i++ {
		row := r.Row(i)
		if len(row) != len(tb.Columns) {
			t.Fatalf("%d values for %d columns", len(row), len(tb.Columns))
		}
		if row[0].Int != i+1 {
			t.Fatalf("row %d: id %d, want %d (seq from 1)", i, row[0].Int, i+1)
		}
		if !title.Match(row[1].Text) {
			t.Fatalf("title %q", row[1].Text)
		}
		if row[2].Int < 50 || row[2].Int > 50000 {
			t.Fatalf("price %q", row[2].Text)
		}
		if a := row[4].Time; a.After(now) || a.Before(now.AddDate(0, 0, -365)) {
			t.Fatalf("added %v", a)
		}
		if !row[5].Null {
			t.Fatalf("note %+v, want NULL (no generator)", row[5])
		}
	}
}

func TestAppendDecimal(t *testing.T) {
	for _, c := range []struct {
		units int64
		scale int
		want  string
	}{{0, 2, "0.00"}, {5, 2, "0.05"}, {-5, 2, "-0.05"}, {12345, 2, "123.45"}, {7, 0, "7"}, {-1, 9, "-0.000000001"}, {math.MinInt64, 0, "-9223372036854775808"}} {
		if got := string(appendDecimal(nil, c.units, c.scale)); got != c.want {
			t.Errorf("appendDecimal(%d, %d) = %q, want %q", c.units, c.scale, got, c.want)
		}
	}
}

func BenchmarkGenEvent(b *testing.B) {
	s := example(b)
	g := s.NewGen(datagen.NewSource(1), 0, 1)
	if err := g.SetSample(s.Param("customer"), []Value{IntOf(1), IntOf(2)}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Begin(now)
		for i := range s.Params {
			g.Value(i)
		}
	}
}
