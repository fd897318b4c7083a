package noop

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// Name is the workload's name.
const Name = "noop"

// Workload is the no-op workload. It has no options; the field only makes
// each New a distinct value (pointers to zero-size values may be equal), as
// workload/all promises.
type Workload struct{ name string }

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Instance = (*instance)(nil)
	_ workload.VU       = vu{}
)

// New returns the workload.
func New() *Workload { return &Workload{name: Name} }

// Meta describes noop: one operation, nothing to prepare (run's --prepare
// auto does not announce a prepare), no options.
func (w *Workload) Meta() workload.Meta {
	return workload.Meta{
		Name:  w.name,
		Short: "an event that does nothing: the load generator's own ceiling (no database, no I/O)",
		Long:  long,
		Event: "event",
		Ops:   []workload.Op{{Name: "event", Kind: workload.Other}},
	}
}

// Options are none: noop records an empty object.
type Options struct{}

func (w *Workload) BindFlags(*pflag.FlagSet) {}
func (w *Workload) Validate() error          { return nil }
func (w *Workload) Options() any             { return Options{} }

const long = `noop runs events that do nothing: no database, no I/O. Each virtual user
returns from every event at once, so the figures are the load generator's own
ceiling: what the runner, its HDR histograms (one per virtual user, merged on
each report tick) and its pacing cost per event on this machine. Read a
database workload's throughput and client CPU per event against it.

  rightsize run noop --threads 2 --time 10s
  rightsize run noop --rate 100000 --threads 4 --time 10s   # open loop

It takes no --target: there is nothing to connect to.`

// target is the only place noop runs: nowhere.
type target struct{}

func (target) String() string { return "noop" }

// Open returns the instance; it opens nothing.
func (target) Open(context.Context) (workload.Instance, error) { return &instance{}, nil }

// Hooks: none.
func (target) Hooks() workload.TargetHooks { return workload.TargetHooks{} }

// Hooks: none.
func (*Workload) Hooks() workload.Hooks { return workload.Hooks{} }

// Hooks: none.
func (*instance) Hooks() workload.InstanceHooks { return workload.InstanceHooks{} }

// ParseTarget accepts only the default (no --target) or "noop".
func (w *Workload) ParseTarget(raw string, _ workload.TargetOptions) (workload.Target, error) {
	if raw != "" && raw != "noop" {
		return nil, fmt.Errorf("noop takes no --target (it connects to nothing); got %q", dialect.Redact(raw))
	}
	return target{}, nil
}

type instance struct{}

func (*instance) Info() workload.InstanceInfo {
	return workload.InstanceInfo{Target: "noop", Dialect: "none", Local: true}
}
func (*instance) Prepare(context.Context, workload.PrepareOptions, workload.Progress) error {
	return nil
}

func (*instance) Cleanup(context.Context, workload.PrepareOptions) ([]string, error) {
	return nil, nil
}
func (*instance) NewVU(context.Context, int, uint64) (workload.VU, error) {
	return vu{}, nil
}
func (*instance) Classify(err error) errclass.Class { return errclass.Generic(err) }
func (*instance) Close() error                      { return nil }

// vu is a virtual user whose every event succeeds at once.
type vu struct{}

func (vu) Event(context.Context, workload.Meter) error { return nil }
func (vu) Close() error                                { return nil }
