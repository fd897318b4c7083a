package runplan

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/result"
)

// Seconds is a duration flag that also takes a bare number of seconds, as
// sysbench's --time=60 does.
type Seconds struct{ D *time.Duration }

func (s Seconds) String() string {
	if s.D == nil {
		return "0s"
	}
	return s.D.String()
}

func (s Seconds) Set(v string) error {
	v = strings.TrimSpace(v)
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		// NaN, ±Inf and more seconds than a Duration holds (about 292
		// years) would convert to nonsense such as a negative duration.
		ns := n * float64(time.Second)
		if math.IsNaN(n) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
			return fmt.Errorf("%q is not a duration (use 30s, 2m, 1h or a number of seconds, at most %v)", v, time.Duration(math.MaxInt64).Truncate(time.Second))
		}
		*s.D = time.Duration(ns)
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration (use 30s, 2m, 1h or a number of seconds)", v)
	}
	*s.D = d
	return nil
}

func (s Seconds) Type() string { return "duration" }

// DurationVar binds a Seconds flag with a default.
func DurationVar(fs *pflag.FlagSet, p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	fs.Var(Seconds{p}, name, usage)
}

// Millis is a flag of milliseconds (--slo) that takes a duration (50ms,
// 0.5s, 250us) or, as it always has, a bare number of milliseconds (50).
// The value is not negative and finite.
type Millis struct{ Ms *float64 }

func (m Millis) String() string {
	if m.Ms == nil {
		return "0"
	}
	return strconv.FormatFloat(*m.Ms, 'g', -1, 64)
}

func (m Millis) Set(v string) error {
	v = strings.TrimSpace(v)
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil {
		d, derr := time.ParseDuration(v)
		ms, err = float64(d)/float64(time.Millisecond), derr
	}
	if err != nil || math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return fmt.Errorf("%q is not a p99 objective (use 50ms, 0.5s or a number of milliseconds; 0: none)", v)
	}
	*m.Ms = ms
	return nil
}

func (m Millis) Type() string { return "duration|ms" }

// TypeSLOs are --slo-type: each transaction type's p95 objective in
// milliseconds, by name.
type TypeSLOs map[string]float64

func (t *TypeSLOs) String() string {
	if t == nil || len(*t) == 0 {
		return ""
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(*t)) {
		parts = append(parts, n+"="+strconv.FormatFloat((*t)[n], 'g', -1, 64)+"ms")
	}
	return strings.Join(parts, ",")
}

// Set adds one NAME=DURATION (or a comma-separated list of them).
func (t *TypeSLOs) Set(v string) error {
	for _, one := range strings.Split(v, ",") {
		name, d, ok := strings.Cut(strings.TrimSpace(one), "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("%q: want a transaction type and its p95 objective, NAME=DURATION (new_order=50ms)", one)
		}
		var ms float64
		if err := (Millis{&ms}).Set(d); err != nil || ms <= 0 {
			return fmt.Errorf("%q: the objective of %s is not a duration above 0 (50ms, 0.5s or milliseconds)", one, name)
		}
		if *t == nil {
			*t = TypeSLOs{}
		}
		(*t)[name] = ms
	}
	return nil
}

func (t *TypeSLOs) Type() string { return "name=duration" }

// Within refuses an objective of a type no step of sw has figures of.
func (t TypeSLOs) Within(sw *result.Sweep) error {
	var names []string
	for _, st := range sw.Steps {
		for _, ty := range st.Types {
			if !slices.Contains(names, ty.Name) {
				names = append(names, ty.Name)
			}
		}
	}
	var errs []error
	for _, n := range slices.Sorted(maps.Keys(t)) {
		if !slices.Contains(names, n) {
			have := "its steps record no transaction types (one type: set --slo instead)"
			if len(names) > 0 {
				have = "its types: " + strings.Join(names, ", ")
			}
			errs = append(errs, fmt.Errorf("--slo-type %s: the sweep has no transaction type %q (%s)", n, n, have))
		}
	}
	return errors.Join(errs...)
}

