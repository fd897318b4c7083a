package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/host"
	"github.com/rightsize/rightsize/internal/metrics"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/workload"
)

// parseTargets validates the workload's options and every --target without
// opening anything, returning every problem at once. With --instances N it
// gives N targets: the first N of several --target, or N numbered from one
// (numbered is then true).
func parseTargets(w workload.Workload, c *commonFlags, env *Env) (ts []workload.Target, numbered bool, err error) {
	var errs []error
	if err := w.Validate(); err != nil {
		errs = append(errs, err)
	}
	raws := make([]string, len(c.targets))
	for i, raw := range c.targets {
		if raws[i], err = targetFromEnv(raw, env.Getenv); err != nil {
			errs = append(errs, fmt.Errorf("--target #%d: %w", i+1, err))
		}
	}
	if len(raws) == 0 {
		raws = []string{""}
	}
	counts, err := c.instanceCounts()
	if err != nil {
		errs = append(errs, err)
	}
	if n := slices.Max(append(counts, 0)); n > 0 {
		switch nb, ok := w.(workload.Numberer); {
		case len(c.targets) > 1 && n > len(c.targets):
			errs = append(errs, fmt.Errorf("instances %d: only %d --target given (give one, to number databases from it, or at least %d)", n, len(c.targets), n))
		case len(c.targets) > 1:
			raws = raws[:n]
		case !ok && n > 1:
			errs = append(errs, fmt.Errorf("instances %d: %s cannot number targets from one; give one --target per instance", n, w.Name()))
		case ok:
			nr, err := nb.NumberTargets(raws[0], n)
			if err != nil {
				errs = append(errs, err)
			} else {
				raws, numbered = nr, n > 1
			}
		}
	}
	seen := map[string]bool{}
	for i, raw := range raws {
		t, err := w.ParseTarget(raw, env.Getenv, i)
		if err != nil {
			errs = append(errs, fmt.Errorf("--target #%d: %w", i+1, err))
			continue
		}
		if seen[t.String()] {
			errs = append(errs, fmt.Errorf("--target #%d: %s is given twice; each instance needs its own database", i+1, t))
		}
		seen[t.String()] = true
		ts = append(ts, t)
	}
	if len(errs) > 0 {
		return nil, false, usageError{errors.Join(errs...)}
	}
	return ts, numbered, nil
}

// envTarget is the prefix of --target env:VAR: the target is the value of the
// environment variable VAR, so that a password in the URL stays off the
// command line, which ps shows to every user of the host.
const envTarget = "env:"

