package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/workload"
)

// ErrInterrupted is returned when a step ended early (a signal, a run that
// could not complete its window) after its partial result was written.
var ErrInterrupted = exitcode.New("interrupted", exitcode.Interrupted)

// Options are what a session takes from the process, and whom it tells.
type Options struct {
	Version  string // the build's version, recorded in results
	Hostname string
	// CPUModel is the generator's CPU model, recorded in results ("":
	// unknown).
	CPUModel string
	NumCPU   int
	// MaxProcs is GOMAXPROCS; SetMaxProcs sets it (nil: left alone).
	MaxProcs    int
	SetMaxProcs func(n int)
	// CPUTime returns the process's user and system CPU time so far (nil:
	// not measured).
	CPUTime func() (user, sys time.Duration)
	// Sample returns the host's figures over the last secs seconds (nil:
	// no host figures).
	Sample func(secs float64) *result.Host
	// Server, if set, starts sampling the database servers of a step's
	// first n instances as the step starts (nil: no server figures).
	Server func(ctx context.Context, n int) ServerStep
	// HoldCPUs holds the database server to an allotment of CPUs before a
	// step that asks for one (runplan.Step.DBCPUs; nil: such a step fails).
	HoldCPUs func(cpus float64) error
	// Progress returns the progress of preparing the named target (nil:
	// none shown).
	Progress func(target string) workload.Progress
	// Register opens a distributed run's start barrier (nil: none; the
	// shards start at --start-at).
	Register OpenRegister
	// Observers are told of each stage, in this order.
	Observers []Observer
	// SweepReport writes a sweep's report, which the session writes beside
	// the sweep file (MarkdownPath; nil: none).
	SweepReport func(w io.Writer, a *analysis.Result) error
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// ServerStep samples the database servers' own view during one step
// (serverstats.Step).
type ServerStep interface {
	// Interval is told the phase ("warmup", "measure") of each report
	// interval as it ends; it is called from the runner's ticker and must
	// not block.
	Interval(phase string)
	// Stop ends the sampling once the runner has returned and gives each
	// instance's figures over the measured intervals (nil for one not
	// sampled).
	Stop() []*result.ServerStats
}

// Position is the step a session is at, as observers see it.
type Position struct {
	Index, Count int // 0-based; the baseline is Index -1
	// Search: the step is a probe of a capacity search (Count is then the
	// most probes it may run).
	Search    bool
	Spec      runplan.Step    // what the step runs
	Settings  runner.Settings // what the runner was given (Settings.Load: the step's load)
	Instances int             // instances the step drives
	Baseline  float64         // the baseline rate per instance, once known
	Path      string          // where the step's result goes ("-": nowhere)
}

// IsBaseline reports the baseline measurement that precedes the steps.
func (s Position) IsBaseline() bool { return s.Index < 0 }

// Outcome is what a session produced: every step's result that was made,
// the baseline's, and for a sweep its analysis.
type Outcome struct {
	ID    string
	Plan  *runplan.Plan
	Runs  []*result.Run
	Paths []string // each run's file ("-": none)
	// Specs are each run's step, as it ran (a search's probes are made as
	// it goes, not listed in the plan).
	Specs    []runplan.Step
	Baseline *result.Run
	// Search is a capacity search's answer (nil: not a search, or it
	// stopped before its answer).
	Search *result.Search
	// BaselinePath is the baseline's file ("" when none was measured).
	BaselinePath string
	// Sweep is the analysed sweep (sweeps only, once every step ran); its
	// data is Sweep.Sweep.
	Sweep     *analysis.Result
	SweepPath string // the sweep's file ("": none written)
	// Failed is true when a step failed (Runs then ends with its partial
	// result, if it made one).
	Failed bool
}

// Observer is told of a session's stages. Its methods are called from the
// goroutine that called Run, except Tick, which the runner's ticker calls;
// an error from StepEnd or End is returned by Run after the result is
// saved. Embed Base for the methods an observer does not need.
type Observer interface {
	// Begin is called once the instances are open and prepared, before the
	// first step; an error stops the session before anything is measured.
	Begin(o *Outcome) error
	// Preparing is called before instance i (0-based) is prepared.
	Preparing(i int, target string)
	// StepStart is called before each step, the baseline included.
	StepStart(s Position)
	// Tick is called at each report interval of a step.
	Tick(s Position, agg result.Interval, per []result.Interval)
	// StepEnd is given a step's complete result, before it is saved.
	StepEnd(s Position, r *result.Run) error
	// Saved is called once a step's result file is written.
	Saved(s Position, path string)
	// Probed is given a search's probe, judged, after its step (s).
	Probed(s Position, p result.SearchProbe)
	// Notice and Warn carry the session's messages: news, and what went
	// wrong without stopping it.
	Notice(msg string)
	Warn(msg string)
	// End is called once, after the last step or the one that failed.
	End(o *Outcome) error
}

// Base is an Observer that does nothing; embed it.
type Base struct{}

func (Base) Begin(*Outcome) error                              { return nil }
func (Base) Preparing(int, string)                             {}
func (Base) StepStart(Position)                                {}
func (Base) Tick(Position, result.Interval, []result.Interval) {}
func (Base) StepEnd(Position, *result.Run) error               { return nil }
func (Base) Saved(Position, string)                            {}
func (Base) Probed(Position, result.SearchProbe)               {}
func (Base) Notice(string)                                     {}
func (Base) Warn(string)                                       {}
func (Base) End(*Outcome) error                                { return nil }

var _ Observer = Base{}

// observers fans a call out to every observer.
type observers []Observer

func (os observers) notice(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, o := range os {
		o.Notice(msg)
	}
}

func (os observers) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, o := range os {
		o.Warn(msg)
	}
}

