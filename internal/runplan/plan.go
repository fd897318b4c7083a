package runplan

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/datahome"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/workload"
)

// Plan is a validated run or sweep: everything a session needs, parsed once.
type Plan struct {
	Workload workload.Workload
	// Sweep is true for a sweep: its steps are an axis, analysed together.
	Sweep bool
	// Targets are this process's instances (a shard's part of the run's).
	Targets []workload.Target
	// AutoPrepare is what --prepare auto does for an instance that cannot
	// tell itself (InstanceHooks.NeedsPrepare): prepare the default embedded
	// target and databases numbered by --instances.
	AutoPrepare bool
	Prepare     string // auto, always, never
	// Force runs instances whose prepared data do not match the options
	// (workload.ErrMismatch), with a warning, instead of refusing them.
	Force bool
	// Load is how load is offered: what every step shares, and Load.Step
	// resolves a step's own virtual users and rate.
	Load Load
	// Runner is how every step is measured and reported (its Load is each
	// step's: Load.Step).
	Runner runner.Settings
	// Axis names what a sweep varies: "threads", "rate", "instances", "CPUs" or the
	// workload's own ("read %"); OwnAxis when it is the workload's own steps.
	Axis    string
	OwnAxis bool
	// Steps are the steps in order: a run's one step (or the workload's own
	// steps, fileio's read mixes), a sweep's axis.
	Steps []Step
	// Dist is the shard of a distributed run (nil: none).
	Dist *Distributed
	Out  Output
	// History is the catalog the results are recorded in, and a shard's
	// start barrier registers in ("": none).
	History    string
	Prometheus string // --prometheus address ("": none)
	CPUProfile string // --cpuprofile file ("": none)
	// DBCgroup is the database's cgroup as --db-cgroup names it ("": found
	// from the server's process where it is on this host).
	DBCgroup string
	// ServerStats is how often the database servers' sessions are sampled
	// (--server-stats; 0: not at all).
	ServerStats time.Duration
	// ServerSessions: --server-stats was given, which samples the sessions
	// of MySQL/MariaDB servers too (serverstats.Options.MySQLSessions).
	ServerSessions bool
	Label          string
	// Config is --config, the configuration under test ("": the session
	// takes the label, else the target's host).
	Config string
	// SLO (p99 ms, 0: none), TypeSLO (p95 ms by transaction type) and
	// CPUTarget (%) are a sweep's analysis options.
	SLO, CPUTarget float64
	TypeSLO        map[string]float64
	// SLOPct is the percentile SLO is on ("p99", or "p95").
	SLOPct string
	// Search is a capacity search (--rate search, --threads search; nil:
	// a sweep over the values listed). Steps then holds one step, the
	// template every probe is made from (its own Threads or Rate set).
	Search *Search
}

// Search is how a sweep searches its axis for the most load that meets
// the objective (analysis.SearchSpec has the rest).
type Search struct {
	Axis      string  // "rate" or "threads"
	Precision float64 // the bracket's relative width to stop at (0.05)
	MaxSteps  int     // the most probes
}

// MaxSearchSteps is the most probes --max-steps allows.
const MaxSearchSteps = 100

// SearchStep is the step of a search's probe at x: the template with its
// rate (events/s per instance) or virtual users set, and its label.
func (p *Plan) SearchStep(x float64, run int) Step {
	l := p.Steps[0]
	switch p.Search.Axis {
	case "rate":
		l.Rate = Rate{perSec: x, text: strconv.FormatFloat(x, 'f', -1, 64)}
		l.Label = "rate " + l.Rate.text + "/s"
	default:
		l.Threads = int(x)
		l.Label = fmt.Sprintf("threads %d", l.Threads)
	}
	if run > 0 {
		l.Label += fmt.Sprintf(" (run %d)", run+1)
	}
	l.X = x
	l.Options = map[string]any{"sweep_step": l.Label}
	return l
}

