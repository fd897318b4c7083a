package run

import (
	"context"
	"errors"
	"fmt"

	"github.com/rightsize/rightsize/internal/app/observers"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
)

// Run runs a plan with the observers its options ask for: the console
// always, Prometheus, the CPU profile and the history catalog (through
// record) when given.
func Run(ctx context.Context, env *Env, p *runplan.Plan, record Recorder) (*session.Outcome, error) {
	obs := []session.Observer{observers.NewConsole(env.Out(), p)}
	if p.Prometheus != "" {
		pctx, stopProm := context.WithCancel(ctx) // the server stops when the command ends
		m := p.Workload.Meta()
		e, addr, err := observers.StartPrometheus(pctx, p.Prometheus, m.Name, m.Event)
		if err != nil {
			stopProm()
			return nil, exitcode.With(err, exitcode.Usage)
		}
		defer func() { stopProm(); <-e.Stopped() }()
		fmt.Fprintf(env.Stderr, "metrics: http://%s/metrics\n", addr)
		obs = append(obs, observers.NewPrometheus(e))
	}
	if p.CPUProfile != "" {
		obs = append(obs, observers.NewProfiler(p.CPUProfile))
	}
	if p.History != "" {
		obs = append(obs, observers.NewRecorder(ctx, env.Stderr, func(ctx context.Context, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error {
			return record(ctx, env, p.History, runs, paths, sw, swPath)
		}))
	}
	cgroups, servers := observers.Watched(env.ProcRoot, env.Stderr, p)
	hold, restore, err := observers.HoldCPUs(env.ProcRoot, env.NumCPU, env.Stderr, p, cgroups, servers)
	if err != nil {
		return nil, exitcode.With(err, exitcode.Usage)
	}
	if restore != nil {
		defer restore()
	}
	opt := session.Options{
		Version: observers.Version(), Hostname: env.Hostname, CPUModel: observers.CPUModel(env.ProcRoot), NumCPU: env.NumCPU, MaxProcs: env.MaxProcs, SetMaxProcs: env.SetMaxProcs,
		CPUTime: env.CPUTime, Sample: observers.HostSampler(env.ProcRoot, env.Stderr, cgroups, servers), HoldCPUs: hold,
		Progress:    observers.Progresses(env.Out()),
		Observers:   obs,
		SweepReport: observers.SweepMarkdown,
	}
	if start, srv := observers.ServerSampler(p); srv != nil {
		defer srv.Close()
		opt.Server = start
	}
	if p.History != "" {
		opt.Register = func(ctx context.Context) (session.Register, error) {
			cat, err := history.Open(ctx, p.History, env.Getenv)
			if err != nil {
				return nil, err
			}
			return catalogRegister{cat}, nil
		}
	}
	return session.Run(ctx, p, opt)
}

// PlanEnv is what runplan.Plan reads from the process: the environment, and
// the history catalog's check of a location.
func PlanEnv(env *Env) runplan.Env {
	return runplan.Env{Getenv: env.Getenv, CheckHistory: func(dsn string) error { return history.Validate(dsn, env.Getenv) },
		CheckCgroup: func(path string) error {
			if env.ProcRoot == "" {
				return errors.New("this host's /proc is not read here")
			}
			_, err := host.CgroupAt(env.ProcRoot, path)
			return err
		}}
}

// catalogRegister is the history catalog as a distributed run's start
// barrier.
type catalogRegister struct{ *history.Catalog }

func (c catalogRegister) ReadyShards(ctx context.Context, runID string) ([]session.ReadyShard, error) {
	rows, err := c.Catalog.ReadyShards(ctx, runID)
	out := make([]session.ReadyShard, len(rows))
	for i, r := range rows {
		out[i] = session.ReadyShard{Shard: r.Shard, Shards: r.Shards, Ready: r.Ready}
	}
	return out, err
}

// MissingDatabase reports whether err is the plan's database server saying
// that the database (or a table of it) does not exist.
func MissingDatabase(p *runplan.Plan, err error) bool { return dialectall.Missing(p.Targets, err) }
