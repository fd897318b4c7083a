package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/workload"
)

// runStep runs one step and writes its result, keeping a checkpoint of it
// while it runs (see checkpoint.go). A partial result is written too, and
// returned with ErrInterrupted.
func (s *session) runStep(ctx context.Context, st Position) (*result.Run, error) {
	if x := st.Spec.DBCPUs; x > 0 {
		if s.opt.HoldCPUs == nil {
			return nil, fmt.Errorf("%s: --db-cpus %g: the database's CPUs cannot be held here", st.Spec.Label, x)
		}
		if err := s.opt.HoldCPUs(x); err != nil {
			return nil, err
		}
	}
	for _, o := range s.obs {
		o.StepStart(st)
	}
	cfg := st.Settings
	var srv ServerStep
	if s.opt.Server != nil {
		srv = s.opt.Server(ctx, st.Instances)
	}
	cfg.OnTick = func(agg result.Interval, per []result.Interval) {
		if srv != nil {
			srv.Interval(agg.Phase)
		}
		for _, o := range s.obs {
			o.Tick(st, agg, per)
		}
	}
	describe := func(res *result.Run) { s.describe(res, st) }
	cp := newCheckpointer(st.Path, s.opt.Hostname, cfg.Interval, describe, s.obs)
	if cp != nil {
		cfg.Snapshot = cp.snapshot
	}
	res, err := runner.Run(ctx, cfg, s.specs[:st.Instances])
	var servers []*result.ServerStats
	if srv != nil {
		servers = srv.Stop()
	}
	if err != nil {
		cp.stop(false)
		return nil, err
	}
	describe(res)
	attachServers(res, servers)
	if summarize := s.plan.Workload.Hooks().Summarize; summarize != nil {
		if err := summarize(res); err != nil {
			// The measurements are intact: keep them and say what is missing.
			s.obs.warn("%s figures not computed: %v", res.Workload, err)
		}
	}
	// The result is written even when an observer fails (a summary that
	// cannot be printed: stdout closed, or a file on a full disk): the
	// measurements are what counts.
	var obsErr error
	for _, o := range s.obs {
		obsErr = errors.Join(obsErr, o.StepEnd(st, res))
	}
	if st.Path != "-" {
		if err := WriteResult(st.Path, res); err != nil {
			if kept := cp.keep(err); kept != "" {
				err = fmt.Errorf("%w; the checkpoint %s of the run so far is kept", err, kept)
			}
			return res, errors.Join(err, obsErr)
		}
		cp.stop(true)
		for _, o := range s.obs {
			o.Saved(st, st.Path)
		}
	}
	if obsErr != nil {
		return res, obsErr
	}
	if res.Partial {
		s.obs.warn("run %s; partial result written", res.PartialReason)
		return res, ErrInterrupted
	}
	return res, nil
}

// attachServers gives each instance its server's figures over the
// measured window and, when the step drove one instance, the run too (the
// servers of several are not added up: two instances may share one).
func attachServers(res *result.Run, servers []*result.ServerStats) {
	for i := range res.Instances {
		if i < len(servers) {
			res.Instances[i].ServerStats = servers[i]
		}
	}
	if len(res.Instances) == 1 {
		res.ServerStats = res.Instances[0].ServerStats
	}
}

// describe adds what the runner does not know to a step's result (or
// checkpoint): the tool, the run's id, label and configuration, the workload and its
// options, the instances' servers, the client's host, and the shard.
func (s *session) describe(res *result.Run, st Position) {
	p := s.plan
	res.SchemaVersion = result.SchemaVersion
	res.Tool = result.Tool{Name: "rightsize", Version: s.opt.Version, GoVersion: runtime.Version()}
	res.ID = s.out.ID
	res.Label = p.Label
	if st.Spec.Label != "" {
		res.Label = strings.TrimSpace(p.Label + " " + st.Spec.Label)
	}
	res.Config = s.configName()
	res.Workload = p.Workload.Meta().Name
	if def := p.Workload.Hooks().Definition; def != nil {
		res.WorkloadDigest = def().Digest
	}
	opts, err := workload.Record(p.Workload.Options())
	if err != nil {
		// A type JSON cannot encode: a bug of the workload's, which must
		// not cost the measurements.
		s.obs.warn("%s: %v", res.Workload, err)
		opts = map[string]any{}
	}
	res.Options = opts
	for k, v := range st.Spec.Options {
		res.Options[k] = v
	}
	if st.Spec.Rate.IsMultiple() {
		res.Load.RateMultiple, res.Load.BaselineRate = st.Spec.Rate.Multiple(), s.baseline
	}
	for i, in := range s.ins[:min(len(s.ins), len(res.Instances))] {
		info := in.Info()
		ri := &res.Instances[i]
		ri.Target, ri.Dialect, ri.ServerProduct, ri.ServerVersion = info.Target, info.Dialect, info.ServerProduct, info.ServerVersion
		ri.Encrypted, ri.TLS, ri.Notes = info.Encrypted, info.TLS, info.Notes
	}
	res.Machine = &result.Machine{Hostname: s.opt.Hostname, CPUModel: s.opt.CPUModel}
	if res.Client != nil {
		res.Client.NumCPU, res.Client.GoMaxProcs, res.Client.Hostname = s.opt.NumCPU, s.opt.MaxProcs, s.opt.Hostname
	}
	if s.dist != nil {
		s.dist.describe(res)
	}
}

// configName is the configuration under test: --config, else the label,
// else HostConfig's.
func (s *session) configName() string {
	p := s.plan
	switch {
	case p.Config != "":
		return p.Config
	case p.Label != "":
		return p.Label
	}
	return HostConfig(p, s.opt.Hostname)
}

// HostConfig is the configuration a plan without --config or a label is
// named by: its first target's host, else (an embedded database or a
// file, which run here) hostname, this host's name.
func HostConfig(p *runplan.Plan, hostname string) string {
	if len(p.Targets) > 0 {
		if u, err := url.Parse(p.Targets[0].String()); err == nil && u.Host != "" {
			return u.Host
		}
	}
	return hostname
}