// Step is one step of a plan: a point of a sweep's axis, one of the
// workload's own steps, or a run's only one.
type Step struct {
	Label string  // "threads 4", "rate 2x", "read 70%"; "" for a run's only step
	X     float64 // the step's value on the axis, for the analysis
	// Threads is the virtual users per instance (the workload's own count
	// when its options set it: workload.Meta.VUs).
	Threads int
	Rate    Rate
	// Instances is how many of the instances run (0: all).
	Instances int
	// Own is the workload's own variant it runs (InstanceHooks.SetVariant).
	Own int
	// Options are merged into the result's options.
	Options map[string]any
	// DBCPUs is the CPUs the database server is held to (--db-cpus; 0:
	// as it is).
	DBCPUs float64
}

// Multiples reports whether the plan's rates are multiples of the baseline.
func (p *Plan) Multiples() bool {
	for _, l := range p.Steps {
		if l.Rate.IsMultiple() {
			return true
		}
	}
	return false
}

// MostThreads is the largest number of virtual users per instance of any
// step; a search of the threads has no largest (MaxInt).
func (p *Plan) MostThreads() int {
	if p.Search != nil && p.Search.Axis == "threads" {
		return math.MaxInt32
	}
	most := 0
	for _, l := range p.Steps {
		most = max(most, l.Threads)
	}
	return most
}

// Output is where a plan's results go.
type Output struct {
	// Path is --out: "" for results/<id>-<workload>[-<step>].json, "-" for
	// no files.
	Path     string
	Workload string
}

// None reports --out -: no result files.
func (o Output) None() bool { return o.Path == "-" }

// Result is where a step's result goes: --out (with the step appended when
// there are several), or results/<id>-<workload>[-<step>].json; "-" for
// none.
func (o Output) Result(id, step string, nsteps int) string {
	out := o.Path
	if out == "" {
		name := id + "-" + o.Workload
		if nsteps > 1 {
			name += "-" + result.FileSafe(step)
		}
		return filepath.Join("results", name+".json")
	}
	if nsteps > 1 && out != "-" {
		out = strings.TrimSuffix(out, ".json") + "-" + result.FileSafe(step) + ".json"
	}
	return out
}

// Baseline is where a measured baseline's result goes.
func (o Output) Baseline(id string) string { return o.Result(id, "baseline", 2) }

// Sweep is where a sweep's own file goes (its Markdown beside it).
func (o Output) Sweep(id string) string {
	if o.Path != "" {
		return strings.TrimSuffix(o.Path, ".json") + "-sweep.json"
	}
	return filepath.Join("results", id+"-"+o.Workload+"-sweep.json")
}

// Dir is where the results, and so the checkpoints, go ("": nowhere).
func (o Output) Dir() string {
	switch o.Path {
	case "-":
		return ""
	case "":
		return "results"
	}
	return filepath.Dir(o.Path)
}

// OwnPrefix is the name every result of this plan starts with when it is
// not unique (--out given), else "".
func (o Output) OwnPrefix() string {
	if o.Path == "" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(o.Path), ".json")
}

// HistoryDSN is the catalog to use: the --history flag, else
// $RIGHTSIZE_HISTORY, else the SQLite file under $XDG_DATA_HOME (when it is
// an absolute path, as the XDG spec requires) or ~/.local/share; "" when
// none of them is set.
func HistoryDSN(getenv func(string) string, flag string) string {
	if flag != "" {
		return flag
	}
	if v := getenv("RIGHTSIZE_HISTORY"); v != "" {
		return v
	}
	if f := datahome.HistoryFile(getenv); f != "" {
		return "sqlite:" + f
	}
	return ""
}

