package tpcc

import (
	"context"
	"sync"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// instance is the workload bound to one target. Its methods may be called
// from several goroutines (NewVU concurrently for many VUs).
type instance struct {
	o Options
	t *target

	// run holds what every VU of a run shares, set up by the first NewVU
	// from runSeed (SeedRun) or, without one, from that VU's seed.
	runSeed uint64
	runOnce sync.Once
	runErr  error
	run     runShared

	mu   sync.Mutex
	info workload.InstanceInfo
}

var _ workload.Instance = (*instance)(nil)

func newInstance(o Options, t *target) *instance {
	caps := t.d.Capabilities()
	return &instance{
		o: o, t: t,
		info: workload.InstanceInfo{
			Target:     t.String(),
			Dialect:    t.d.Name(),
			Notes:      append([]string(nil), caps.Notes...),
			BlockingIO: caps.BlockingIO,
		},
	}
}

// Info describes the instance; the server version is known once a
// connection has been opened.
func (in *instance) Info() workload.InstanceInfo {
	in.mu.Lock()
	defer in.mu.Unlock()
	i := in.info
	i.Notes = append([]string(nil), in.info.Notes...)
	return i
}

func (in *instance) note(s string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, n := range in.info.Notes {
		if n == s {
			return
		}
	}
	in.info.Notes = append(in.info.Notes, s)
}

// connect opens a connection and records its details in Info.
func (in *instance) connect(ctx context.Context) (dialect.Conn, error) {
	c, err := in.t.d.Connect(ctx, in.t.t)
	if err != nil {
		return nil, err
	}
	ci := c.Info()
	in.mu.Lock()
	if in.info.ServerVersion == "" {
		in.info.ServerVersion = ci.ServerVersion
		in.info.Encrypted = ci.Encrypted
		in.info.TLS = ci.TLSVersion
	}
	in.mu.Unlock()
	return c, nil
}

// SeedRun implements workload.RunSeeder.
func (in *instance) SeedRun(seed uint64) { in.runSeed = seed }

// Classify is the dialect's classification.
func (in *instance) Classify(err error) errclass.Class { return in.t.d.Classify(err) }

// Close releases nothing: VUs own their connections.
func (in *instance) Close() error { return nil }