// SLOFlag is sweep's --slo: a Millis objective on the p99, or on another
// percentile written p95=50ms.
type SLOFlag struct {
	Ms  *float64
	Pct *string
}

// SLOPercentiles are the percentiles an objective may be on.
var SLOPercentiles = []string{"p99", "p95"}

func (f SLOFlag) String() string {
	if f.Ms == nil {
		return "0"
	}
	v := Millis{f.Ms}.String()
	if f.Pct != nil && *f.Pct != "" && *f.Pct != "p99" {
		v = *f.Pct + "=" + v + "ms"
	}
	return v
}

func (f SLOFlag) Set(v string) error {
	pct, d, ok := strings.Cut(strings.TrimSpace(v), "=")
	if !ok {
		pct, d = "p99", v
	}
	pct = strings.ToLower(strings.TrimSpace(pct))
	if !slices.Contains(SLOPercentiles, pct) {
		return fmt.Errorf("%q: an objective on %s; give it on p99 (50ms) or p95 (p95=50ms)", v, pct)
	}
	if err := (Millis{f.Ms}).Set(d); err != nil {
		return err
	}
	*f.Pct = pct
	return nil
}

func (f SLOFlag) Type() string { return "[p95=]duration" }

// MillisVar binds a Millis flag with a default (milliseconds).
func MillisVar(fs *pflag.FlagSet, p *float64, name string, def float64, usage string) {
	*p = def
	fs.Var(Millis{p}, name, usage)
}

// CheckCPUTarget is the one rule for --cpu-target (sweep, analyze, plan): a
// host CPU percentage above 0 and at most 100.
func CheckCPUTarget(pct float64) error {
	if !(pct > 0 && pct <= 100) {
		return fmt.Errorf("cpu-target %g: want more than 0 and at most 100 (a percentage of the host's CPU)", pct)
	}
	return nil
}

// rateValue is what a flag of one rate holds: a Rate (--rate of run) or a
// Baseline (--baseline-rate), each parsing its own text.
type rateValue[T any] interface {
	fmt.Stringer
	parse(string) (T, error)
}

// rateValueFlag binds a rateValue: "0" when unbound.
type rateValueFlag[T rateValue[T]] struct{ p *T }

// rateFlag is --rate of run, baselineFlag --baseline-rate.
type (
	rateFlag     = rateValueFlag[Rate]
	baselineFlag = rateValueFlag[Baseline]
)

func (Rate) parse(v string) (Rate, error)         { return ParseRate(v) }
func (Baseline) parse(v string) (Baseline, error) { return ParseBaseline(v) }

func (f rateValueFlag[T]) String() string {
	if f.p == nil {
		return "0"
	}
	return (*f.p).String()
}

func (f rateValueFlag[T]) Set(v string) error {
	x, err := (*new(T)).parse(v)
	if err != nil {
		return err
	}
	*f.p = x
	return nil
}

func (f rateValueFlag[T]) Type() string { return "rate" }

// axis is what Rates and Threads share: a flag of run and sweep parsed
// once as it is set, run's one value or sweep's list of them (or search),
// whose problem Plan reports with the others.
type axis[T any] struct {
	list  []T
	text  string
	err   error // sweep: what is wrong with the list
	sweep bool
	// search: sweep's search (the values are searched, not listed).
	search bool
}

// Search reports sweep's search.
func (a axis[T]) Search() bool { return a.search }

// Err is what is wrong with sweep's list (nil: nothing).
func (a axis[T]) Err() error { return a.err }