// Env is what Plan reads besides the flags.
type Env struct {
	// Getenv reads --target env:VAR, libpq's variables and the default
	// history catalog's location.
	Getenv func(string) string
	// CheckHistory checks a history catalog's location without opening
	// it, so that a malformed one is refused before a run of hours that
	// then cannot be recorded (nil: not checked).
	CheckHistory func(dsn string) error
	// CheckCgroup checks --db-cgroup names a cgroup whose CPU figures can
	// be read (nil: not checked).
	CheckCgroup func(path string) error
}

// Plan parses and checks the flags of run or sweep for workload w (whose
// own flags are bound and parsed). It returns every problem at once, as an
// Error.
func (c *Flags) Plan(w workload.Workload, env Env) (*Plan, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p := &Plan{Workload: w, Sweep: c.phase == PhaseSweep, Prepare: c.Prepare, Force: c.Force, Out: Output{Path: c.Out, Workload: w.Meta().Name},
		Prometheus: c.Prometheus, CPUProfile: c.CPUProfile, ServerStats: c.ServerStats, ServerSessions: c.Changed("server-stats") && c.ServerStats > 0, Label: c.Label, Config: strings.TrimSpace(c.Config), SLO: c.SLO, SLOPct: c.SLOPct, CPUTarget: c.CPUTarget}
	c.openLoopThreads(w)
	rate := c.Rate.First()
	multiples := rate.IsMultiple()
	if p.Sweep {
		if err := w.Validate(); err != nil { // the workload's own steps come from its options
			return nil, Error{err}
		}
		if err := c.sweepAxis(w, p); err != nil {
			return nil, err
		}
		rate, multiples = p.Steps[0].Rate, p.Multiples()
	}
	load, cfg, cfgErr := c.runnerSettings(rate, c.Threads.First(), multiples, c.baseline(w))
	if p.Sweep {
		cfgErr = errors.Join(cfgErr, CheckCPUTarget(c.CPUTarget), checkTypeSLOs(w.Meta(), c.TypeSLO))
		p.TypeSLO = c.TypeSLO
	}
	cfgErr = errors.Join(cfgErr, checkConfigName(p.Config), checkLabel(p.Label))
	if !p.Sweep {
		cfgErr = errors.Join(cfgErr, c.runDBCPUs())
	}
	if m := w.Meta(); m.VUs > 0 {
		for _, f := range []string{"threads", "rate", "think-time"} {
			if c.Changed(f) {
				cfgErr = errors.Join(cfgErr, fmt.Errorf("--%s does not apply to %s: its options set the threads and their queue depth (closed loop)", f, m.Name))
			}
		}
	}
	if dsn := HistoryDSN(getenv, c.History); !c.NoHistory && dsn != "" {
		// Refused now, not after a run of hours that then is not recorded.
		if env.CheckHistory != nil {
			if err := env.CheckHistory(dsn); err != nil {
				cfgErr = errors.Join(cfgErr, err)
			}
		}
		p.History = dsn
	}
	if c.DBCgroup != "" {
		if env.CheckCgroup != nil {
			if err := env.CheckCgroup(c.DBCgroup); err != nil {
				cfgErr = errors.Join(cfgErr, fmt.Errorf("--db-cgroup %s: %w", c.DBCgroup, err))
			}
		}
		p.DBCgroup = c.DBCgroup
	}
	dist, dErr := c.Distributed(c.Shard, c.RunID)
	if dist != nil && p.Sweep {
		dErr = errors.Join(dErr, errors.New("--shard, --run-id and --start-at are run options, not sweep options"))
	}
	ts, numbered, tErr := c.ParseTargets(w, getenv)
	if err := errors.Join(cfgErr, dErr, tErr); err != nil {
		return nil, Error{err}
	}
	if !p.Sweep {
		p.Steps = c.runSteps(w) // the workload's options are valid now
	}
	if cpus, _ := c.DBCPUs(); len(cpus) == 1 {
		holdCPUs(p.Steps, cpus[0])
	}
	p.Load, p.Runner, p.Targets, p.Dist = load, cfg, ts, dist
	p.AutoPrepare = len(c.Targets) == 0 || numbered
	if dist != nil {
		var err error
		if p.Targets, err = dist.split(ts, p.Steps[0].Threads); err != nil {
			return nil, err
		}
		if dist.Sharded {
			p.Load.Shard = &dist.Part
		}
	}
	return p, nil
}

