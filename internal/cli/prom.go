package cli

import (
	"context"

	"github.com/rightsize/rightsize/internal/observe"
)

// startPrometheus serves a run's live metrics at addr until ctx ends
// (observe.StartPrometheus); an address that cannot be listened on is a
// usage error.
func startPrometheus(ctx context.Context, addr, workload, event string) (*observe.Exporter, string, error) {
	e, bound, err := observe.StartPrometheus(ctx, addr, workload, event)
	if err != nil {
		return nil, "", usageError{err}
	}
	return e, bound, nil
}