// set reads v: run's one value (one), or sweep's list (list), or search,
// whose list begins as searched.
func (a *axis[T]) set(v string, one func(string) (T, error), list func(string) ([]T, error), searched []T) error {
	if !a.sweep {
		x, err := one(v)
		if err != nil {
			return err
		}
		a.list, a.text = []T{x}, v
		return nil
	}
	a.text = v
	if a.search = strings.EqualFold(strings.TrimSpace(v), "search"); a.search {
		a.list, a.err = searched, nil
		return nil
	}
	a.list, a.err = list(v)
	return nil
}

// flagType is the flag's type: run's, or a list's string.
func (a axis[T]) flagType(run string) string {
	if a.sweep {
		return "string"
	}
	return run
}

// Rates is --rate of run and sweep: run's one rate (ParseRate), or sweep's
// list of them (parseRates). Without one, the closed loop.
type Rates struct{ axis[Rate] }

// List is the rates given: one for run, the axis's for sweep (the closed
// loop when none was given).
func (r Rates) List() []Rate {
	if len(r.list) == 0 {
		return []Rate{{}}
	}
	return r.list
}

// First is the first rate (run's only one).
func (r Rates) First() Rate { return r.List()[0] }

// ratesFlag binds a Rates for run (one rate) or sweep (a list).
type ratesFlag struct{ r *Rates }

func (f ratesFlag) String() string {
	if f.r == nil {
		return "0"
	}
	if f.r.sweep {
		return f.r.text
	}
	return f.r.First().String()
}

func (f ratesFlag) Set(v string) error { return f.r.set(v, ParseRate, parseRates, nil) }

func (f ratesFlag) Type() string { return f.r.flagType("rate") }

// bind registers the flag on fs: no rate (the closed loop) by default.
func (r *Rates) bind(fs *pflag.FlagSet, sweep bool, usage string) {
	*r = Rates{axis[Rate]{sweep: sweep}}
	fs.Var(ratesFlag{r}, "rate", usage)
}

// Threads is --threads of run and sweep: run's one count of virtual users
// per instance (any whole number, checked with the other load settings),
// or sweep's list of them, sorted and without repeats (IntList); a search
// searches the counts from 1.
type Threads struct{ axis[int] }

// threadsFlag binds a Threads for run (one count, typed int as pflag's are)
// or sweep (a list).
type threadsFlag struct{ t *Threads }

func (f threadsFlag) String() string {
	if f.t == nil {
		return "1"
	}
	if !f.t.sweep && len(f.t.list) == 1 {
		return strconv.Itoa(f.t.list[0])
	}
	return f.t.text
}

func (f threadsFlag) Set(v string) error {
	return f.t.set(v, oneThreads, threadsList, []int{1})
}

func (f threadsFlag) Type() string { return f.t.flagType("int") }

// oneThreads reads run's --threads as pflag's int flags do.
func oneThreads(v string) (int, error) {
	n, err := strconv.ParseInt(v, 0, 64)
	return int(n), err
}

// threadsList reads sweep's --threads list (IntList).
func threadsList(v string) ([]int, error) {
	l, err := IntList(v)
	if err != nil {
		err = fmt.Errorf("threads %q: %v", v, err)
	}
	return l, err
}

// bind sets the default (1) and registers the flag on fs.
func (t *Threads) bind(fs *pflag.FlagSet, sweep bool, usage string) {
	*t = Threads{axis[int]{list: []int{1}, text: "1", sweep: sweep}}
	fs.Var(threadsFlag{t}, "threads", usage)
}

// List is the counts given: one for run, the axis's for sweep (nil when
// the list is wrong: Err says why).
func (t Threads) List() []int { return t.list }

// First is the first count (run's only one; 0 when none).
func (t Threads) First() int {
	if len(t.list) == 0 {
		return 0
	}
	return t.list[0]
}

// DefaultMaxErrorPct is --max-error-pct's default: a run in which more
// than 1 % of the events failed has failed.
const DefaultMaxErrorPct = 1.0

// DefaultServerStats is how often --server-stats on samples the servers'
// sessions.
const DefaultServerStats = 100 * time.Millisecond