// MaxConfigName is the longest --config, in characters.
const MaxConfigName = 100

// checkConfigName checks a --config name: free text on one line.
func checkConfigName(name string) error {
	switch {
	case strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("--config %q: a name on one line, without control characters", name)
	case utf8.RuneCountInString(name) > MaxConfigName:
		return fmt.Errorf("--config: %d characters; at most %d", utf8.RuneCountInString(name), MaxConfigName)
	}
	return nil
}

// checkLabel checks a --label: free text on one line (reports, the history
// and studies print it).
func checkLabel(label string) error {
	if strings.ContainsFunc(label, unicode.IsControl) {
		return fmt.Errorf("--label %q: a name on one line, without control characters", label)
	}
	return nil
}

// threads is the virtual users per instance of every step: the workload's
// own count, or n.
func threads(w workload.Workload, n int) int {
	if vus := w.Meta().VUs; vus > 0 {
		return vus
	}
	return n
}

// OpenLoopThreads is --threads when a rate is given and --threads is not:
// the most events in flight per instance. One would start events late
// as soon as one waited on the server (the result counts the delays); an
// open loop's idle virtual users cost nothing.
const OpenLoopThreads = 16

// openLoopThreads sets --threads to OpenLoopThreads for a rate (a list,
// or a search) given without --threads, unless w sets its own.
func (c *Flags) openLoopThreads(w workload.Workload) {
	if c.Changed("threads") || w.Meta().VUs > 0 || c.Rate.First().IsZero() && !c.Rate.Search() {
		return
	}
	c.Threads.list, c.Threads.text = []int{OpenLoopThreads}, strconv.Itoa(OpenLoopThreads)
}

// runSteps are a run's steps: one, or the workload's own (fileio's read
// mixes).
func (c *Flags) runSteps(w workload.Workload) []Step {
	steps := w.Meta().Variants
	if len(steps) == 0 {
		steps = []workload.Variant{{}}
	}
	out := make([]Step, len(steps))
	for k, s := range steps {
		out[k] = Step{Label: s.Label, X: s.X, Threads: threads(w, c.Threads.First()), Rate: c.Rate.First(), Own: k, Options: s.Options}
	}
	return out
}

// baseline is what --rate 1x means: --baseline-rate when given, else the
// workload's own (a workload file's baseline_rate, Hooks.BaselineRate),
// else none.
func (c *Flags) baseline(w workload.Workload) Baseline {
	if c.Changed("baseline-rate") || !c.Baseline.IsZero() {
		return c.Baseline
	}
	if br := w.Hooks().BaselineRate; br != nil && br() > 0 {
		return Baseline{PerSec: br(), fromWorkload: true}
	}
	if c.Rate.Search() {
		return Baseline{Auto: true} // the search starts from one virtual user's rate
	}
	return c.Baseline
}

