package observers

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/metrics"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// Exporter serves a run's live metrics (metrics.Exporter).
type Exporter = metrics.Exporter

// StartPrometheus serves a run's live metrics at addr (host:port) until ctx
// ends, and returns the exporter to feed from the runner's OnTick and the
// address actually bound (addr with its port resolved). Call it only when
// --prometheus was given (addr != ""). An address that cannot be listened on
// (in use, malformed, not permitted) is an error naming --prometheus.
func StartPrometheus(ctx context.Context, addr, workload, event string) (*Exporter, string, error) {
	e := metrics.New(workload, event)
	bound, err := e.Serve(ctx, addr)
	if err != nil {
		return nil, "", fmt.Errorf("--prometheus: %w", err)
	}
	return e, bound, nil
}

// NewPrometheus feeds e the live metrics at each tick.
func NewPrometheus(e *Exporter) session.Observer { return promObserver{e: e} }

// promObserver feeds the live Prometheus metrics at each tick.
type promObserver struct {
	session.Base
	e *metrics.Exporter
}

func (o promObserver) Tick(s session.Position, agg result.Interval, per []result.Interval) {
	o.e.Observe(s.Spec.Label, agg, per)
}
