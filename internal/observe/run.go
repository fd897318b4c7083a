package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/metrics"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

// Env is the process state the CLI may use, injected by main; a run from
// the command line uses all but Args.
type Env struct {
	Args           []string
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// CPUTime returns the process's user and system CPU time so far; nil when
	// it cannot be measured.
	CPUTime func() (user, sys time.Duration)
	// Terminal is true when Stderr is a terminal (progress bars animate).
	Terminal bool
	Hostname string
	// Brief makes runs and sweeps print one line per step instead of the
	// live lines and each step's summary (quickstart; the files hold all).
	Brief    bool
	NumCPU   int
	MaxProcs int
	// SetMaxProcs sets GOMAXPROCS (nil: left alone).
	SetMaxProcs func(n int)
	// ProcRoot is where the host's /proc is mounted, for host metrics ("":
	// none are sampled).
	ProcRoot string
	// SysFS is the host's /sys, for its CPU and NUMA topology (nil: not
	// available).
	SysFS fs.FS
}

// Recorder records a session's results, and its sweep, in the history
// catalog at dsn, and says so on env's output.
type Recorder func(ctx context.Context, env *Env, dsn string, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error

// Run runs a plan with the observers its options ask for: the console
// always, Prometheus, the CPU profile and the history catalog (through
// record) when given.
func Run(ctx context.Context, env *Env, p *runplan.Plan, record Recorder) (*session.Outcome, error) {
	obs := []session.Observer{newConsole(env, p)}
	if p.Prometheus != "" {
		pctx, stopProm := context.WithCancel(ctx) // the server stops when the command ends
		m := p.Workload.Meta()
		e, addr, err := StartPrometheus(pctx, p.Prometheus, m.Name, m.Event)
		if err != nil {
			stopProm()
			return nil, usage{err}
		}
		defer func() { stopProm(); <-e.Stopped() }()
		fmt.Fprintf(env.Stderr, "metrics: http://%s/metrics\n", addr)
		obs = append(obs, promObserver{e: e})
	}
	if p.CPUProfile != "" {
		obs = append(obs, &profiler{path: p.CPUProfile})
	}
	if p.History != "" {
		obs = append(obs, &recorder{ctx: ctx, env: env, dsn: p.History, record: record})
	}
	opt := session.Options{
		Version: Version(), Hostname: env.Hostname, CPUModel: cpuModel(env), NumCPU: env.NumCPU, MaxProcs: env.MaxProcs, SetMaxProcs: env.SetMaxProcs,
		CPUTime: env.CPUTime, Sample: hostSampler(env, p),
		Progress:    func(name string) workload.Progress { return NewProgress(env, name) },
		Observers:   obs,
		SweepReport: SweepMarkdown,
	}
	if start, srv := serverSampler(p); srv != nil {
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
// of rightsize and of the database and the database server's own
// processes when it runs on this host (nil when there is no /proc to
// read).
func hostSampler(env *Env, p *runplan.Plan) func(secs float64) *result.Host {
	if env.ProcRoot == "" {
		return nil
	}
	cgroups, servers := watchedCgroups(env, p)
	s, err := host.NewSampler(env.ProcRoot, cgroups...)
	if err != nil {
		fmt.Fprintf(env.Stderr, "rightsize: host metrics not available: %v\n", err)
		return nil
	}
	for _, srv := range servers {
		if err := s.WatchServer(srv); err != nil {
			fmt.Fprintf(env.Stderr, "rightsize: the database's CPU: %v\n", err)
		}
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

func (o promObserver) Tick(s session.Position, agg result.Interval, per []result.Interval) {
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

// StartPrometheus serves a run's live metrics at addr (host:port) until ctx
// ends, and returns the exporter to feed from the runner's OnTick and the
// address actually bound (addr with its port resolved). Call it only when
// --prometheus was given (addr != ""). An address that cannot be listened on
// (in use, malformed, not permitted) is an error naming --prometheus.
func StartPrometheus(ctx context.Context, addr, workload, event string) (*metrics.Exporter, string, error) {
	e := metrics.New(workload, event)
	bound, err := e.Serve(ctx, addr)
	if err != nil {
		return nil, "", fmt.Errorf("--prometheus: %w", err)
	}
	return e, bound, nil
}

// usage marks err as a usage error, without changing its message: it wraps
// runplan.ErrInvalid, which the CLI maps to exit 2.
type usage struct{ err error }

func (u usage) Error() string   { return u.err.Error() }
func (u usage) Unwrap() []error { return []error{u.err, runplan.ErrInvalid} }

// Exporter serves a run's live metrics (metrics.Exporter).
type Exporter = metrics.Exporter

// Version returns the build's version: the module version or VCS revision.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

// SweepMarkdown is the report written beside a sweep file: the sweep as a
// Markdown document, as analyze --format markdown writes it.
func SweepMarkdown(w io.Writer, a *analysis.Result) error {
	return report.SweepReport(w, a, report.Markdown)
}