// ServerStatsFlag is --server-stats: off (0), on (DefaultServerStats) or
// a sampling interval of 10 ms to 1 min.
type ServerStatsFlag struct{ Every *time.Duration }

func (f ServerStatsFlag) String() string {
	switch {
	case f.Every == nil || *f.Every == DefaultServerStats:
		return "on"
	case *f.Every == 0:
		return "off"
	}
	return f.Every.String()
}

func (f ServerStatsFlag) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "false", "0":
		*f.Every = 0
		return nil
	case "on", "true":
		*f.Every = DefaultServerStats
		return nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < 10*time.Millisecond || d > time.Minute {
		return fmt.Errorf("want off, on or a sampling interval from 10ms to 1m (such as 250ms), not %q", v)
	}
	*f.Every = d
	return nil
}

func (f ServerStatsFlag) Type() string { return "off|on|INTERVAL" }

// Phases a Flags is bound for.
const (
	PhaseRun     = "run"
	PhaseSweep   = "sweep"
	PhasePrepare = "prepare"
	PhaseCleanup = "cleanup"
	PhaseCheck   = "check"
)

// Flags are the command-line values every workload's run, sweep, prepare,
// cleanup and check share, as given. They are read by Plan (and the
// prepare options) and never written after the command line is parsed.
type Flags struct {
	Targets        []string
	Instances      string        // --instances: one count, or a list to sweep
	ConnectTimeout time.Duration // --connect-timeout: each connection attempt to a server

	// run and sweep
	Threads     Threads // --threads: run's count, or sweep's list
	Duration    time.Duration
	Warmup      time.Duration
	Steady      time.Duration // --steady-state window
	SteadyTol   float64       // --steady-tolerance, percent
	Rate        Rates         // --rate: run's rate, or sweep's list
	Baseline    Baseline
	Arrival     string
	Think       time.Duration
	ThinkDist   string
	Interval    time.Duration
	Grace       time.Duration
	Late        time.Duration
	Out         string
	Label       string
	Config      string // the configuration under test (--config)
	History     string // the catalog runs are recorded in (--history)
	NoHistory   bool
	Seed        uint64
	Prepare     string
	CPUProfile  string
	Prometheus  string
	DBCgroup    string        // --db-cgroup
	DBCPUList   string        // --db-cpus: one allotment, or a list to sweep
	ServerStats time.Duration // --server-stats: the sampling interval (0: off)
	Retry       string
	MaxRetries  int
	MaxErrorPct float64  // --max-error-pct
	SLO         float64  // sweep
	SLOPct      string   // sweep: the percentile --slo is on ("p99", "p95")
	Precision   float64  // sweep: a search's --precision, percent
	MaxSteps    int      // sweep: a search's --max-steps
	TypeSLO     TypeSLOs // sweep: --slo-type NAME=DURATION, repeated
	CPUTarget   float64  // sweep
	Shard       string   // --shard I/N (run only)
	RunID       string   // --run-id
	StartAt     string   // --start-at
	BarrierWait time.Duration

	// prepare, cleanup; run and sweep: go on past a mismatch
	Force   bool
	Loaders int // prepare's --threads

	fs    *pflag.FlagSet // to tell flags given from defaults
	phase string
}

// Phase is what the flags were bound for (PhaseRun, ...).
func (c *Flags) Phase() string { return c.phase }

// Changed reports whether the flag name was given on the command line.
func (c *Flags) Changed(name string) bool { return c.fs != nil && c.fs.Changed(name) }

// VisitChanged calls fn for every flag given on the command line, in the
// order the flags were defined (not the order they were given, so that two
// command lines that differ only in their order visit alike).
func (c *Flags) VisitChanged(fn func(*pflag.Flag)) {
	if c.fs == nil {
		return
	}
	c.fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			fn(f)
		}
	})
}

