package oltp

import (
	"context"
	"testing"

	"github.com/rightsize/rightsize/internal/workload"
)

// nopMeter is the cheapest Meter, so the benchmark measures the VU.
type nopMeter struct{}

func (nopMeter) Start(op int) workload.Span { return workload.Span{Op: op} }
func (nopMeter) Count(int, int64)           {}
func (nopMeter) End(workload.Span, error)   {}
func (nopMeter) Retrying() bool             { return false }

// BenchmarkStepSQLite measures one event of each script on a 10,000-row
// SQLite table (sysbench's default size), with one VU.
func BenchmarkStepSQLite(b *testing.B) {
	ctx := context.Background()
	url := "sqlite:" + b.TempDir() + "/bench.db"
	for _, w := range allWorkloads() {
		b.Run(w.Meta().Name, func(b *testing.B) {
			tg, err := w.ParseTarget(url, workload.TargetOptions{})
			if err != nil {
				b.Fatal(err)
			}
			inst, err := tg.Open(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := inst.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
				b.Fatal(err)
			}
			vu, err := inst.NewVU(ctx, 0, 1)
			if err != nil {
				b.Fatal(err)
			}
			defer vu.Close()
			b.ReportAllocs()
			for b.Loop() {
				if err := vu.Event(ctx, nopMeter{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
