package tpcc

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// tallyMeter counts what terminals report, like the runner does, for tests
// that drive VUs directly. It is safe for concurrent use.
type tallyMeter struct {
	mu       sync.Mutex
	ops      [numTx]int64
	errs     [numTx]int64
	counters [numCounters]int64
}

func (m *tallyMeter) Start(op int) workload.Span { return workload.Span{Op: op} }

func (m *tallyMeter) End(s workload.Span, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.errs[s.Op]++
		return
	}
	m.ops[s.Op]++
}

func (m *tallyMeter) Count(c int, n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counters[c] += n
}

// termMeter is one terminal's view of a tallyMeter: it knows whether the
// terminal is retrying.
type termMeter struct {
	*tallyMeter
	retry bool
}

func (m *termMeter) Retrying() bool { return m.retry }

func (m *tallyMeter) newOrders() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ops[newOrder]
}

// driveUntil runs terminals VUs until they have completed n New-Orders.
func driveUntil(t *testing.T, in *instance, terminals int, n int64) *tallyMeter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	m := &tallyMeter{}
	var wg sync.WaitGroup
	errc := make(chan error, terminals)
	for id := range terminals {
		v, err := in.NewVU(ctx, id, uint64(1000+id))
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer v.Close()
			failures := 0
			tm := &termMeter{tallyMeter: m}
			for m.newOrders() < n && ctx.Err() == nil {
				err := v.Event(ctx, tm)
				tm.retry = err != nil && in.Classify(err).Retryable() // the runner would retry it
				if err != nil {
					if tm.retry {
						continue
					}
					if failures++; failures > 10 {
						errc <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Errorf("terminal failed: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("timed out after %d New-Orders", m.newOrders())
	}
	return m
}

// The mix, the rollbacks and the remote shares after 10,000 New-Orders are
// within the spec's bounds, and the database is consistent afterwards.
func TestRunMixAndConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and runs TPC-C on PostgreSQL")
	}
	url := testenv.PostgresURL(t)
	in := ldOpen(t, url, 2)
	if err := in.Prepare(context.Background(), workload.PrepareOptions{Seed: 42}, nil); err != nil {
		t.Fatal(err)
	}
	const terminals = 4
	m := driveUntil(t, in, terminals, 10000)

	var total int64
	for _, c := range m.ops {
		total += c
	}
	t.Logf("transactions %v (errors %v), counters %v", m.ops, m.errs, m.counters)
	// Clause 5.2.3 minimums, within the dealing's two per terminal.
	for ty := range numTx {
		if min := txDefs[ty].minPct / 100 * float64(total); float64(m.ops[ty])+2*terminals < min {
			t.Errorf("%s: %d of %d transactions, under the %.0f%% minimum", txDefs[ty].name, m.ops[ty], total, txDefs[ty].minPct)
		}
	}
	// Binomial shares, 4 standard deviations wide.
	share := func(what string, k, n int64, p float64) {
		t.Helper()
		got := float64(k) / float64(n)
		sd := math.Sqrt(p * (1 - p) / float64(n))
		if math.Abs(got-p) > 4*sd {
			t.Errorf("%s: %.3f%% (%d of %d), want %.1f%% ± %.3f%%", what, 100*got, k, n, 100*p, 400*sd)
		}
	}
	share("rolled-back New-Orders", m.counters[cntRollback], m.ops[newOrder], 0.01)
	share("remote order lines", m.counters[cntRemoteLines], m.counters[cntOrderLines], 0.01)
	share("remote Payments", m.counters[cntRemotePayments], m.ops[payment], 0.15)
	share("Payments by last name", m.counters[cntPaymentByName], m.ops[payment], 0.60)
	share("Order-Status by last name", m.counters[cntStatusByName], m.ops[orderStatus], 0.60)
	// 5..15 lines, 10 on average, over the committed New-Orders.
	committed := m.ops[newOrder] - m.counters[cntRollback]
	if avg := float64(m.counters[cntOrderLines]) / float64(committed); math.Abs(avg-10) > 0.2 {
		t.Errorf("%.2f order lines per New-Order, want 10", avg)
	}

	results, err := in.Check(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Passed {
			t.Errorf("after the run: %s %s failed: %v", r.Name, r.Title, r.Details)
		}
	}
}