// BindPrometheus registers --prometheus ADDR on fs; an empty addr (the
// default) serves nothing.
func BindPrometheus(fs *pflag.FlagSet, addr *string) {
	fs.StringVar(addr, "prometheus", "",
		"serve live Prometheus metrics at ADDR (e.g. :9464 or 127.0.0.1:9464) during the run: /metrics")
}

// Bind registers the phase's flags on fs.
func (c *Flags) Bind(fs *pflag.FlagSet, phase string) {
	c.fs, c.phase = fs, phase
	fs.StringArrayVar(&c.Targets, "target", nil, "database URL (postgres://, mysql://, sqlite:PATH), or for fileio a file or block device; env:VAR reads it from the environment variable VAR (keeps a password off the command line, see docs/passwords.md); repeat for several instances at once (each its own database: two that resolve to one host, port, database and user are refused); default: an embedded SQLite file under ./rightsize-data/ (fileio: --file)")
	if phase == PhaseSweep {
		fs.StringVar(&c.Instances, "instances", "", "instances driven at once, a list to sweep (1,2,4,8): from one --target, numbered databases NAME_1..NAME_N on its server (SQLite: numbered files; a sqlite: path ending in / numbers files in that directory), created and loaded by --prepare auto; from several --target, the first N (default: one per --target)")
	} else {
		fs.StringVar(&c.Instances, "instances", "", "instances at once: from one --target, the numbered databases NAME_1..NAME_N on its server (SQLite: numbered files; a sqlite: path ending in / numbers files in that directory); from several --target, the first N (default: one per --target)")
	}
	DurationVar(fs, &c.ConnectTimeout, "connect-timeout", 10*time.Second, "how long each attempt to connect to a database server may take (a virtual user's first connection, each reconnect, prepare's): after it the attempt fails with a message that says so; a file (SQLite, fileio) ignores it")
	switch phase {
	case PhaseRun, PhaseSweep:
		c.bindRun(fs, phase)
	case PhasePrepare:
		fs.IntVar(&c.Loaders, "loaders", 0, "parallel loaders per instance (0 = the workload's default: one per table for oltp, at most 4)")
		fs.IntVar(&c.Loaders, "threads", 0, "the same as --loaders (sysbench's name for prepare's parallelism)")
		fs.Uint64Var(&c.Seed, "seed", 0, "random seed of the generated data (0 = from the clock; tpcc records it, so a load can be repeated)")
		fs.BoolVar(&c.Force, "force", false, "replace tables of the same names that rightsize did not create (DESTROYS them)")
	case PhaseCleanup:
		fs.BoolVar(&c.Force, "force", false, "also drop workload tables that rightsize did not create (e.g. made by sysbench)")
	}
}