// runnerSettings turns the run flags into the load every step shares and the
// runner configuration, and returns every problem at once: the runner's own
// checks of the first step (rate and threads as given) and these. multiples
// tells that a sweep's rates are multiples of the baseline; base is what 1x
// means (Flags.baseline).
func (c *Flags) runnerSettings(rate Rate, threads int, multiples bool, base Baseline) (Load, runner.Settings, error) {
	load := Load{Baseline: base, Base: runner.Load{
		Warmup: c.Warmup, Duration: c.Duration,
		SteadyState: runner.SteadyState{Window: c.Steady, Tolerance: c.SteadyTol / 100},
	}}
	cfg := runner.Settings{Interval: c.Interval, Grace: c.Grace, LateThreshold: c.Late, Seed: c.Seed}
	if c.Grace == 0 {
		cfg.Grace = -1 // --grace 0: cancel events in flight at once
	}
	if c.Late == 0 {
		cfg.LateThreshold = time.Nanosecond // --late-threshold 0: any delay is late
	}
	var errs []error
	switch {
	case rate.IsMultiple() && base.Auto:
		// Measured before the first step, which sets the rate.
	case rate.IsMultiple() && base.PerSec <= 0:
		errs = append(errs, fmt.Errorf("rate %s is a multiple: give --baseline-rate, the events per second that 1x means (or auto)", rate))
	case !rate.IsMultiple() && !base.IsZero() && !multiples && !base.fromWorkload:
		errs = append(errs, fmt.Errorf("baseline-rate %s: only used with --rate given as a multiple (e.g. --rate 2x)", base))
	}
	errs = append(errs, c.loopProblems(&load.Base, &cfg)...)
	first := cfg
	first.Load = load.offer(threads, rate, base.PerSec) // a multiple measured first: 0, as yet
	var ce *runner.SettingsError
	if err := first.Validate(); errors.As(err, &ce) {
		errs = append(ce.Problems, errs...)
	}
	if len(errs) > 0 {
		return load, cfg, Error{errors.Join(errs...)}
	}
	return load, cfg, nil
}

// loopProblems sets load's arrivals and think time and cfg's retries from
// the flags and returns what is wrong with them.
func (c *Flags) loopProblems(load *runner.Load, cfg *runner.Settings) []error {
	var errs []error
	if c.Interval == 0 {
		errs = append(errs, errors.New("report-interval 0s: want a positive duration"))
	}
	if c.Grace < 0 {
		errs = append(errs, fmt.Errorf("grace %v: want 0 or more", c.Grace))
	}
	if a, err := pace.ParseArrival(c.Arrival); err != nil {
		errs = append(errs, fmt.Errorf("arrival: %w", err))
	} else {
		load.Arrival = a
	}
	switch c.ThinkDist {
	case "fixed", "exponential":
		load.Think = pace.Think{Mean: c.Think, Exponential: c.ThinkDist == "exponential"}
	default:
		load.Think = pace.Think{Mean: c.Think}
		errs = append(errs, fmt.Errorf("think-dist %q: want fixed or exponential", c.ThinkDist))
	}
	if c.Retry != "none" && c.Retry != "" {
		for _, name := range strings.Split(c.Retry, ",") {
			cl, ok := errclass.Parse(strings.TrimSpace(name))
			if !ok || cl == errclass.None || cl == errclass.Connection || cl == errclass.Canceled {
				errs = append(errs, fmt.Errorf("retry %q: want a list of deadlock, serialization, lock_timeout, constraint, timeout, other (or none)", name))
				continue
			}
			cfg.Retry = append(cfg.Retry, cl)
		}
	}
	if c.MaxErrorPct < 0 || c.MaxErrorPct > 100 || math.IsNaN(c.MaxErrorPct) {
		errs = append(errs, fmt.Errorf("max-error-pct %g: want a percentage from 0 to 100", c.MaxErrorPct))
	} else {
		pct := c.MaxErrorPct
		cfg.MaxErrorPct = &pct
	}
	if c.MaxRetries < 1 {
		errs = append(errs, fmt.Errorf("max-retries %d: want 1 or more (--retry none retries nothing)", c.MaxRetries))
	} else {
		cfg.MaxRetries = c.MaxRetries
	}
	switch c.Prepare {
	case "auto", "always", "never":
	default:
		errs = append(errs, fmt.Errorf("prepare %q: want auto, always or never", c.Prepare))
	}
	return errs
}

// RunnerProblems checks the run options of workload w as Plan does, for a
// command that only needs them checked (the k8s manifest).
func (c *Flags) RunnerProblems(w workload.Workload) error {
	_, _, err := c.runnerSettings(c.Rate.First(), c.Threads.First(), false, c.baseline(w))
	return err
}

