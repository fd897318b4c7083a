package runner

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// benchRun runs cfg on one instance of virtual users that do nothing, b.N
// times, and reports the hot path's cost per event: wall time per event
// (the inverse of the throughput, all virtual users together) and heap
// allocations per event (the setup's included, so a leak per event shows).
func benchRun(b *testing.B, cfg Settings) {
	in := instance(func(context.Context) error { return nil })
	var events int64
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	for b.Loop() {
		res, err := Run(context.Background(), cfg, []Opened{in})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Summary.Count
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&m1)
	if events == 0 {
		b.Fatal("no events")
	}
	b.ReportMetric(float64(elapsed.Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/float64(events), "allocs/event")
}

func BenchmarkClosedLoop(b *testing.B) {
	benchRun(b, Settings{Load: Load{Threads: 2, Duration: 200 * time.Millisecond}, Interval: 50 * time.Millisecond, Ops: ops})
}

func BenchmarkOpenLoop(b *testing.B) {
	benchRun(b, Settings{Load: Load{Threads: 4, Rate: 20000, Duration: 200 * time.Millisecond}, Interval: 50 * time.Millisecond, Ops: ops})
}
