package cli

import (
	"context"

	"github.com/rightsize/rightsize/internal/app"
)

// startPrometheus serves a run's live metrics at addr until ctx ends
// (app.StartPrometheus); an address that cannot be listened on is a
// usage error.
func startPrometheus(ctx context.Context, addr, workload, event string) (*app.Exporter, string, error) {
	e, bound, err := app.StartPrometheus(ctx, addr, workload, event)
	if err != nil {
		return nil, "", usageError{err}
	}
	return e, bound, nil
}
