package cli

import (
	"context"
	"fmt"

	"github.com/rightsize/rightsize/internal/metrics"
)

// startPrometheus serves a run's live metrics at addr (host:port) until ctx
// ends, and returns the exporter to feed from the runner's OnTick and the
// address actually bound (addr with its port resolved). Call it only when
// --prometheus was given (addr != ""). An address that cannot be listened on
// (in use, malformed, not permitted) is a usage error.
func startPrometheus(ctx context.Context, addr, workload, event string) (*metrics.Exporter, string, error) {
	e := metrics.New(workload, event)
	bound, err := e.Serve(ctx, addr)
	if err != nil {
		return nil, "", usageError{fmt.Errorf("--prometheus: %w", err)}
	}
	return e, bound, nil
}
