package dbtarget

import (
	"context"
	"errors"
	"sync"

	"github.com/rightsize/rightsize/internal/dialect"
)

// Loaders is how many connections a prepare should load over: threads (the
// --threads flag), or def when it is 0; one on a single-writer database,
// where parallel loaders would only queue; never more than units.
func (in *Base) Loaders(threads, def, units int) int {
	n := threads
	if n <= 0 {
		n = def
	}
	if in.Target.D.Capabilities().SingleWriter {
		n = 1
	}
	return max(1, min(n, units))
}

// Parallel runs do for every item over n connections: admin and n-1 more it
// opens (and closes). The first error cancels the rest; Parallel returns
// every error, or the context's when it ended first.
func Parallel[T any](ctx context.Context, in *Base, admin dialect.Conn, n int, items []T,
	do func(ctx context.Context, c dialect.Conn, item T) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queue := make(chan T)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		c := admin
		if i > 0 {
			var err error
			if c, err = in.Connect(ctx); err != nil {
				errs[i] = err
				cancel()
				break
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i > 0 {
				defer c.Close()
			}
			for item := range queue {
				if err := do(ctx, c, item); err != nil {
					errs[i] = err
					cancel()
					for range queue { // drain so the feeder finishes
					}
					return
				}
			}
		}()
	}
feed:
	for _, item := range items {
		select {
		case queue <- item:
		case <-ctx.Done():
			break feed
		}
	}
	close(queue)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return parent.Err()
}
