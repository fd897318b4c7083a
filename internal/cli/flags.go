package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/pace"
	"github.com/rightsize/rightsize/internal/runner"
)

// seconds is a duration flag that also takes a bare number of seconds, as
// sysbench's --time=60 does.
type seconds struct{ d *time.Duration }

func (s seconds) String() string {
	if s.d == nil {
		return "0s"
	}
	return s.d.String()
}

func (s seconds) Set(v string) error {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		// NaN, ±Inf and more seconds than a Duration holds (about 292
		// years) would convert to nonsense such as a negative duration.
		ns := n * float64(time.Second)
		if math.IsNaN(n) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
			return fmt.Errorf("%q is not a duration (use 30s, 2m, 1h or a number of seconds, at most %v)", v, time.Duration(math.MaxInt64).Truncate(time.Second))
		}
		*s.d = time.Duration(ns)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration (use 30s, 2m, 1h or a number of seconds)", v)
	}
	*s.d = d
	return nil
}

func (s seconds) Type() string { return "duration" }

func durVar(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(seconds{p}, name, usage)
}

// rateValue is --rate: events per second ("50", "12.5") or a multiple of
// --baseline-rate ("2x", "1.5x").
type rateValue struct {
	perSec, multiple float64
	text             string
}

func (r *rateValue) String() string {
	if r.text == "" {
		return "0"
	}
	return r.text
}

func (r *rateValue) Set(v string) error {
	v = strings.TrimSpace(v)
	num, mult := strings.CutSuffix(strings.ToLower(v), "x")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return fmt.Errorf("%q is not a rate (events per second such as 50, or a multiple of --baseline-rate such as 2x)", v)
	}
	if mult && n == 0 {
		return fmt.Errorf("%q: a multiple must be above 0", v)
	}
	*r = rateValue{text: v}
	if mult {
		r.multiple = n
	} else {
		r.perSec = n
	}
	return nil
}

func (r *rateValue) Type() string { return "rate" }

// baselineValue is --baseline-rate: events per second, or auto.
type baselineValue struct{ c *commonFlags }

func (b baselineValue) String() string {
	switch {
	case b.c == nil:
		return "0"
	case b.c.baselineAuto:
		return "auto"
	}
	return strconv.FormatFloat(b.c.baseline, 'g', -1, 64)
}

func (b baselineValue) Set(v string) error {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "auto") {
		b.c.baseline, b.c.baselineAuto = 0, true
		return nil
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return fmt.Errorf("%q is not a baseline (a positive number of events per second, or auto)", v)
	}
	b.c.baseline, b.c.baselineAuto = n, false
	return nil
}

func (b baselineValue) Type() string { return "rate" }

// sweepsMultiples reports whether a sweep's --rate list holds a multiple.
func (c *commonFlags) sweepsMultiples() bool {
	for _, f := range strings.Split(c.rateList, ",") {
		if strings.HasSuffix(strings.ToLower(strings.TrimSpace(f)), "x") {
			return true
		}
	}
	return false
}

// commonFlags are the flags every workload's run, prepare and cleanup share.
type commonFlags struct {
	targets      []string
	instanceList string // --instances: one count, or a list to sweep

	// run
	threads      int
	duration     time.Duration
	warmup       time.Duration
	steady       time.Duration // --steady-state window
	steadyTol    float64       // --steady-tolerance, percent
	rate         rateValue
	baseline     float64 // --baseline-rate, or the measured one with auto
	baselineAuto bool    // --baseline-rate auto: measure it first

	// sweep
	threadList, rateList string
	slo, cpuTarget       float64
	arrival              string
	think                time.Duration
	thinkDist            string
	interval             time.Duration
	grace                time.Duration
	late                 time.Duration
	out                  string
	label                string
	history              string // the catalog runs are recorded in (--history)
	noHistory            bool
	seed                 uint64
	prepare              string
	cpuprof              string
	prometheus           string
	retry                string
	maxRetries           int

	// distributed runs (run only)
	shard   string // --shard I/N
	runID   string // --run-id
	startAt string // --start-at
	barrier time.Duration

	// prepare, cleanup
	force   bool
	loaders int

	fs    *pflag.FlagSet // to tell flags given from defaults
	phase string         // run, sweep, prepare, cleanup, check
}

