package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"

	"github.com/rightsize/rightsize/internal/config"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/metrics"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

// runCmd is run and sweep: the flags become a plan, a session runs it.
func runCmd(ctx context.Context, env *Env, w workload.Workload, c *config.Flags) error {
	p, err := c.Plan(w, planEnv(env))
	if err != nil {
		return err
	}
	cmd := "run"
	if p.Sweep {
		cmd = "sweep"
	}
	outs := outputs(p)
	if err := asUsage(session.CheckOutputs(cmd, "--out", outs, resultOut, p.Force, nil)); err != nil {
		return err
	}
	if p.CPUProfile != "" {
		if err := checkOutput(cmd, "--cpuprofile", p.CPUProfile, profileOut, p.Force, nil); err != nil {
			return err
		}
	}
	flags := append(slices.Repeat([]string{"--out"}, len(outs)), "--cpuprofile")
	if err := asUsage(session.CheckOnce(cmd, flags, append(outs, p.CPUProfile))); err != nil {
		return err
	}
	_, err = execute(ctx, env, p)
	if err != nil && p.Prepare != "always" && missingDatabase(p, err) {
		err = fmt.Errorf("%w (the database does not exist yet: `rightsize prepare %s --target URL`, with this command's workload options, creates and loads it, or give --prepare always)", err, p.Workload.Meta().Name)
	}
	return err
}

// missingDatabase reports whether err is the step's database server saying
// that the database (or a table of it) does not exist.
func missingDatabase(p *config.Plan, err error) bool {
	for _, t := range p.Targets {
		if d, ok := dialectall.ForScheme(t.String()); ok && d.Classify(err) == errclass.Missing {
			return true
		}
	}
	return false
}

// outputs are the files a plan writes whose names --out gives: the steps'
// results, a measured baseline's, a sweep's file and its Markdown report.
// With no --out the names hold the run's new id, and --out - writes none.
func outputs(p *config.Plan) []string {
	if p.Out.Path == "" || p.Out.None() {
		return nil
	}
	var out []string
	for _, l := range p.Steps {
		out = append(out, p.Out.Result("", l.Label, len(p.Steps)))
	}
	if p.Load.Baseline.Auto {
		out = append(out, p.Out.Baseline(""))
	}
	if p.Sweep {
		sw := p.Out.Sweep("")
		out = append(out, sw, session.MarkdownPath(sw))
	}
	return out
}

// execute runs a plan with the observers its options ask for: the console
// always, Prometheus, the CPU profile and the history catalog when given.
func execute(ctx context.Context, env *Env, p *config.Plan) (*session.Outcome, error) {
	obs := []session.Observer{newConsole(env, p)}
	if p.Prometheus != "" {
		pctx, stopProm := context.WithCancel(ctx) // the server stops when the command ends
		m := p.Workload.Meta()
		e, addr, err := startPrometheus(pctx, p.Prometheus, m.Name, m.Event)
		if err != nil {
			stopProm()
			return nil, err
		}
		defer func() { stopProm(); <-e.Stopped() }()
		fmt.Fprintf(env.Stderr, "metrics: http://%s/metrics\n", addr)
		obs = append(obs, promObserver{e: e})
	}
	if p.CPUProfile != "" {
		obs = append(obs, &profiler{path: p.CPUProfile})
	}
	if p.History != "" {
		obs = append(obs, &recorder{ctx: ctx, env: env, dsn: p.History})
	}
	opt := session.Options{
		Version: Version(), Hostname: env.Hostname, CPUModel: cpuModel(env), NumCPU: env.NumCPU, MaxProcs: env.MaxProcs, SetMaxProcs: env.SetMaxProcs,
		CPUTime: env.CPUTime, Sample: hostSampler(env, p),
		Progress:    func(name string) workload.Progress { return newProgress(env, name) },
		Observers:   obs,
		SweepReport: sweepMarkdown,
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

// planEnv is what config.Plan reads from the process: the environment, and
// the history catalog's check of a location.
func planEnv(env *Env) config.Env {
	return config.Env{Getenv: env.Getenv, CheckHistory: func(dsn string) error { return history.Validate(dsn, env.Getenv) },
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

// cpuModel is the host's CPU model from its /proc ("" when there is none to
// read, or it names none: the result then records none).
func cpuModel(env *Env) string {
	if env.ProcRoot == "" {
		return ""
	}
	m, _ := host.CPUModel(env.ProcRoot)
	return m
}

// hostSampler samples the host's /proc for each interval, with the cgroups
// of rightsize and of the database (nil when there is no /proc to read).
func hostSampler(env *Env, p *config.Plan) func(secs float64) *result.Host {
	if env.ProcRoot == "" {
		return nil
	}
	s, err := host.NewSampler(env.ProcRoot, watchedCgroups(env, p)...)
	if err != nil {
		fmt.Fprintf(env.Stderr, "rightsize: host metrics not available: %v\n", err)
		return nil
	}
	return func(secs float64) *result.Host {
		h, err := s.Sample(secs)
		if err != nil {
			return nil
		}
		return h
	}
}

// promObserver feeds the live Prometheus metrics at each tick.
type promObserver struct {
	session.Base
	e *metrics.Exporter
}

func (o promObserver) Tick(s session.Step, agg result.Interval, per []result.Interval) {
	o.e.Observe(s.Spec.Label, agg, per)
}

// profiler writes a Go CPU profile of the measured steps (--cpuprofile).
type profiler struct {
	session.Base
	path string
	f    *os.File
}

func (p *profiler) Begin(*session.Outcome) error {
	f, err := os.Create(p.path)
	if err != nil {
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("--cpuprofile: %w", err)
	}
	p.f = f
	return nil
}

func (p *profiler) End(*session.Outcome) error {
	if p.f != nil {
		pprof.StopCPUProfile()
		p.f.Close()
	}
	return nil
}

// readResult reads a result file.
func readResult(path string) (*result.Run, error) { return session.ReadResult(path) }

// CheckpointReason starts a checkpoint's partial_reason (see package
// session).
const CheckpointReason = session.CheckpointReason