// session is one Run in progress.
type session struct {
	plan *runplan.Plan
	opt  Options
	obs  observers
	ins  []workload.Instance
	out  *Outcome
	// base is the runner configuration of every step, before the step's
	// load (runplan.Load.Step); specs are the instances as the runner sees
	// them.
	base     runner.Settings
	specs    []runner.Opened
	baseline float64
	dist     *barrier
}

// NewRunID returns a fresh run id: the UTC time and 6 random hex digits.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// Run runs the plan: it opens and prepares the instances, measures the
// baseline when asked, runs every step and, for a sweep, analyses it. The
// Outcome holds what was made even when the error is not nil.
func Run(ctx context.Context, p *runplan.Plan, opt Options) (*Outcome, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	s := &session{plan: p, opt: opt, obs: opt.Observers, baseline: p.Load.Baseline.PerSec}
	s.out = &Outcome{Plan: p}
	if p.Dist != nil {
		s.dist = &barrier{Distributed: p.Dist, register: opt.Register, hostname: opt.Hostname, obs: s.obs}
	}
	reportInterrupted(p.Out.Dir(), p.Out.OwnPrefix(), opt.Hostname, s.obs)
	ins, err := OpenAll(ctx, p.Targets)
	if err != nil {
		return s.out, err
	}
	defer CloseAll(ins)
	s.ins = ins
	if err := s.prepare(ctx); err != nil {
		return s.out, err
	}
	if err := s.match(ctx); err != nil {
		return s.out, err
	}
	s.configure()
	for _, o := range s.obs {
		if err := o.Begin(s.out); err != nil {
			return s.out, err
		}
	}
	err = s.steps(ctx)
	if err == nil && !p.Sweep {
		err = tooManyErrors(s.out.Runs)
	}
	s.out.Failed = err != nil
	if err == nil && p.Sweep {
		err = s.sweep()
	}
	for _, o := range s.obs {
		err = errors.Join(err, o.End(s.out))
	}
	return s.out, err
}

// tooManyErrors fails a run (not a sweep's step, which its steps table
// shows) whose share of failed events is over --max-error-pct, with its
// first error messages; nil when none is.
func tooManyErrors(runs []*result.Run) error {
	for _, r := range runs {
		if !r.TooManyErrors() {
			continue
		}
		return errors.New(r.ErrorsFailed())
	}
	return nil
}