func (c *commonFlags) bind(fs *pflag.FlagSet, phase string) {
	c.fs, c.phase = fs, phase
	fs.StringArrayVar(&c.targets, "target", nil, "database URL (postgres://, mysql://, sqlite:PATH), or for fileio a file or block device; env:VAR reads it from the environment variable VAR (keeps a password off the command line, see docs/passwords.md); repeat for several instances at once; default: an embedded SQLite file under ./rightsize-data/ (fileio: --file)")
	if phase == "sweep" {
		fs.StringVar(&c.instanceList, "instances", "", "instances driven at once, a list to sweep (1,2,4,8): from one --target, numbered databases NAME_1..NAME_N on its server (SQLite: numbered files; a sqlite: path ending in / numbers files in that directory), created and loaded by --prepare auto; from several --target, the first N (default: one per --target)")
	} else {
		fs.StringVar(&c.instanceList, "instances", "", "instances at once: from one --target, the numbered databases NAME_1..NAME_N on its server (SQLite: numbered files; a sqlite: path ending in / numbers files in that directory); from several --target, the first N (default: one per --target)")
	}
	switch phase {
	case "run", "sweep":
		if phase == "sweep" {
			fs.StringVar(&c.threadList, "threads", "1", "virtual users per instance, a list to sweep (1,2,4,8,16,32)")
			fs.StringVar(&c.rateList, "rate", "", "open loop: a list of rates to sweep, per second or multiples of --baseline-rate (1x,2x,3x,4x,5x)")
			fs.Float64Var(&c.slo, "slo", 0, "p99 objective in ms for the SLO knee (0: none)")
			fs.Float64Var(&c.cpuTarget, "cpu-target", 80, "host CPU % the sweet spot must stay under (the highest step with flat response time below it)")
		} else {
			fs.IntVar(&c.threads, "threads", 1, "virtual users per instance (closed loop), or most events in flight per instance (open loop)")
		}
		durVar(fs, &c.duration, "time", 10*time.Second, "length of the measured window (30s, 2m, or seconds)")
		durVar(fs, &c.warmup, "warmup", 0, "warm-up before the measured window, reported apart and excluded from the headline figures")
		durVar(fs, &c.steady, "steady-state", 0, "end the warm-up early once throughput and p99 are steady over this window (fio's ss=): the least-squares line through the window's intervals drifts less than --steady-tolerance; --warmup is then the longest warm-up, and the result records when steady state was reached or that it was not (0: off)")
		fs.Float64Var(&c.steadyTol, "steady-tolerance", 5, "steady state: the most throughput and p99 may drift over the --steady-state window, in percent of their mean")
		if phase == "run" {
			fs.Var(&c.rate, "rate", "open loop: start this many events per second per instance on a fixed schedule, or a multiple of --baseline-rate such as 2x (0 = closed loop); latency then counts from the intended start")
		}
		fs.Var(baselineValue{c}, "baseline-rate", "events per second per instance that --rate Nx multiplies (e.g. the rate a known-good configuration sustains), or auto: measure it first, closed loop with one virtual user per instance for --warmup and --time, and use its throughput per instance")
		fs.StringVar(&c.arrival, "arrival", "constant", "open-loop arrivals: constant (evenly spaced) or poisson (random, same mean)")
		durVar(fs, &c.think, "think-time", 0, "closed loop: pause between a virtual user's events (not timed)")
		fs.StringVar(&c.thinkDist, "think-dist", "fixed", "think-time distribution: fixed or exponential (mean --think-time)")
		durVar(fs, &c.interval, "report-interval", time.Second, "interval of the live progress line and of the per-interval series in the result (10ms or more)")
		durVar(fs, &c.grace, "grace", 5*time.Second, "at the end, how long events in flight may finish before they are cancelled (0 cancels them at once)")
		durVar(fs, &c.late, "late-threshold", time.Millisecond, "open loop: a start more than this after its intended time is counted late (0: any delay)")
		fs.StringVar(&c.out, "out", "", "result JSON file (default results/<time>-<workload>.json; '-' for none)")
		fs.StringVar(&c.label, "label", "", "a name for this run, shown by reports and the history")
		fs.StringVar(&c.history, "history", "", "record the results in this catalog: sqlite:PATH or postgres://user@host:5432/db (default: $RIGHTSIZE_HISTORY, else $XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db)")
		fs.BoolVar(&c.noHistory, "no-history", false, "do not record the results in the history catalog")
		fs.Uint64Var(&c.seed, "seed", 0, "random seed (0 = from the clock); the same seed repeats the same key sequence")
		fs.StringVar(&c.retry, "retry", "deadlock,serialization,lock_timeout,constraint", "error classes after which a transaction is run again and counted as a retry, not an error (sysbench 1.0 restarts events on PostgreSQL 40P01, 40001, 23505 and MySQL 1213, 1020, 1205); 'none' counts every failure as an error")
		fs.IntVar(&c.maxRetries, "max-retries", 100, "how many times one event is run again at most after errors of the --retry classes; an event whose last attempt fails counts as an error of that class and in the summary's gave_up")
		fs.StringVar(&c.prepare, "prepare", "auto", "prepare before running: auto (the default embedded SQLite target, databases numbered by --instances, or a fileio file that does not exist yet; what is already loaded is kept), always, never")
		bindPrometheus(fs, &c.prometheus)
		if phase == "run" {
			fs.StringVar(&c.shard, "shard", "", "drive shard I (from 0) of N of a run spread over N generators (I/N, e.g. $(JOB_COMPLETION_INDEX)/8): by instances when there are at least N, else by virtual users, each keeping its number in the whole run (TPC-C terminals keep their warehouses); the result carries the run id and the shard, and 'rightsize merge' adds the shards' results")
			fs.StringVar(&c.runID, "run-id", "", "with --shard: the id every shard of the run shares (default: derived from --start-at, the workload and the options, so shards started alike agree)")
			fs.StringVar(&c.startAt, "start-at", "", "start the warm-up at this wall-clock time (RFC 3339, e.g. 2026-12-01T10:00:00Z), after connecting; with --shard and a history catalog, also not before every shard has connected")
			durVar(fs, &c.barrier, "barrier-timeout", 10*time.Minute, "with --shard and a history catalog: how long to wait for every shard to connect before giving up")
		}
		fs.StringVar(&c.cpuprof, "cpuprofile", "", "write a Go CPU profile of the measured run to this file (for 'go tool pprof')")
	case "prepare":
		fs.IntVar(&c.loaders, "threads", 0, "parallel loaders per instance (0 = the workload's default: one per table for oltp, at most 4)")
		fs.Uint64Var(&c.seed, "seed", 0, "random seed of the generated data (0 = from the clock; tpcc records it, so a load can be repeated)")
		fs.BoolVar(&c.force, "force", false, "replace tables of the same names that rightsize did not create (DESTROYS them)")
	case "cleanup":
		fs.BoolVar(&c.force, "force", false, "also drop workload tables that rightsize did not create (e.g. made by sysbench)")
	}
}

