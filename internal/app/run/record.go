package run

import (
	"context"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// recordTimeout bounds recording after a run: the run is over (perhaps
// interrupted), and its result file is already written.
const recordTimeout = 30 * time.Second

// Record records a run's or sweep's results in the catalog at dsn (nothing
// when dsn is ""; env.Getenv is the environment its location may use): runs
// with their result files' paths (paths[i] for runs[i]; "" or "-" when
// none), and the sweep with its file when sw is not nil. It runs even when
// ctx is cancelled (an interrupted run's partial result is recorded too),
// for at most 30 s, and says what it recorded on env.Stdout. Runs and sweeps already
// in the catalog are left as they are.
func Record(ctx context.Context, env *Env, dsn string, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error {
	if dsn == "" || (len(runs) == 0 && sw == nil) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	cat, err := history.Open(ctx, dsn, env.Getenv)
	if err != nil {
		return err
	}
	defer cat.Close()
	n := 0
	for i, r := range runs {
		if r == nil {
			continue
		}
		p := ""
		if i < len(paths) {
			p = session.AbsPath(paths[i])
		}
		if err := cat.Record(ctx, r, p); err != nil {
			return err
		}
		n++
	}
	what := report.Plural(n, "run")
	if sw != nil {
		if err := cat.RecordSweep(ctx, sw, session.AbsPath(swPath)); err != nil {
			return err
		}
		what += " and the sweep"
	}
	fmt.Fprintf(env.Stdout, "history: %s recorded in %s\n", what, cat)
	return nil
}
