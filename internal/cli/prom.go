package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/metrics"
)

// bindPrometheus registers --prometheus ADDR on fs; an empty addr (the
// default) serves nothing.
func bindPrometheus(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "prometheus", "",
		"serve live Prometheus metrics at ADDR (e.g. :9464 or 127.0.0.1:9464) during the run: /metrics")
}

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