func (c *Flags) bindRun(fs *pflag.FlagSet, phase string) {
	if phase == PhaseSweep {
		c.Threads.bind(fs, true, "virtual users per instance, a list to sweep (1,2,4,8,16,32), or search: the most before the --slo objective is missed or throughput stops growing, searched from 1 (closed loop); with --rate, the most events in flight per instance (16 by default)")
		c.Rate.bind(fs, true, "open loop: a list of rates to sweep, per second or multiples of --baseline-rate (1x,2x,3x,4x,5x), or search: the highest rate that meets the --slo objective and is kept up with, searched from --baseline-rate (auto when not given: one virtual user's closed-loop rate)")
		c.SLOPct = "p99"
		fs.Var(SLOFlag{&c.SLO, &c.SLOPct}, "slo", "response-time objective: p99 by default, a duration (50ms) or milliseconds, or on another percentile as p95=50ms; the slo knee's, and what --rate search and --threads search meet (0: none)")
		fs.Float64Var(&c.Precision, "precision", 5, "a search stops once the highest load that met the objective and the lowest that did not are this close, in percent of the lower")
		fs.IntVar(&c.MaxSteps, "max-steps", 12, "the most probes a search runs (each a measured step with its warm-up; a probe near the boundary run again counts again)")
		fs.Var(&c.TypeSLO, "slo-type", "p95 objective of one transaction type, NAME=DURATION (new_order=50ms); repeat it for several types; the type-slo knee is the most load at which every named type meets its objective (with --slo too, the slo knee comes first)")
		fs.Float64Var(&c.CPUTarget, "cpu-target", 80, "host CPU % the sweet spot must stay under (the highest step with flat response time below it)")
	} else {
		c.Threads.bind(fs, false, "virtual users per instance (closed loop; 1 by default), or most events in flight per instance (open loop: with --rate, 16 by default)")
	}
	DurationVar(fs, &c.Duration, "time", 10*time.Second, "length of the measured window (30s, 2m, or seconds)")
	DurationVar(fs, &c.Warmup, "warmup", 0, "warm-up before the measured window, reported apart and excluded from the headline figures")
	DurationVar(fs, &c.Steady, "steady-state", 0, "end the warm-up early once throughput and p99 are steady over this window (fio's ss=): the least-squares line through the window's intervals drifts less than --steady-tolerance; --warmup is then the longest warm-up, and the result records when steady state was reached or that it was not (0: off)")
	fs.Float64Var(&c.SteadyTol, "steady-tolerance", 5, "steady state: the most throughput and p99 may drift over the --steady-state window, in percent of their mean")
	if phase == PhaseRun {
		c.Rate.bind(fs, false, "open loop: start this many events per second per instance on a fixed schedule, or a multiple of --baseline-rate such as 2x (0 = closed loop); latency then counts from the intended start")
	}
	fs.Var(baselineFlag{&c.Baseline}, "baseline-rate", "events per second per instance that --rate Nx multiplies (e.g. the rate a known-good configuration sustains), or auto: measure it first, closed loop with one virtual user per instance for --warmup and --time, and use its throughput per instance")
	fs.StringVar(&c.Arrival, "arrival", "constant", "open-loop arrivals: constant (evenly spaced) or poisson (random, same mean)")
	DurationVar(fs, &c.Think, "think-time", 0, "closed loop: pause between a virtual user's events (not timed)")
	fs.StringVar(&c.ThinkDist, "think-dist", "fixed", "think-time distribution: fixed or exponential (mean --think-time)")
	DurationVar(fs, &c.Interval, "report-interval", time.Second, "interval of the live progress line and of the per-interval series in the result (10ms or more)")
	DurationVar(fs, &c.Grace, "grace", 5*time.Second, "at the end, how long events in flight may finish before they are cancelled (0 cancels them at once)")
	DurationVar(fs, &c.Late, "late-threshold", time.Millisecond, "open loop: a start more than this after its intended time is counted late (0: any delay)")
	fs.StringVar(&c.Out, "out", "", "result JSON file (default results/<time>-<workload>.json; '-' for none)")
	fs.StringVar(&c.Label, "label", "", "a name for this run, shown by reports and the history")
	fs.StringVar(&c.Config, "config", "", `the configuration under test ("24 vCPU", "X-IO ISE860 AFA", "HCI"), recorded in the results and the history, by which reports compare configurations (default: --label, else the target's host)`)
	fs.StringVar(&c.History, "history", "", "record the results in this catalog: sqlite:PATH or postgres://user@host:5432/db (default: $RIGHTSIZE_HISTORY, else $XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db)")
	fs.BoolVar(&c.NoHistory, "no-history", false, "do not record the results in the history catalog")
	fs.Uint64Var(&c.Seed, "seed", 0, "random seed (0 = from the clock); the same seed repeats the same key sequence")
	fs.StringVar(&c.Retry, "retry", "deadlock,serialization,lock_timeout,constraint", "error classes after which a transaction is run again and counted as a retry, not an error (sysbench 1.0 restarts events on PostgreSQL 40P01, 40001, 23505 and MySQL 1213, 1020, 1205); 'none' counts every failure as an error")
	fs.IntVar(&c.MaxRetries, "max-retries", 100, "how many times one event is run again at most after errors of the --retry classes; an event whose last attempt fails counts as an error of that class and in the summary's gave_up")
	fs.Float64Var(&c.MaxErrorPct, "max-error-pct", DefaultMaxErrorPct, "the largest share of the measured window's events, in percent, that may fail: a run in which more failed exits 1 (its result is written, its summary opens with what failed); 100 never fails a run for its errors")
	fs.BoolVar(&c.Force, "force", false, "run even when the prepared tables or file do not match the options (tables loaded with another --table-size or not fully, a file of another --size): the mismatch is then a warning and a note in the result, not a refusal; and let --out replace a file that is not a result or sweep of rightsize's, and --cpuprofile one that is not a profile (without it they are refused, exit 2)")
	fs.StringVar(&c.Prepare, "prepare", "auto", "prepare before running: auto (the default embedded SQLite target, databases numbered by --instances, or a fileio file that does not exist yet; what is already loaded is kept), always, never")
	BindPrometheus(fs, &c.Prometheus)
	if phase == PhaseRun {
		fs.StringVar(&c.Shard, "shard", "", "drive shard I (from 0) of N of a run spread over N generators (I/N, e.g. $(JOB_COMPLETION_INDEX)/8): by instances when there are at least N, else by virtual users, each keeping its number in the whole run (TPC-C terminals keep their warehouses); the result carries the run id and the shard, and 'rightsize merge' adds the shards' results")
		fs.StringVar(&c.RunID, "run-id", "", "with --shard: the id every shard of the run shares (default: derived from --start-at, the workload and the options, so shards started alike agree)")
		fs.StringVar(&c.StartAt, "start-at", "", "start the warm-up at this wall-clock time (RFC 3339, e.g. 2026-12-01T10:00:00Z), after connecting; with --shard and a history catalog, also not before every shard has connected")
		DurationVar(fs, &c.BarrierWait, "barrier-timeout", 10*time.Minute, "with --shard and a history catalog: how long to wait for every shard to connect before giving up")
	}
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a Go CPU profile of the measured run to this file (for 'go tool pprof'); an existing file that is not a profile is replaced only with --force")
	c.ServerStats = DefaultServerStats
	fs.Var(ServerStatsFlag{&c.ServerStats}, "server-stats", "sample the database server's own view beside the host's, on one monitoring connection per instance (PostgreSQL: its sessions' wait events in pg_stat_activity, at this interval, and its commit, buffer, checkpoint and WAL counters per step; other databases: not yet): on (every 100ms), off, or an interval such as 250ms; without the right to see other users' sessions (GRANT pg_monitor) a note says what is missing and the run goes on")
	if phase == PhaseSweep {
		fs.StringVar(&c.DBCPUList, "db-cpus", "", "hold the database server to this many CPUs (by its cgroup's CPU quota over a 20 ms period; put back as found when the sweep ends), or a list to sweep (0.5,1,1.5,2): the server on this host, in a cgroup of its own (found from its process, or --db-cgroup); the results record each allotment and its throttling, and the plan fits the scaling over CPUs")
	} else {
		fs.StringVar(&c.DBCPUList, "db-cpus", "", "hold the database server to this many CPUs for the run (by its cgroup's CPU quota over a 20 ms period; put back as found when the run ends): the server on this host, in a cgroup of its own (found from its process, or --db-cgroup)")
	}
	fs.StringVar(&c.DBCgroup, "db-cgroup", "", "the cgroup the database runs in, whose CPU limit and throttling are sampled beside the host's figures: its directory (/sys/fs/cgroup/system.slice/postgresql.service; v1: /sys/fs/cgroup/cpu/NAME) or its path in the hierarchy (default: found from the server's process when --target is on this host by a loopback address or a socket; this process's own for an embedded database)")
}
