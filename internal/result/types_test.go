package result_test

import (
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

func typed(name string, count int64, p95 float64) result.Op {
	return result.Op{Name: name, Kind: "write", Type: true, Count: count, Latency: result.Latency{P95Ms: p95}}
}

func TestTypesOf(t *testing.T) {
	event := result.Op{Name: "transaction", Kind: "event", Count: 1000, Latency: result.Latency{AvgMs: 2, P95Ms: 5, P99Ms: 9}}
	cases := []struct {
		name     string
		ops      []result.Op
		frequent []string // in order
		slowest  string
	}{
		{"TPC-C's mix: the two big ones make 88 %", []result.Op{event,
			typed("New-Order", 450, 20), typed("Payment", 430, 8), typed("Order-Status", 40, 3), typed("Delivery", 40, 90), typed("Stock-Level", 40, 50)},
			[]string{"New-Order", "Payment"}, "New-Order"},
		{"a type as used as the last frequent one is frequent too", []result.Op{event,
			typed("a", 500, 1), typed("b", 200, 2), typed("c", 200, 30), typed("d", 100, 99)},
			[]string{"a", "b", "c"}, "c"},
		{"statements are not types: the event is the one type", []result.Op{event,
			{Name: "point_select", Kind: "read", Count: 10000}},
			[]string{"transaction"}, "transaction"},
		{"a type that never ran is never frequent", []result.Op{event, typed("x", 10, 1), typed("y", 0, 0)},
			[]string{"x"}, "x"},
	}
	for _, c := range cases {
		types, slowest := result.TypesOf(c.ops)
		var frequent []string
		var share float64
		for i, ty := range types {
			if ty.Frequent {
				frequent = append(frequent, ty.Name)
			}
			if i > 0 && ty.Count > types[i-1].Count {
				t.Errorf("%s: %s (%d) after %s (%d): want the most used first", c.name, ty.Name, ty.Count, types[i-1].Name, types[i-1].Count)
			}
			share += ty.SharePct
		}
		if share < 99.99 || share > 100.01 {
			t.Errorf("%s: shares add up to %g %%", c.name, share)
		}
		if slowest != c.slowest || len(frequent) != len(c.frequent) {
			t.Errorf("%s: frequent %v, slowest %q; want %v, %q", c.name, frequent, slowest, c.frequent, c.slowest)
			continue
		}
		for i := range frequent {
			if frequent[i] != c.frequent[i] {
				t.Errorf("%s: frequent %v, want %v", c.name, frequent, c.frequent)
			}
		}
	}
	if types, slowest := result.TypesOf(nil); types != nil || slowest != "" {
		t.Errorf("no ops: %v %q", types, slowest)
	}
}

// A type whose every transaction failed keeps its share of the mix, and is
// not passed over for the slowest frequent type by one that succeeded.
func TestTypesOfCountsFailedTransactionsInTheMix(t *testing.T) {
	ops := []result.Op{
		{Name: "transaction", Kind: "event", Count: 500, Errors: 500},
		{Name: "lookup", Kind: "transaction", Type: true, Count: 500, Latency: result.Latency{P95Ms: 1}},
		{Name: "order", Kind: "transaction", Type: true, Errors: 500},
	}
	types, slowest := result.TypesOf(ops)
	if len(types) != 2 || types[0].SharePct != 50 || types[1].SharePct != 50 {
		t.Fatalf("types %+v: want two at 50 %% each", types)
	}
	for _, ty := range types {
		if !ty.Frequent {
			t.Errorf("%s not frequent", ty.Name)
		}
	}
	if slowest != "lookup" {
		t.Errorf("slowest frequent %q, want lookup (order has no response times)", slowest)
	}
}
