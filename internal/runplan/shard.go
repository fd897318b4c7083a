package runplan

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/shard"
	"github.com/rightsize/rightsize/internal/workload"
)

// Distributed is a run's --shard, --run-id and --start-at: one process
// drives shard I of N, starting with the others at StartAt and, when the
// results go to a history catalog, once every shard has connected.
type Distributed struct {
	Spec    shard.Spec
	Sharded bool
	RunID   string
	StartAt time.Time // zero: none
	// Part is this shard's part of the whole run, whose instances and
	// virtual users per instance are Total.
	Part  shard.Part
	Total [2]int
	// BarrierTimeout is how long to wait for every shard to connect.
	BarrierTimeout time.Duration
}

var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// Distributed checks --shard, --run-id, --start-at and the flags they
// exclude, before anything is opened; shardSpec and runID stand for the
// flags' values (the k8s manifest checks a shard of its own). It returns nil
// when none is given.
func (c *Flags) Distributed(shardSpec, runID string) (*Distributed, error) {
	if shardSpec == "" && runID == "" && c.StartAt == "" {
		return nil, nil
	}
	d := &Distributed{RunID: runID, BarrierTimeout: c.BarrierWait}
	var errs []error
	if shardSpec != "" {
		s, err := shard.Parse(shardSpec)
		if err != nil {
			errs = append(errs, fmt.Errorf("--shard: %w", err))
		}
		d.Spec, d.Sharded = s, true
		if runID == "" && c.StartAt == "" {
			errs = append(errs, errors.New("--shard needs --run-id or --start-at, so that the shards of one run agree on it"))
		}
		if c.Steady > 0 {
			errs = append(errs, errors.New("--shard and --steady-state: each shard would end its warm-up at its own moment; give a fixed --warmup"))
		}
		if c.Baseline.Auto {
			errs = append(errs, errors.New("--shard and --baseline-rate auto: each shard would measure a baseline of its own; give the rate (or a measured --baseline-rate)"))
		}
		if c.Prepare == "always" {
			errs = append(errs, errors.New("--shard and --prepare always: the shards would load the same tables at once; run 'rightsize prepare' once before the shards start"))
		}
	}
	if runID != "" && !runIDPattern.MatchString(runID) {
		errs = append(errs, fmt.Errorf("--run-id %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", runID))
	}
	if c.StartAt != "" {
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(c.StartAt))
		if err != nil {
			errs = append(errs, fmt.Errorf("--start-at %q: want an RFC 3339 time such as 2026-12-01T10:00:00Z", c.StartAt))
		}
		d.StartAt = t
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if d.RunID == "" {
		d.RunID = c.derivedRunID(d.StartAt)
	}
	return d, nil
}

// derivedRunID names a run from its start time and what every shard is
// given alike, so shards started with the same command agree without
// --run-id.
func (c *Flags) derivedRunID(startAt time.Time) string {
	h := fnv.New32a()
	perProcess := map[string]bool{"shard": true, "out": true, "cpuprofile": true, "prometheus": true, "barrier-timeout": true}
	c.VisitChanged(func(f *pflag.Flag) {
		if !perProcess[f.Name] {
			fmt.Fprintf(h, "%s=%s\n", f.Name, f.Value.String())
		}
	})
	return fmt.Sprintf("%s-%08x", startAt.UTC().Format("20060102T150405Z"), h.Sum32())
}

// Seed is the run's seed when --seed is not given: the same in every shard.
func (d *Distributed) Seed() uint64 {
	h := fnv.New64a()
	h.Write([]byte(d.RunID))
	return h.Sum64() | 1
}

// ResultID is the id of this process's result.
func (d *Distributed) ResultID() string {
	if !d.Sharded {
		return d.RunID
	}
	return fmt.Sprintf("%s-shard%dof%d", d.RunID, d.Spec.Index, d.Spec.Count)
}

// split takes this shard's targets of the whole run's, whose instances run
// vus virtual users each.
func (d *Distributed) split(ts []workload.Target, vus int) ([]workload.Target, error) {
	if !d.Sharded {
		return ts, nil
	}
	p, err := d.Spec.Split(len(ts), vus)
	if err != nil {
		return nil, Invalidf("--shard %s: %v", d.Spec, err)
	}
	d.Part, d.Total = p, [2]int{len(ts), vus}
	return ts[p.FirstInstance : p.FirstInstance+p.Instances], nil
}