// IntList parses a list of whole numbers from 1, sorted and without
// repeats: a sweep's axis rises, as the knee methods read the steps in
// order.
func IntList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive whole number", f)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// parseRates parses sweep's --rate list: sorted, without repeats, every
// step a multiple or every step per second; one value when not given.
func parseRates(list string) ([]Rate, error) {
	var rates []Rate
	if strings.TrimSpace(list) != "" {
		for _, f := range strings.Split(list, ",") {
			r, err := ParseRate(f)
			if err != nil {
				return nil, Invalidf("rate: %v", err)
			}
			rates = append(rates, r)
		}
	}
	if len(rates) > 1 {
		mult := rates[0].IsMultiple()
		for _, r := range rates {
			if r.IsZero() {
				return nil, Invalidf("rate: 0 in a sweep list would be a closed-loop step; list open-loop rates only")
			}
			if r.IsMultiple() != mult {
				return nil, Invalidf("rate %q: give every step as a multiple (1x,2x) or every step per second (100,200), not both", list)
			}
		}
		slices.SortFunc(rates, func(a, b Rate) int { return cmp.Compare(a.axisValue(), b.axisValue()) })
		rates = slices.CompactFunc(rates, func(a, b Rate) bool { return a.multiple == b.multiple && a.perSec == b.perSec })
	}
	if len(rates) == 0 {
		rates = []Rate{{}}
	}
	return rates, nil
}

// sweepAxis parses --threads, --rate and --instances lists, of which exactly
// one may have several values; with none, the workload's own steps (fileio's
// --read list) are the axis.
func (c *Flags) sweepAxis(w workload.Workload, p *Plan) error {
	if c.Rate.Search() || c.Threads.Search() {
		return c.searchAxis(w, p)
	}
	if err := c.Threads.Err(); err != nil {
		return Error{err}
	}
	threadList := c.Threads.List()
	if err := c.Rate.Err(); err != nil {
		return err
	}
	rates := c.Rate.List()
	counts, err := c.InstanceCounts()
	if err != nil {
		return Error{err}
	}
	cpus, err := c.DBCPUs()
	if err != nil {
		return Error{err}
	}
	m := w.Meta()
	own := m.Variants
	lists := 0
	for _, n := range []int{len(threadList), len(rates), len(counts), len(own), len(cpus)} {
		if n > 1 {
			lists++
		}
	}
	if lists > 1 {
		return Invalidf("sweep one axis at a time: more than one of --threads, --rate, --instances, --db-cpus (and %s's own steps) list several values", m.Name)
	}
	one := Step{Threads: threads(w, threadList[0]), Rate: rates[0]}
	add := func(l Step, label string, x float64) {
		l.Label, l.X, l.Own = label, x, len(p.Steps)
		if l.Options == nil {
			l.Options = map[string]any{"sweep_step": label}
		}
		p.Steps = append(p.Steps, l)
	}
	switch {
	case len(threadList) > 1:
		p.Axis = "threads"
		for _, n := range threadList {
			l := one
			l.Threads = threads(w, n)
			add(l, fmt.Sprintf("threads %d", n), float64(n))
		}
	case len(rates) > 1:
		p.Axis = "rate"
		for _, r := range rates {
			l := one
			l.Rate = r
			add(l, "rate "+r.String(), r.axisValue())
		}
	case len(counts) > 1:
		p.Axis = "instances"
		for _, n := range counts {
			l := one
			l.Instances = n
			add(l, fmt.Sprintf("instances %d", n), float64(n))
		}
	case len(cpus) > 1:
		p.Axis = "CPUs"
		for _, x := range cpus {
			l := one
			l.DBCPUs = x
			add(l, cpusLabel(x), x)
		}
	case len(own) > 1:
		p.Axis, p.OwnAxis = m.VariantAxis, true
		for _, o := range own {
			l := one
			l.Options = o.Options
			add(l, o.Label, o.X)
		}
	default:
		return Invalidf("sweep: give several values to --threads (1,2,4,8), --rate (1x,2x,3x or 100,200), --instances (1,2,4), --db-cpus (0.5,1,2), or to the workload's own list (fileio: --read 100,90,70)")
	}
	return nil
}

