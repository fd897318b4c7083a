package observers

import (
	"context"
	"fmt"
	"io"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// recorder records a session's results in the history catalog.
type recorder struct {
	session.Base
	ctx    context.Context
	stderr io.Writer
	record Record
}

// Record records runs (with their files' paths, paths[i] for runs[i]) and
// a sweep (nil when none) with its file's path in the history catalog.
type Record func(ctx context.Context, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error

// NewRecorder records a session's results through record when it ends,
// and says on stderr when it could not.
func NewRecorder(ctx context.Context, stderr io.Writer, record Record) session.Observer {
	return &recorder{ctx: ctx, stderr: stderr, record: record}
}

// End records every result made, the baseline's first, and the sweep. A
// shard's result that cannot be recorded fails the shard: the merge reads
// it from the catalog (in a pod, --out - leaves no file), so unrecorded it
// is lost.
func (r *recorder) End(o *session.Outcome) error {
	runs, paths := o.Runs, o.Paths
	if o.Baseline != nil {
		runs = append([]*result.Run{o.Baseline}, runs...)
		paths = append([]string{o.BaselinePath}, paths...)
	}
	var sw *result.Sweep
	if o.Sweep != nil {
		sw = o.Sweep.Sweep
	}
	err := r.record(r.ctx, runs, paths, sw, o.SweepPath)
	if err == nil {
		return nil
	}
	fmt.Fprintf(r.stderr, "rightsize: history: not recorded: %v\n", err)
	if d := o.Plan.Dist; d != nil && d.Sharded && !o.Failed {
		return fmt.Errorf("shard %s: the result is not in the history catalog, so 'merge --run' will miss it: %w", d.Spec, err)
	}
	return nil
}
