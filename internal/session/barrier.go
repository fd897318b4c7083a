package session

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
)

// A distributed run: one process drives shard I of N (--shard), starting
// with the others at --start-at and, when the results go to a history
// catalog, once every shard has connected (the catalog is the barrier: no
// coordinator of our own). Each shard writes its own result; 'rightsize
// merge' adds them.

// barrierMargin is how long after the last shard connected the run starts:
// every shard polls the register every barrierPoll, so all see the last one
// well before then, and all compute the same start from the same rows.
const (
	barrierMargin = 2 * time.Second
	barrierPoll   = 250 * time.Millisecond
)

// Register is where the shards of a run say they have connected, and read
// who has (the CLI's is the history catalog).
type Register interface {
	MarkReady(ctx context.Context, runID string, shard, shards int, host string, at time.Time) error
	ReadyShards(ctx context.Context, runID string) ([]ReadyShard, error)
	String() string
	Close() error
}

// ReadyShard is a shard registered as connected: shard Shard of Shards, at
// Ready.
type ReadyShard struct {
	Shard, Shards int
	Ready         time.Time
}

// OpenRegister opens a distributed run's register when its shard has
// connected.
type OpenRegister func(ctx context.Context) (Register, error)

// barrier is a distributed run's start as it happens.
type barrier struct {
	*runplan.Distributed
	register OpenRegister // nil: the start is --start-at (or at once)
	hostname string
	obs      observers

	// Filled by ready.
	start   time.Time
	waited  time.Duration
	barrier string
}

// ready is the runner's start barrier (runner.Settings.Ready): with a shard
// and a register, it registers this shard as connected and waits until
// every shard has, then starts barrierMargin after the last did (not before
// --start-at); otherwise it starts at --start-at, or at once.
func (d *barrier) ready(ctx context.Context) (time.Time, error) {
	connected := time.Now()
	defer func() {
		if d.start.After(connected) {
			d.waited = d.start.Sub(connected)
		}
	}()
	if !d.Sharded || d.register == nil {
		d.start, d.barrier = d.StartAt, "time"
		if d.StartAt.IsZero() {
			d.barrier = "none"
		}
		if d.StartAt.After(connected) {
			d.obs.notice("connected; starting at %s (in %v)", d.StartAt.Format(time.RFC3339), d.StartAt.Sub(connected).Round(time.Second))
		}
		return d.StartAt, nil
	}
	d.barrier = "history"
	reg, err := d.register(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("start barrier: %w", err)
	}
	defer reg.Close()
	if err := reg.MarkReady(ctx, d.RunID, d.Spec.Index, d.Spec.Count, d.hostname, connected); err != nil {
		return time.Time{}, fmt.Errorf("start barrier: %w", err)
	}
	d.obs.notice("shard %s of run %s connected; waiting for every shard (register: %s)", d.Spec, d.RunID, reg)
	deadline := connected.Add(d.BarrierTimeout)
	for {
		rows, err := reg.ReadyShards(ctx, d.RunID)
		if err != nil {
			return time.Time{}, fmt.Errorf("start barrier: %w", err)
		}
		var last time.Time
		have := map[int]bool{}
		for _, r := range rows {
			if r.Shards == d.Spec.Count {
				have[r.Shard] = true
				if r.Ready.After(last) {
					last = r.Ready
				}
			}
		}
		if len(have) == d.Spec.Count {
			d.start = last.Add(barrierMargin)
			if d.StartAt.After(d.start) {
				d.start = d.StartAt
			}
			d.obs.notice("all %d shards connected; starting at %s", d.Spec.Count, d.start.Format(time.RFC3339Nano))
			return d.start, nil
		}
		if time.Now().After(deadline) {
			var missing []string
			for i := range d.Spec.Count {
				if !have[i] {
					missing = append(missing, fmt.Sprintf("%d/%d", i, d.Spec.Count))
				}
			}
			return time.Time{}, fmt.Errorf("start barrier: after %v, %d of %d shards had connected; missing: %s", d.BarrierTimeout, len(have), d.Spec.Count, strings.Join(missing, ", "))
		}
		t := time.NewTimer(barrierPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return time.Time{}, fmt.Errorf("waiting for the other shards: %w", context.Cause(ctx))
		case <-t.C:
		}
	}
}

// describe adds the shard's place to its result.
func (d *barrier) describe(res *result.Run) {
	if !d.Sharded {
		return
	}
	s := &result.Shard{RunID: d.RunID, Index: d.Spec.Index, Count: d.Spec.Count,
		FirstInstance: d.Part.FirstInstance, Instances: d.Part.Instances, TotalInstances: d.Total[0],
		FirstVU: d.Part.FirstVU, VUs: d.Part.VUs, TotalVUs: d.Total[1],
		WaitedS: d.waited.Seconds(), Barrier: d.barrier}
	if !d.start.IsZero() {
		at := d.start
		s.StartAt = &at
		if late := res.Started.Sub(at); late > 0 {
			s.LateS = late.Seconds()
		}
	}
	res.Shard = s
}