// searchAxis checks a search's flags and sets its template step: --rate
// search probes an open loop at --threads in flight from the baseline
// rate; --threads search a closed loop from one virtual user.
func (c *Flags) searchAxis(w workload.Workload, p *Plan) error {
	counts, err := c.InstanceCounts()
	if err != nil {
		return Error{err}
	}
	m := w.Meta()
	var errs []error
	if c.Rate.Search() && c.Threads.Search() {
		errs = append(errs, errors.New("search one axis at a time: --rate search or --threads search, not both"))
	}
	if c.SLO <= 0 {
		errs = append(errs, errors.New("a search needs the objective it meets: give --slo (50ms, or p95=50ms)"))
	}
	if !(c.Precision > 0 && c.Precision < 100) {
		errs = append(errs, fmt.Errorf("--precision %g: want a percentage above 0 and under 100", c.Precision))
	}
	if c.MaxSteps < 2 || c.MaxSteps > MaxSearchSteps {
		errs = append(errs, fmt.Errorf("--max-steps %d: want 2 to %d probes", c.MaxSteps, MaxSearchSteps))
	}
	cpus, err := c.DBCPUs()
	if err != nil {
		errs = append(errs, err)
	}
	if len(counts) > 1 || len(m.Variants) > 1 || len(cpus) > 1 {
		errs = append(errs, fmt.Errorf("a search varies its own axis: give one --instances count, one --db-cpus allotment (and one of %s's own steps)", m.Name))
	}
	one := Step{Label: "search", Threads: threads(w, c.Threads.First())}
	switch {
	case c.Rate.Search():
		if err := c.Threads.Err(); err != nil || len(c.Threads.List()) > 1 {
			errs = append(errs, errors.New("--rate search: --threads is the most events in flight per instance, one count"))
		}
		p.Axis, one.Rate = "rate", Rate{multiple: 1, text: "1x"}
	default:
		if !c.Rate.First().IsZero() {
			errs = append(errs, errors.New("--threads search runs a closed loop: give no --rate"))
		}
		if m.VUs > 0 {
			errs = append(errs, fmt.Errorf("--threads search: %s's options set its virtual users", m.Name))
		}
		p.Axis, one.Threads = "threads", 1
	}
	if len(errs) > 0 {
		return Invalidf("%v", errors.Join(errs...))
	}
	one.Options = map[string]any{"sweep_step": one.Label}
	p.Steps = []Step{one}
	p.Search = &Search{Axis: p.Axis, Precision: c.Precision / 100, MaxSteps: c.MaxSteps}
	return nil
}

// checkTypeSLOs refuses a --slo-type that names no transaction type of the
// workload m (its ops marked as types), and any for a workload of one
// type, whose objective is --slo.
func checkTypeSLOs(m workload.Meta, slos TypeSLOs) error {
	var types []string
	for _, op := range m.Ops {
		if op.Type {
			types = append(types, op.Name)
		}
	}
	if len(types) < 2 && len(slos) > 0 {
		return fmt.Errorf("--slo-type: %s has one transaction type (its %s): its objective is --slo", m.CommandArg(), m.Event)
	}
	var errs []error
	for _, n := range slices.Sorted(maps.Keys(slos)) {
		if !slices.Contains(types, n) {
			errs = append(errs, fmt.Errorf("--slo-type %s: %s has no transaction type %q (its types: %s)", n, m.CommandArg(), n, strings.Join(types, ", ")))
		}
	}
	return errors.Join(errs...)
}