// OpenAll opens every target; on error it closes what it opened.
func OpenAll(ctx context.Context, ts []workload.Target) ([]workload.Instance, error) {
	var out []workload.Instance
	for _, t := range ts {
		in, err := t.Open(ctx)
		if err != nil {
			CloseAll(out)
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

// CloseAll closes every instance.
func CloseAll(ins []workload.Instance) {
	for _, in := range ins {
		_ = in.Close()
	}
}

// prepare prepares the instances --prepare asks for: always, or with auto
// those that say they need it (InstanceHooks.NeedsPrepare) or, for the rest,
// the default embedded target and numbered databases of a workload that
// has something to prepare (workload.Meta.Prepare). Shards never prepare
// (refused for always): the tables are loaded once, before the shards
// start.
func (s *session) prepare(ctx context.Context) error {
	p := s.plan
	if p.Dist != nil && p.Dist.Sharded {
		return nil
	}
	prepares := p.Workload.Meta().Prepare
	for i, in := range s.ins {
		auto := p.AutoPrepare && prepares
		if needs := in.Hooks().NeedsPrepare; needs != nil {
			auto = needs()
		}
		if p.Prepare != "always" && (p.Prepare != "auto" || !auto) {
			continue
		}
		name := p.Targets[i].String()
		for _, o := range s.obs {
			o.Preparing(i, name)
		}
		var prog workload.Progress
		if s.opt.Progress != nil {
			prog = s.opt.Progress(name)
		}
		if err := in.Prepare(ctx, workload.PrepareOptions{}, prog); err != nil {
			return fmt.Errorf("prepare: %w", err)
		}
	}
	return nil
}

// match compares what each instance holds with the options
// (InstanceHooks.Match), after prepare and before anything is measured. A
// mismatch is refused unless --force, when it becomes a warning; anything
// else Match finds is refused. Every instance is compared, and every
// refusal returned at once.
func (s *session) match(ctx context.Context) error {
	var refused []error
	for i, in := range s.ins {
		match := in.Hooks().Match
		if match == nil {
			continue
		}
		notes, err := match(ctx)
		for _, n := range notes {
			s.obs.warn("%s: %s", s.plan.Targets[i], n)
		}
		switch {
		case err == nil:
		case errors.Is(err, workload.ErrMismatch) && s.plan.Force:
			s.obs.warn("%v; running anyway (--force)", err)
		case errors.Is(err, workload.ErrMismatch):
			refused = append(refused, fmt.Errorf("%w: prepare again or pass --force", err))
		default:
			refused = append(refused, err)
		}
	}
	return errors.Join(refused...)
}

// configure fills the runner configuration every step shares, the run's
// id and seed, and the instances as the runner sees them.
func (s *session) configure() {
	p, w := s.plan, s.plan.Workload
	cfg := p.Runner
	started := s.opt.Now()
	s.out.ID = NewRunID(started)
	if s.dist != nil {
		s.out.ID = s.dist.ResultID()
		cfg.Ready = s.dist.ready
		if cfg.Seed == 0 && s.dist.Sharded {
			// Every shard must draw the same run-wide values (TPC-C's C
			// constants) and its virtual users the streams they would have
			// in one process.
			cfg.Seed = s.dist.Seed()
		}
	}
	if cfg.Seed == 0 {
		// Recorded in the result (load.seed), so the run can be repeated with --seed.
		cfg.Seed = uint64(started.UnixNano())
	}
	for i, in := range s.ins {
		h := in.Hooks()
		if h.SeedRun != nil {
			h.SeedRun(cfg.Seed + uint64(i))
		}
		if h.SetShard != nil && s.dist != nil && s.dist.Sharded {
			h.SetShard(s.dist.Spec.Index, s.dist.Spec.Count)
		}
	}
	m := w.Meta()
	cfg.Ops, cfg.Counters = m.Ops, m.Counters
	cfg.Event, cfg.Unit = m.Event, m.Event+"s"
	cfg.CPUTime, cfg.Sample, cfg.CPUs = s.opt.CPUTime, s.opt.Sample, s.opt.NumCPU
	s.base = cfg
	s.setMaxProcs()
	s.specs = make([]runner.Opened, len(s.ins))
	for i, in := range s.ins {
		newVU, target := in.NewVU, p.Targets[i].String()
		s.specs[i] = runner.Opened{
			NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
				v, err := newVU(ctx, id, seed)
				if err != nil && !strings.Contains(err.Error(), target) {
					err = fmt.Errorf("%s: %w", target, err)
				}
				return v, err
			},
			Classify: in.Classify,
		}
	}
}

// setMaxProcs gives virtual users doing blocking I/O a Go processor each.
// They hold their processor while blocked, so a few virtual users do best
// with one processor each, plus two for the ticker and the runtime. Past 4
// per CPU the processors' threads starve the ticker instead: measured on 2
// CPUs with 64 PostgreSQL virtual users, 66 processors gave 255 tps with
// report ticks up to 7.7 s late, 8 gave 334 tps (rightsize reports late
// ticks as ticker_lag).
func (s *session) setMaxProcs() {
	blocking := false
	for _, in := range s.ins {
		blocking = blocking || in.Info().BlockingIO
	}
	most := max(1, s.plan.MostThreads())
	need := min(most*len(s.ins)+2, max(8, 4*s.opt.NumCPU))
	if blocking && need > s.opt.MaxProcs && s.opt.SetMaxProcs != nil {
		s.opt.SetMaxProcs(need)
		s.opt.MaxProcs = need
	}
}

// steps measures the baseline when asked, then runs every step.
func (s *session) steps(ctx context.Context) error {
	p := s.plan
	if p.Load.Baseline.Auto {
		if err := s.measureBaseline(ctx); err != nil {
			return err
		}
	}
	if p.Search != nil {
		return s.search(ctx)
	}
	for k, l := range p.Steps {
		st := s.position(k, len(p.Steps), l)
		if _, err := s.runPosition(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

// position is step l's position, k of n.
func (s *session) position(k, n int, l runplan.Step) Position {
	p := s.plan
	cfg := s.base
	cfg.Load = p.Load.Step(l, s.baseline)
	return Position{Index: k, Count: n, Spec: l, Settings: cfg, Instances: s.live(l), Baseline: s.baseline,
		Path: p.Out.Result(s.out.ID, l.Label, n)}
}

// runPosition runs the step at st and keeps its result.
func (s *session) runPosition(ctx context.Context, st Position) (*result.Run, error) {
	for _, in := range s.ins {
		if set := in.Hooks().SetVariant; set != nil {
			set(st.Spec.Own)
		}
	}
	res, err := s.runStep(ctx, st)
	if res != nil {
		s.out.Runs = append(s.out.Runs, res)
		s.out.Paths = append(s.out.Paths, st.Path)
		s.out.Specs = append(s.out.Specs, st.Spec)
	}
	return res, err
}

// live is how many instances a step drives.
func (s *session) live(l runplan.Step) int {
	if l.Instances > 0 {
		return l.Instances
	}
	return len(s.ins)
}

// measureBaseline runs the baseline step (--baseline-rate auto): closed
// loop, one virtual user per instance (the workload's own count when its
// options set it: workload.Meta.VUs), on the first step's instances; its throughput
// per instance is what 1x means.
func (s *session) measureBaseline(ctx context.Context) error {
	p, w := s.plan, s.plan.Workload
	first := s.live(p.Steps[0])
	threads := 1
	if vus := w.Meta().VUs; vus > 0 {
		threads = vus
	}
	cfg := s.base
	cfg.Load = p.Load.Closed(threads)
	st := Position{Index: -1, Count: len(p.Steps), Spec: runplan.Step{Label: "baseline", Threads: cfg.Threads, DBCPUs: p.Steps[0].DBCPUs}, Settings: cfg,
		Instances: first, Path: p.Out.Baseline(s.out.ID)}
	res, err := s.runStep(ctx, st)
	if err != nil {
		return err
	}
	s.out.Baseline, s.out.BaselinePath = res, st.Path
	s.baseline = res.Summary.Throughput / float64(first)
	if s.baseline <= 0 {
		return fmt.Errorf("baseline: no %ss completed at one thread per instance; cannot multiply a zero rate", w.Meta().Event)
	}
	s.obs.notice("baseline rate: %.4g/s per instance (1x)", s.baseline)
	return nil
}