// runnerConfig turns the run flags into a runner configuration and returns
// every problem at once: the runner's own checks and the CLI's.
func (c *commonFlags) runnerConfig() (runner.Config, error) {
	cfg := runner.Config{
		Threads: c.threads, Warmup: c.warmup, Duration: c.duration,
		Interval: c.interval, Grace: c.grace, LateThreshold: c.late, Seed: c.seed,
		SteadyState: runner.SteadyState{Window: c.steady, Tolerance: c.steadyTol / 100},
	}
	if c.grace == 0 {
		cfg.Grace = -1 // --grace 0: cancel events in flight at once
	}
	if c.late == 0 {
		cfg.LateThreshold = time.Nanosecond // --late-threshold 0: any delay is late
	}
	var errs []error
	switch {
	case c.rate.multiple > 0 && c.baselineAuto:
		// Measured before the first step, which sets cfg.Rate.
	case c.rate.multiple > 0 && c.baseline <= 0:
		errs = append(errs, fmt.Errorf("rate %s is a multiple: give --baseline-rate, the events per second that 1x means (or auto)", c.rate.String()))
	case c.rate.multiple > 0:
		cfg.Rate = c.rate.multiple * c.baseline
	case (c.baseline != 0 || c.baselineAuto) && !c.sweepsMultiples():
		errs = append(errs, fmt.Errorf("baseline-rate %s: only used with --rate given as a multiple (e.g. --rate 2x)", baselineValue{c}.String()))
	default:
		cfg.Rate = c.rate.perSec
	}
	if c.interval == 0 {
		errs = append(errs, errors.New("report-interval 0s: want a positive duration"))
	}
	if c.grace < 0 {
		errs = append(errs, fmt.Errorf("grace %v: want 0 or more", c.grace))
	}
	if a, err := pace.ParseArrival(c.arrival); err != nil {
		errs = append(errs, fmt.Errorf("arrival: %w", err))
	} else {
		cfg.Arrival = a
	}
	switch c.thinkDist {
	case "fixed", "exponential":
		cfg.Think = pace.Think{Mean: c.think, Exponential: c.thinkDist == "exponential"}
	default:
		cfg.Think = pace.Think{Mean: c.think}
		errs = append(errs, fmt.Errorf("think-dist %q: want fixed or exponential", c.thinkDist))
	}
	if c.retry != "none" && c.retry != "" {
		for _, name := range strings.Split(c.retry, ",") {
			cl, ok := errclass.Parse(strings.TrimSpace(name))
			if !ok || cl == errclass.None || cl == errclass.Connection || cl == errclass.Canceled {
				errs = append(errs, fmt.Errorf("retry %q: want a list of deadlock, serialization, lock_timeout, constraint, timeout, other (or none)", name))
				continue
			}
			cfg.Retry = append(cfg.Retry, cl)
		}
	}
	if c.maxRetries < 1 {
		errs = append(errs, fmt.Errorf("max-retries %d: want 1 or more (--retry none retries nothing)", c.maxRetries))
	} else {
		cfg.MaxRetries = c.maxRetries
	}
	switch c.prepare {
	case "auto", "always", "never":
	default:
		errs = append(errs, fmt.Errorf("prepare %q: want auto, always or never", c.prepare))
	}
	var ce *runner.ConfigError
	if err := cfg.Validate(); errors.As(err, &ce) {
		errs = append(ce.Problems, errs...)
	}
	if len(errs) > 0 {
		return cfg, usageError{errors.Join(errs...)}
	}
	return cfg, nil
}

// instanceCounts parses --instances: nil when not given; a list only for
// sweep.
func (c *commonFlags) instanceCounts() ([]int, error) {
	if strings.TrimSpace(c.instanceList) == "" {
		return nil, nil
	}
	ns, err := intList(c.instanceList)
	if err != nil {
		return nil, fmt.Errorf("instances %q: %v", c.instanceList, err)
	}
	if len(ns) > 1 && c.phase != "sweep" {
		return nil, fmt.Errorf("instances %q: a list is for sweep; give one number", c.instanceList)
	}
	return ns, nil
}
