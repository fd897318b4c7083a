package tables

import (
	"context"
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// Comparer compares what prepare loaded on c with the options a run was
// given: notes are what the run should know that does not stop it,
// problems what makes the data differ from the options (a mismatch,
// refused unless --force); an error stops the run (missing tables are
// workload.ErrNotPrepared).
type Comparer func(ctx context.Context, c dialect.Conn) (notes, problems []string, err error)

// Match is the shared part of InstanceHooks.Match: it opens its own
// connection, runs compare, adds the notes to the instance's, and returns
// the problems, joined, as a workload.ErrMismatch that the instance notes
// too (so that a run forced past it records it).
func Match(ctx context.Context, in *dbtarget.Base, compare Comparer) ([]string, error) {
	c, err := in.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Target, err)
	}
	defer c.Close()
	notes, problems, err := compare(ctx, c)
	if err != nil {
		return notes, err
	}
	for _, n := range notes {
		in.Note(n)
	}
	if len(problems) > 0 {
		msg := strings.Join(problems, "; ")
		in.Note(msg + " (run with --force)")
		return notes, workload.Mismatchf("%s: %s", in.Target, msg)
	}
	return notes, nil
}
