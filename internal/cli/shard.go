package cli

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/shard"
	"github.com/rightsize/rightsize/internal/workload"
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

// distributed is the state of a run's --shard, --run-id and --start-at.
type distributed struct {
	spec    shard.Spec
	sharded bool
	runID   string
	startAt time.Time // zero: none
	part    shard.Part
	total   [2]int // instances, virtual users per instance in the whole run

	// Filled by the barrier.
	start   time.Time
	waited  time.Duration
	barrier string
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// parseDistributed checks --shard, --run-id, --start-at and the flags they
// exclude, before anything is opened. It returns nil when none is given.
func (c *commonFlags) parseDistributed() (*distributed, error) {
	if c.shard == "" && c.runID == "" && c.startAt == "" {
		return nil, nil
	}
	d := &distributed{runID: c.runID}
	var errs []error
	if c.shard != "" {
		s, err := shard.Parse(c.shard)
		if err != nil {
			errs = append(errs, fmt.Errorf("--shard: %w", err))
		}
		d.spec, d.sharded = s, true
		if c.runID == "" && c.startAt == "" {
			errs = append(errs, errors.New("--shard needs --run-id or --start-at, so that the shards of one run agree on it"))
		}
		if c.steady > 0 {
			errs = append(errs, errors.New("--shard and --steady-state: each shard would end its warm-up at its own moment; give a fixed --warmup"))
		}
		if c.baselineAuto {
			errs = append(errs, errors.New("--shard and --baseline-rate auto: each shard would measure a baseline of its own; give the rate (or a measured --baseline-rate)"))
		}
		if c.prepare == "always" {
			errs = append(errs, errors.New("--shard and --prepare always: the shards would load the same tables at once; run 'rightsize prepare' once before the shards start"))
		}
	}
	if c.runID != "" && !runIDPattern.MatchString(c.runID) {
		errs = append(errs, fmt.Errorf("--run-id %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", c.runID))
	}
	if c.startAt != "" {
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(c.startAt))
		if err != nil {
			errs = append(errs, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2026-12-01T10:00:00Z", c.startAt))
		}
		d.startAt = t
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if d.runID == "" {
		d.runID = derivedRunID(d.startAt, c)
	}
	return d, nil
}

// derivedRunID names a run from its start time and what every shard is
// given alike, so shards started with the same command agree without
// --run-id.
func derivedRunID(startAt time.Time, c *commonFlags) string {
	h := fnv.New32a()
	if c.fs != nil {
		perProcess := map[string]bool{"shard": true, "out": true, "cpuprofile": true, "prometheus": true, "barrier-timeout": true}
		c.fs.VisitAll(func(f *pflag.Flag) {
			if f.Changed && !perProcess[f.Name] {
				fmt.Fprintf(h, "%s=%s\n", f.Name, f.Value.String())
			}
		})
	}
	return fmt.Sprintf("%s-%08x", startAt.UTC().Format("20060102T150405Z"), h.Sum32())
}

// seed is the run's seed when --seed is not given: the same in every shard.
func (d *distributed) seed() uint64 {
	h := fnv.New64a()
	h.Write([]byte(d.runID))
	return h.Sum64() | 1
}

// resultID is the id of this process's result.
func (d *distributed) resultID() string {
	if !d.sharded {
		return d.runID
	}
	return fmt.Sprintf("%s-shard%dof%d", d.runID, d.spec.Index, d.spec.Count)
}

// split takes this shard's targets of the whole run's, whose instances run
// vus virtual users each.
func (d *distributed) split(ts []workload.Target, vus int) ([]workload.Target, error) {
	if !d.sharded {
		return ts, nil
	}
	p, err := d.spec.Split(len(ts), vus)
	if err != nil {
		return nil, usagef("--shard %s: %v", d.spec, err)
	}
	d.part, d.total = p, [2]int{len(ts), vus}
	return ts[p.FirstInstance : p.FirstInstance+p.Instances], nil
}

// apply makes cfg this shard's part of a step of the whole run: its virtual
// users, and, split by virtual users, its share of each instance's rate.
func (d *distributed) apply(cfg *runner.Config) {
	if !d.sharded {
		return
	}
	cfg.Part = &runner.Part{FirstInstance: d.part.FirstInstance, FirstVU: d.part.FirstVU}
	if !d.part.ByInstance && cfg.Rate > 0 {
		cfg.Rate = cfg.Rate * float64(d.part.VUs) / float64(cfg.Threads)
	}
	cfg.Threads = d.part.VUs
}

// describe adds the shard's place to its result.
func (d *distributed) describe(res *result.Run) {
	if !d.sharded {
		return
	}
	s := &result.Shard{RunID: d.runID, Index: d.spec.Index, Count: d.spec.Count,
		FirstInstance: d.part.FirstInstance, Instances: d.part.Instances, TotalInstances: d.total[0],
		FirstVU: d.part.FirstVU, VUs: d.part.VUs, TotalVUs: d.total[1],
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

// ready is the runner's start barrier (runner.Config.Ready): with a shard
// and a catalog, it registers this shard as connected and waits until every
// shard has, then starts barrierMargin after the last did (not before
// --start-at); otherwise it starts at --start-at, or at once.
func (d *distributed) ready(env *Env, dsn string, timeout time.Duration) func(ctx context.Context) (time.Time, error) {
	return func(ctx context.Context) (time.Time, error) {
		connected := time.Now()
		defer func() {
			if d.start.After(connected) {
				d.waited = d.start.Sub(connected)
			}
		}()
		if !d.sharded || dsn == "" {
			d.start, d.barrier = d.startAt, "time"
			if d.startAt.IsZero() {
				d.barrier = "none"
			}
			if d.startAt.After(connected) {
				fmt.Fprintf(env.Stdout, "connected; starting at %s (in %v)\n", d.startAt.Format(time.RFC3339), d.startAt.Sub(connected).Round(time.Second))
			}
			return d.startAt, nil
		}
		d.barrier = "history"
		cat, err := history.Open(ctx, dsn)
		if err != nil {
			return time.Time{}, fmt.Errorf("start barrier: %w", err)
		}
		defer cat.Close()
		if err := cat.MarkReady(ctx, d.runID, d.spec.Index, d.spec.Count, env.Hostname, connected); err != nil {
			return time.Time{}, fmt.Errorf("start barrier: %w", err)
		}
		fmt.Fprintf(env.Stdout, "shard %s of run %s connected; waiting for every shard (register: %s)\n", d.spec, d.runID, cat)
		deadline := connected.Add(timeout)
		for {
			rows, err := cat.ReadyShards(ctx, d.runID)
			if err != nil {
				return time.Time{}, fmt.Errorf("start barrier: %w", err)
			}
			var last time.Time
			have := map[int]bool{}
			for _, r := range rows {
				if r.Shards == d.spec.Count {
					have[r.Shard] = true
					if r.Ready.After(last) {
						last = r.Ready
					}
				}
			}
			if len(have) == d.spec.Count {
				d.start = last.Add(barrierMargin)
				if d.startAt.After(d.start) {
					d.start = d.startAt
				}
				fmt.Fprintf(env.Stdout, "all %d shards connected; starting at %s\n", d.spec.Count, d.start.Format(time.RFC3339Nano))
				return d.start, nil
			}
			if time.Now().After(deadline) {
				var missing []string
				for i := range d.spec.Count {
					if !have[i] {
						missing = append(missing, fmt.Sprintf("%d/%d", i, d.spec.Count))
					}
				}
				return time.Time{}, fmt.Errorf("start barrier: after %v, %d of %d shards had connected; missing: %s", timeout, len(have), d.spec.Count, strings.Join(missing, ", "))
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
}