// targetFromEnv returns raw, or for env:VAR the value of VAR. Its errors
// never quote the value.
func targetFromEnv(raw string, getenv func(string) string) (string, error) {
	name, ok := strings.CutPrefix(raw, envTarget)
	if !ok {
		return raw, nil
	}
	valid := name != ""
	for i, r := range name {
		valid = valid && (r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9')
	}
	if !valid {
		return "", fmt.Errorf("%q: want env:VARIABLE, the name of an environment variable that holds the target URL", raw)
	}
	v := strings.TrimSpace(getenv(name))
	switch {
	case v == "":
		return "", fmt.Errorf("env:%s: the environment variable %s is not set or empty", name, name)
	case strings.HasPrefix(v, envTarget):
		return "", fmt.Errorf("env:%s: the variable holds another env: reference, not a target URL", name)
	}
	return v, nil
}

// openAll opens every target; on error it closes what it opened.
func openAll(ctx context.Context, w workload.Workload, ts []workload.Target) ([]workload.Instance, error) {
	var out []workload.Instance
	for _, t := range ts {
		in, err := w.Open(ctx, t)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}

func closeAll(ins []workload.Instance) {
	for _, in := range ins {
		_ = in.Close()
	}
}

func newRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

func runCmd(ctx context.Context, env *Env, w workload.Workload, c *commonFlags) error {
	return runSteps(ctx, env, w, c, nil)
}

// runSteps runs a workload once per step: the workload's own steps (fileio's
// read mixes) or a sweep's (plan non-nil), writing one result each.
func runSteps(ctx context.Context, env *Env, w workload.Workload, c *commonFlags, plan *sweepPlan) error {
	if plan != nil {
		c.threads, c.rate = plan.steps[0].threads, plan.steps[0].rate
	}
	cfg, cfgErr := c.runnerConfig()
	if _, ok := w.(workload.ThreadCounter); ok && c.fs != nil {
		for _, f := range []string{"threads", "rate", "think-time"} {
			if c.fs.Changed(f) {
				cfgErr = errors.Join(cfgErr, usagef("--%s does not apply to %s: its options set the threads and their queue depth (closed loop)", f, w.Name()))
			}
		}
	}
	if dsn := historyDSN(env, c.history); !c.noHistory && dsn != "" {
		// Refused now, not after a run of hours that then is not recorded.
		if err := history.Validate(dsn); err != nil {
			cfgErr = errors.Join(cfgErr, err)
		}
	}
	dist, dErr := c.parseDistributed()
	if dist != nil && plan != nil {
		dErr = errors.Join(dErr, usagef("--shard, --run-id and --start-at are run options, not sweep options"))
	}
	ts, numbered, tErr := parseTargets(w, c, env)
	if err := errors.Join(cfgErr, dErr, tErr); err != nil {
		return usageError{err}
	}
	if dist != nil {
		vus := c.threads
		if tc, ok := w.(workload.ThreadCounter); ok {
			vus = tc.VUs()
		}
		var sErr error
		if ts, sErr = dist.split(ts, vus); sErr != nil {
			return sErr
		}
	}
	var exp *metrics.Exporter
	curStep := "" // the step the live metrics report
	if c.prometheus != "" {
		pctx, stopProm := context.WithCancel(ctx) // the server stops when the command ends
		e, addr, err := startPrometheus(pctx, c.prometheus, w.Name(), w.Event())
		if err != nil {
			stopProm()
			return err
		}
		defer func() { stopProm(); <-e.Stopped() }()
		exp = e
		fmt.Fprintf(env.Stderr, "metrics: http://%s/metrics\n", addr)
	}
	ownPrefix := "" // the name this run's results start with, when not unique
	if c.out != "" {
		ownPrefix = strings.TrimSuffix(filepath.Base(c.out), ".json")
	}
	reportInterrupted(env, checkpointDir(c), ownPrefix)
	ins, err := openAll(ctx, w, ts)
	if err != nil {
		return err
	}
	defer closeAll(ins)

	for i, in := range ins {
		// auto: the default embedded target, and databases numbered by
		// --instances (prepare keeps what is already loaded).
		auto := len(c.targets) == 0 || numbered
		if pc, ok := in.(workload.PrepareChecker); ok {
			auto = pc.NeedsPrepare()
		}
		if dist != nil && dist.sharded {
			// Shards never prepare (refused for always): the tables are
			// loaded once, before the shards start.
			break
		}
		if c.prepare == "always" || (c.prepare == "auto" && auto) {
			fmt.Fprintf(env.Stderr, "preparing %s (instance %d)...\n", ts[i], i+1)
			if err := in.Prepare(ctx, workload.PrepareOptions{}, newProgress(env, ts[i].String())); err != nil {
				return fmt.Errorf("prepare: %w", err)
			}
		}
	}

	if tc, ok := w.(workload.ThreadCounter); ok {
		cfg.Threads = tc.VUs()
	}
	started := time.Now()
	id := newRunID(started)
	if dist != nil {
		id = dist.resultID()
		dsn := "" // the start barrier's register, when the results are recorded
		if !c.noHistory {
			dsn = historyDSN(env, c.history)
		}
		cfg.Ready = dist.ready(env, dsn, c.barrier)
		if cfg.Seed == 0 && dist.sharded {
			// Every shard must draw the same run-wide values (TPC-C's C
			// constants) and its virtual users the streams they would have
			// in one process.
			cfg.Seed = dist.seed()
		}
	}
	unit := "tps"
	if w.Event() != "transaction" {
		unit = w.Event() + "/s"
	}

	if cfg.Seed == 0 {
		// Recorded in the result (load.seed), so the run can be repeated with --seed.
		cfg.Seed = uint64(started.UnixNano())
	}
	for i, in := range ins {
		if rs, ok := in.(workload.RunSeeder); ok {
			rs.SeedRun(cfg.Seed + uint64(i))
		}
	}
	cfg.Ops = w.Ops()
	if cw, ok := w.(workload.Counting); ok {
		cfg.Counters = cw.Counters()
	}
	cfg.Event = w.Event()
	cfg.Unit = w.Event() + "s"
	cfg.CPUTime = env.CPUTime
	if env.ProcRoot != "" {
		if s, err := host.NewSampler(env.ProcRoot); err == nil {
			cfg.Sample = func(secs float64) *result.Host {
				h, err := s.Sample(secs)
				if err != nil {
					return nil
				}
				return h
			}
		} else {
			fmt.Fprintf(env.Stderr, "rightsize: host metrics not available: %v\n", err)
		}
	}
	live := len(ins) // instances in the step running now
	cfg.OnTick = func(agg result.Interval, per []result.Interval) {
		_ = report.ProgressLine(env.Stdout, agg, cfg.Threads*live, unit)
		if exp != nil {
			exp.Observe(curStep, agg, per)
		}
	}
	// Virtual users doing blocking I/O hold their Go processor while blocked,
	// so a few virtual users do best with one processor each, plus two for
	// the ticker and the runtime. Past 4 per CPU the processors' threads
	// starve the ticker instead: measured on 2 CPUs with 64 PostgreSQL
	// virtual users, 66 processors gave 255 tps with report ticks up to 7.7 s
	// late, 8 gave 334 tps (rightsize reports late ticks as ticker_lag).
	blocking := false
	for _, in := range ins {
		blocking = blocking || in.Info().BlockingIO
	}
	most := cfg.Threads
	if plan != nil {
		for _, a := range plan.steps {
			most = max(most, a.threads)
		}
	}
	need := min(most*len(ins)+2, max(8, 4*env.NumCPU))
	if blocking && need > env.MaxProcs && env.SetMaxProcs != nil {
		env.SetMaxProcs(need)
		env.MaxProcs = need
	}
	specs := make([]runner.Instance, len(ins))
	for i, in := range ins {
		newVU, target := in.NewVU, ts[i].String()
		specs[i] = runner.Instance{
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

	if c.cpuprof != "" {
		f, err := os.Create(c.cpuprof)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	steps := []workload.Step{{}}
	if st, ok := w.(workload.Stepper); ok {
		steps = st.Steps()
	}
	var stepPlan []axisStep // per step: threads, rate, instances
	switch {
	case plan == nil:
		for range steps {
			stepPlan = append(stepPlan, axisStep{threads: c.threads, rate: c.rate})
		}
	case plan.own:
		stepPlan = plan.steps
	case len(steps) > 1:
		return usagef("sweep: %s already runs %d steps of its own (%s, ...); sweep one axis at a time", w.Name(), len(steps), steps[0].Label)
	default:
		steps = steps[:0]
		for _, a := range plan.steps {
			steps = append(steps, workload.Step{Label: a.label, X: a.x, Options: map[string]any{"sweep_step": a.label}})
		}
		stepPlan = plan.steps
	}

	var baseline *result.Run
	if c.baselineAuto {
		first := stepPlan[0].instances
		if first == 0 {
			first = len(ins)
		}
		live = first
		bcfg := cfg
		bcfg.Rate, bcfg.Threads = 0, 1
		if tc, ok := w.(workload.ThreadCounter); ok {
			bcfg.Threads = tc.VUs()
		}
		fmt.Fprintf(env.Stdout, "rightsize %s: %s on %d instance(s); measuring the baseline rate: closed loop, %d thread(s) per instance; warm-up %v, measured %v\n",
			Version(), w.Name(), first, bcfg.Threads, cfg.Warmup, cfg.Duration)
		c.rate = rateValue{}
		curStep = "baseline"
		res, err := runStep(ctx, env, w, c, bcfg, specs[:first], ins[:first], id, workload.Step{Label: "baseline"}, 2, nil)
		if err != nil {
			return err
		}
		c.baseline = res.Summary.Throughput / float64(first)
		if c.baseline <= 0 {
			return runError{fmt.Errorf("baseline: no %ss completed at one thread per instance; cannot multiply a zero rate", w.Event())}
		}
		fmt.Fprintf(env.Stdout, "baseline rate: %.4g/s per instance (1x)\n", c.baseline)
		baseline = res
	}

	var results []*result.Run
	var paths []string // each result's file ("-": none)
	record := func(sw *analysis.Sweep, swPath string) error {
		if c.noHistory {
			return nil
		}
		runs, ps := results, paths
		if baseline != nil {
			runs = append([]*result.Run{baseline}, runs...)
			ps = append([]string{resultPath(c, id, w, workload.Step{Label: "baseline"}, 2)}, ps...)
		}
		err := recordInHistory(ctx, env, historyDSN(env, c.history), runs, ps, sw, swPath)
		if err != nil {
			fmt.Fprintf(env.Stderr, "rightsize: history: not recorded: %v\n", err)
		}
		return err
	}
	for k, step := range steps {
		for _, in := range ins {
			if ss, ok := in.(workload.StepSetter); ok {
				ss.SetStep(k)
			}
		}
		a := stepPlan[k]
		curStep = step.Label
		c.threads, c.rate = a.threads, a.rate
		if tc, ok := w.(workload.ThreadCounter); ok {
			cfg.Threads = tc.VUs()
		} else {
			cfg.Threads = a.threads
		}
		cfg.Rate = a.rateFor(c.baseline)
		if dist != nil {
			dist.apply(&cfg)
		}
		live = len(ins)
		if a.instances > 0 {
			live = a.instances
		}
		if len(steps) > 1 {
			fmt.Fprintf(env.Stdout, "\n== step %d of %d: %s\n", k+1, len(steps), step.Label)
		}
		mode := fmt.Sprintf("closed loop, %d threads per instance", cfg.Threads)
		if cfg.Rate > 0 {
			mode = fmt.Sprintf("open loop, %g/s per instance (%s), up to %d in flight", cfg.Rate, cfg.Arrival, cfg.Threads)
			if c.rate.multiple > 0 {
				mode = fmt.Sprintf("open loop, %s of %.4g/s = %.4g/s per instance (%s), up to %d in flight",
					c.rate.String(), c.baseline, cfg.Rate, cfg.Arrival, cfg.Threads)
			}
		}
		fmt.Fprintf(env.Stdout, "rightsize %s: %s on %d instance(s); %s; warm-up %v, measured %v, report every %v\n",
			Version(), w.Name(), live, mode, cfg.Warmup, cfg.Duration, cfg.Interval)
		if dist != nil && dist.sharded {
			p := dist.part
			fmt.Fprintf(env.Stdout, "shard %s of run %s: instances %d..%d of %d, virtual users %d..%d of %d on each\n",
				dist.spec, dist.runID, p.FirstInstance+1, p.FirstInstance+p.Instances, dist.total[0], p.FirstVU+1, p.FirstVU+p.VUs, dist.total[1])
		}
		res, err := runStep(ctx, env, w, c, cfg, specs[:live], ins[:live], id, step, len(steps), dist)
		if res != nil {
			results = append(results, res)
			paths = append(paths, resultPath(c, id, w, step, len(steps)))
		}
		if err != nil {
			if res != nil {
				_ = record(nil, "") // a partial result is recorded too
			}
			return err
		}
	}
	if len(results) > 1 {
		if err := report.Steps(env.Stdout, results); err != nil {
			return err
		}
	}
	if plan != nil {
		sw, swPath, err := sweepAnalysis(env, w, c, id, plan, results, baseline)
		if sw != nil {
			_ = record(sw, swPath) // a sweep's results are in its files too
		}
		return err
	}
	if err := record(nil, ""); err != nil && dist != nil && dist.sharded {
		// A shard's result is for the merge, which reads it from the
		// catalog (in a pod, --out - leaves no file): unrecorded, it is lost.
		return runError{fmt.Errorf("shard %s: the result is not in the history catalog, so 'merge --run' will miss it: %w", dist.spec, err)}
	}
	return nil
}

// runStep runs one step of a run command and writes its result, keeping a
// checkpoint of it while it runs (see checkpoint.go).
func runStep(ctx context.Context, env *Env, w workload.Workload, c *commonFlags, cfg runner.Config,
	specs []runner.Instance, ins []workload.Instance, id string, step workload.Step, nsteps int, dist *distributed) (*result.Run, error) {
	out := resultPath(c, id, w, step, nsteps)
	describe := func(res *result.Run) {
		res.SchemaVersion = result.SchemaVersion
		res.Tool = result.Tool{Name: "rightsize", Version: Version(), GoVersion: runtime.Version()}
		res.ID = id
		res.Label = c.label
		if step.Label != "" {
			res.Label = strings.TrimSpace(c.label + " " + step.Label)
		}
		res.Workload = w.Name()
		res.Options = w.Options()
		for k, v := range step.Options {
			res.Options[k] = v
		}
		if c.rate.multiple > 0 {
			res.Load.RateMultiple, res.Load.BaselineRate = c.rate.multiple, c.baseline
		}
		for i, in := range ins {
			info := in.Info()
			ri := &res.Instances[i]
			ri.Target, ri.Dialect, ri.ServerVersion = info.Target, info.Dialect, info.ServerVersion
			ri.Encrypted, ri.TLS, ri.Notes = info.Encrypted, info.TLS, info.Notes
		}
		if res.Client != nil {
			res.Client.NumCPU, res.Client.GoMaxProcs, res.Client.Hostname = env.NumCPU, env.MaxProcs, env.Hostname
		}
		if dist != nil {
			dist.describe(res)
		}
	}
	cp := newCheckpointer(env, out, cfg.Interval, describe)
	if cp != nil {
		cfg.Snapshot = cp.snapshot
	}
	res, err := runner.Run(ctx, cfg, specs)
	if err != nil {
		cp.stop(false)
		return nil, err
	}
	describe(res)
	if sw, ok := w.(workload.Summarizer); ok {
		if err := sw.Summarize(res); err != nil {
			// The measurements are intact: keep them and say what is missing.
			fmt.Fprintf(env.Stderr, "rightsize: %s figures not computed: %v\n", w.Name(), err)
		}
	}
	// The result is written even when the summary cannot be printed (stdout
	// closed, or a file on a full disk): the measurements are what counts.
	sumErr := report.Summary(env.Stdout, res)
	if out != "-" {
		if err := writeResult(out, res); err != nil {
			if kept := cp.stop(false); kept != "" {
				err = fmt.Errorf("%w; the checkpoint %s of the run so far is kept", err, kept)
			}
			return res, errors.Join(err, sumErr)
		}
		cp.stop(true)
		if sumErr == nil {
			fmt.Fprintf(env.Stdout, "result: %s\n", out)
		} else {
			fmt.Fprintf(env.Stderr, "rightsize: result: %s\n", out)
		}
	}
	if sumErr != nil {
		return res, sumErr
	}
	if res.Partial {
		fmt.Fprintf(env.Stderr, "rightsize: run %s; partial result written\n", res.PartialReason)
		return res, errInterrupted
	}
	return res, nil
}

// resultPath is where a step's result goes: --out (with the step appended
// when there are several), or results/<id>-<workload>[-<step>].json.
func resultPath(c *commonFlags, id string, w workload.Workload, step workload.Step, nsteps int) string {
	out := c.out
	if out == "" {
		name := id + "-" + w.Name()
		if nsteps > 1 {
			name += "-" + result.FileSafe(step.Label)
		}
		return filepath.Join("results", name+".json")
	}
	if nsteps > 1 && out != "-" {
		out = strings.TrimSuffix(out, ".json") + "-" + result.FileSafe(step.Label) + ".json"
	}
	return out
}

// readResult reads a result file.
func readResult(path string) (*result.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := result.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// writeResult writes the JSON atomically: a temporary file beside it,
// synced and renamed into place, so an interrupted write never leaves half a
// result and a full or failing disk is reported here, not after the rename.
// Errors name the result's path (the temporary file's name means nothing to
// the user), and the temporary file is removed on failure.
func writeResult(path string, r *result.Run) error {
	if _, err := writeAtomic(path, r, true); err != nil {
		return fmt.Errorf("result %s: %w", path, err)
	}
	return nil
}

// writeAtomic writes r as JSON to a temporary file in path's directory,
// and renames it to path, returning the bytes written; on failure the
// temporary file is removed and path is as it was. A final result is
// indented and fsynced; a checkpoint (final false) is compact, which halves
// the memory its encoding takes, and not fsynced.
func writeAtomic(path string, r *result.Run, final bool) (n int64, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, "."+strings.TrimSuffix(filepath.Base(path), ".json")+"-*.tmp")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Path == tmp.Name() {
				err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
			}
		}
	}()
	cw := &countingWriter{w: tmp}
	encode := result.EncodeCompact
	if final {
		encode = result.Encode
	}
	if err := encode(cw, r); err != nil {
		return cw.n, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return cw.n, err
	}
	if final {
		if err := tmp.Sync(); err != nil {
			return cw.n, err
		}
	}
	if err := tmp.Close(); err != nil {
		return cw.n, err
	}
	return cw.n, os.Rename(tmp.Name(), path)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
