// Package studyrun is the study use case: every step of a study planned
// as sweep and run would plan it, the steps the history catalog holds
// skipped (a study resumed), the others run with the run use case (package
// run), then a VM right-sized and the report written through the hooks
// the CLI gives, and the cleanup that removes what the steps prepared.
package studyrun

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/app/run"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/shellword"
	"github.com/rightsize/rightsize/internal/study"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// StudyOptions are study run's flags.
type StudyOptions struct {
	Scale, ID, Dir, Config, History, Prepare string
	Targets                                  []string
	DryRun, Force                            bool
	// ReplaceOurs lets the study replace, in --dir, the files rightsize
	// wrote there whatever study wrote them (quickstart's folder is its
	// own), not others.
	ReplaceOurs bool
	// Extra are flags given to every step after the study's own (the last
	// of a flag wins): quickstart's --time.
	Extra []string
}

// StudyHooks are what a study needs of the command line besides running
// its steps.
type StudyHooks struct {
	// Record records a step's results in the history catalog.
	Record run.Recorder
	// Plan right-sizes a VM from the plan step's sweep into dir/plan.json,
	// as 'rightsize plan --from SWEEP' does, and returns its path; "" (and
	// no error) when the sweep gives no VM, which it says. With verify (the
	// plan's verify: the plan step's workload and its run flags) it checks
	// the plan with a run, as plan --verify does.
	Plan func(ctx context.Context, p *study.Sizing, sweep, dir string, verify []string) (string, error)
	// Report writes the study's report (format, to the file out, titled
	// title) of paths, replacing one there.
	Report func(ctx context.Context, format, out, title string, paths []string) error
}

// planStep parses a step's flags as 'rightsize sweep|run WORKLOAD' does and
// makes its plan.
func planStep(env *run.Env, c study.Command, args []string) (*runplan.Plan, error) {
	w, err := all.Lookup(c.Workload)
	if err != nil {
		return nil, err
	}
	return runplan.PlanArgs(w, c.Phase, args, run.PlanEnv(env))
}

// stepRun is one step of a study as planned: its command, and the plan
// its flags make.
type stepRun struct {
	cmd   study.Command
	args  []string // the command's flags with the study's own
	plan  *runplan.Plan
	label string // <study id>/<step>: how the history finds it
	out   string // its --out
	spec  []string
}

// planStudy builds every step's plan, as sweep and run would from these
// flags; the problems of every step are returned at once (a usage error).
func planStudy(env *run.Env, s *study.Study, name string, o StudyOptions) ([]stepRun, error) {
	cmds, err := s.Expand(o.Scale)
	if err != nil {
		return nil, exitcode.With(err, exitcode.Usage)
	}
	var steps []stepRun
	var problems []study.Problem
	for _, c := range cmds {
		st := stepRun{cmd: c, label: o.ID + "/" + c.Step, out: filepath.Join(o.Dir, c.Step+".json")}
		st.args = study.WithFlags(append([]string{}, c.Args...), o.Extra...)
		st.args = append(st.args, "--out="+st.out, "--label="+st.label)
		for _, t := range o.Targets {
			st.args = append(st.args, "--target="+t)
		}
		if cfg := orElse(o.Config, c.Config); cfg != "" {
			st.args = append(st.args, "--config="+cfg)
		}
		if o.Prepare != "" {
			st.args = study.WithFlags(st.args, "--prepare="+o.Prepare)
		}
		if o.History != "" {
			st.args = append(st.args, "--history="+o.History)
		}
		st.spec = stepSpec(st.args)
		st.plan, err = planStep(env, c, st.args)
		if err == nil {
			st.spec = withFileDigest(st.spec, st.plan.Workload)
		}
		if err == nil && st.plan.Config == "" {
			st.plan.Config = session.HostConfig(st.plan, orElse(env.Hostname, "localhost")) // run's default, but the label is the study's
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				problems = append(problems, study.Problem{Line: c.Line, Msg: "step " + c.Step + ": " + line})
			}
		}
		steps = append(steps, st)
	}
	if len(problems) > 0 {
		return nil, exitcode.With(&study.Error{File: name, Problems: problems, Kind: study.ErrInvalid}, exitcode.Usage)
	}
	return steps, nil
}

// orElse is a, else b.
func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// RunStudy plans every step of s (read from name), skips those the history
// holds, runs the others as sweep and run do, then plans a VM and writes
// the report through h.
func RunStudy(ctx context.Context, env *run.Env, s *study.Study, name string, o StudyOptions, h StudyHooks) error {
	if o.ID == "" {
		o.ID = session.NewRunID(time.Now())
	} else if err := study.CheckID(o.ID); err != nil {
		return exitcode.With(err, exitcode.Usage)
	}
	if o.Dir == "" {
		o.Dir = filepath.Join("results", o.ID+"-"+s.Name)
	}
	steps, err := planStudy(env, s, name, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "study %s (%s, scale %s): %s, id %s, in %s\n", s.Name, orElse(s.Title, name), o.Scale, report.Plural(len(steps), "step"), o.ID, shellword.Quote(o.Dir))
	if o.DryRun {
		for _, st := range steps {
			run.PrintCommand(env.Stdout, append([]string{st.cmd.Phase, st.cmd.Workload}, st.args...))
		}
		return nil
	}
	rec, err := claimDir(s, o)
	if err != nil {
		return err
	}
	files, err := runSteps(ctx, env, h, s, steps, rec, o.Dir)
	if err != nil {
		return err
	}
	return finishStudy(ctx, env, h, s, o, steps, files)
}

// stepFiles are what a step wrote: a sweep's file, or a run's results.
type stepFiles struct {
	sweep string
	runs  []string
}

// all is the files a report of the step reads.
func (f stepFiles) all() []string {
	if f.sweep != "" {
		return []string{f.sweep}
	}
	return f.runs
}

// runSteps runs each step of s the history does not hold yet, run by s
// with the same options, in order, adding each to the study's record in
// dir as it completes, and returns every step's files (a skipped step's as the
// catalog recorded them). The first step that fails ends the study.
func runSteps(ctx context.Context, env *run.Env, h StudyHooks, s *study.Study, steps []stepRun, rec *study.Record, dir string) (map[string]stepFiles, error) {
	files := map[string]stepFiles{}
	var cat *history.Catalog
	if dsn := steps[0].plan.History; dsn != "" {
		c, err := history.Open(ctx, dsn, env.Getenv)
		if err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
		defer c.Close()
		cat = c
	} else {
		fmt.Fprintln(env.Stdout, "study: no history catalog (--history): every step runs, and the study cannot be resumed")
	}
	var skipped []string
	for _, st := range steps {
		f, done, err := stepDone(ctx, env, cat, s, st)
		if err != nil {
			return nil, fmt.Errorf("study: step %s: %w", st.cmd.Step, err)
		}
		if done {
			skipped = append(skipped, st.cmd.Step)
		} else if f, err = runStep(ctx, env, h, st); err != nil {
			return nil, err
		}
		files[st.cmd.Step] = f
		if err := rec.Done(dir, st.cmd.Step, st.spec, f.all()); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(env.Stdout, "study: skipped %d of %s, already in the history: %s\n", len(skipped), report.Plural(len(steps), "step"), strings.Join(skipped, ", "))
	}
	return files, nil
}

// runStep runs one step as sweep or run would, and returns its files. A
// step whose tables, or database, are missing says how the study would
// load them.
func runStep(ctx context.Context, env *run.Env, h StudyHooks, st stepRun) (stepFiles, error) {
	run.PrintCommand(env.Stdout, append([]string{st.cmd.Phase, st.cmd.Workload}, st.args...))
	out, err := run.Run(ctx, env, st.plan, h.Record)
	if err != nil {
		switch {
		case st.plan.Prepare == "always":
		case errors.Is(err, workload.ErrNotPrepared):
			err = fmt.Errorf("%w (a study's --prepare auto loads only the default embedded target and numbered databases: give study run --prepare always to load a database named with --target)", err)
		case run.MissingDatabase(st.plan, err):
			err = fmt.Errorf("%w (the database does not exist yet: give study run --prepare always to create and load it)", err)
		}
		return stepFiles{}, fmt.Errorf("study: step %s: %w", st.cmd.Step, err)
	}
	return stepFiles{sweep: out.SweepPath, runs: out.Paths}, nil
}

// stepDone reports whether the history holds the step, complete, run by
// study s (its name and file) with the options it has now (the record
// beside its files says which). When it holds the step otherwise (another
// study's under the same id, or with other options) it says why the step
// runs again.
func stepDone(ctx context.Context, env *run.Env, cat *history.Catalog, s *study.Study, st stepRun) (stepFiles, bool, error) {
	if cat == nil {
		return stepFiles{}, false, nil
	}
	// The catalog knows a workload by its name (a workload file's name:,
	// not its path). Of the step's entries, the newest this study ran with
	// these options; else why the newest is not.
	why := ""
	sweep, runs, ok, err := cat.Labelled(ctx, st.plan.Workload.Meta().Name, st.label, st.plan.Sweep, func(path string) bool {
		done, w := s.RanWith(path, st.label, st.cmd.Step, st.spec)
		if why == "" {
			why = w
		}
		return done
	})
	if err != nil {
		return stepFiles{}, false, err
	}
	if ok {
		return stepFiles{sweep: sweep, runs: runs}, true, nil
	}
	if why != "" {
		fmt.Fprintf(env.Stdout, "study: step %s: %s: running it again\n", st.cmd.Step, why)
	}
	return stepFiles{}, false, nil
}

// finishStudy right-sizes a VM when the study asks, writes the report, says
// how to resume, and how to remove what the steps prepared on a server.
func finishStudy(ctx context.Context, env *run.Env, h StudyHooks, s *study.Study, o StudyOptions, steps []stepRun, files map[string]stepFiles) error {
	var paths []string
	for _, name := range s.Report.Stages {
		paths = append(paths, files[name].all()...)
	}
	if s.Sizing != nil {
		var verify []string
		if s.Sizing.Verify {
			verify = verifyArgs(steps, s.StageByName(s.Sizing.Stage), o.Dir)
		}
		p, err := h.Plan(ctx, s.Sizing, files[s.Sizing.Stage].sweep, o.Dir, verify)
		if err != nil {
			return err
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	page := filepath.Join(o.Dir, s.Report.Path)
	run.PrintCommand(env.Stdout, append([]string{"report", "--format", s.Report.Format, "-o", page}, paths...))
	title := orElse(s.Title, s.Name)
	// claimDir has made --dir the study's: its report there may be replaced.
	if err := h.Report(ctx, s.Report.Format, page, title, paths); err != nil {
		return err
	}
	abs, _ := filepath.Abs(page)
	fmt.Fprintf(env.Stdout, "\nstudy %s done (id %s). The report: %s\n", s.Name, o.ID, abs)
	fmt.Fprintf(env.Stdout, "Run it again with --study-id %s to resume: the steps in the history are not run again.\n", o.ID)
	printCleanup(env, steps)
	return nil
}

// sweepOnly are the flags of a sweep step a run at one rate does not
// take, or takes from the plan (--rate, --db-cpus) or its own (--out,
// --label).
var sweepOnly = map[string]bool{"rate": true, "db-cpus": true, "baseline-rate": true, "slo": true, "slo-type": true,
	"cpu-target": true, "precision": true, "max-steps": true, "out": true, "label": true, "history": true}

// verifyArgs is the plan step's workload and the flags a run at the
// planned rate takes of it (plan --verify): without its axis and the
// flags of sweepOnly, with --out in dir (verify.json) and --prepare never
// (the step prepared it).
func verifyArgs(steps []stepRun, stage *study.Stage, dir string) []string {
	for _, st := range steps {
		if stage == nil || st.cmd.Step != stage.Name {
			continue
		}
		out := []string{st.cmd.Workload}
		for _, a := range st.args {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if sweepOnly[name] || name == stage.Axis || name == "prepare" {
				continue
			}
			out = append(out, a)
		}
		return append(out, "--out="+filepath.Join(dir, "verify.json"), "--prepare=never", "--no-history")
	}
	return nil
}

// printCleanup prints the cleanup command(s) that remove what the steps
// prepared on a database server (preparedOnServer): one per workload,
// targets and workload options, with the largest --instances of its steps.
// The embedded default target is left out: it is a file of this machine.
func printCleanup(env *run.Env, steps []stepRun) {
	var cmds [][]string
	instances := map[string]int{}
	for _, st := range steps {
		if !preparedOnServer(st.plan) {
			continue
		}
		args, n := cleanupArgs(st)
		key := strings.Join(args, "\x00")
		if _, ok := instances[key]; !ok {
			cmds = append(cmds, args)
		}
		instances[key] = max(instances[key], n)
	}
	if len(cmds) == 0 {
		return
	}
	fmt.Fprintln(env.Stdout, "\nThe tables (and numbered databases) the steps prepared stay on the server; when you are done with them, this removes them:")
	for _, args := range cmds {
		if n := instances[strings.Join(args, "\x00")]; n > 1 {
			args = append(args, fmt.Sprintf("--instances=%d", n))
		}
		run.PrintCommand(env.Stdout, args)
	}
}

// preparedOnServer reports whether the step's --prepare loads its targets
// (always; auto for databases numbered by --instances, runplan.Plan's
// AutoPrepare) and one of them is on a server, not an embedded database.
func preparedOnServer(p *runplan.Plan) bool {
	if p.Prepare != "always" && (p.Prepare != "auto" || !p.AutoPrepare) {
		return false
	}
	for _, t := range p.Targets {
		if d, ok := dialectall.ForScheme(t.String()); ok && !d.Capabilities().Embedded {
			return true
		}
	}
	return false
}

// cleanupArgs are the step's cleanup command without --instances: its
// --target flags and the workload's own options it was given (--tables,
// --warehouses, ...: what says which tables are the workload's), as the
// study's steps give flags (--name=value); and the step's largest
// --instances (0 when not given).
func cleanupArgs(st stepRun) (args []string, instances int) {
	fs := pflag.NewFlagSet(st.cmd.Workload, pflag.ContinueOnError)
	if w, err := all.Lookup(st.cmd.Workload); err == nil { // planned before: it reads
		w.BindFlags(fs) // a new workload: the step's plan keeps its options
	}
	args = []string{"cleanup", st.cmd.Workload}
	for _, a := range st.args {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case name == "target" || fs.Lookup(name) != nil:
			args = append(args, a)
		case name == "instances":
			ns, _ := runplan.IntList(v)
			instances = slices.Max(append(ns, 0))
		}
	}
	return args, instances
}

// claimDir makes the study's --dir its own before any step runs
// (study.ClaimDir): a folder another study id wrote is refused (a usage error)
// unless --force.
func claimDir(s *study.Study, o StudyOptions) (*study.Record, error) {
	rec, err := s.ClaimDir(study.Claim{Dir: o.Dir, ID: o.ID, Force: o.Force, ReplaceOurs: o.ReplaceOurs})
	switch {
	case errors.Is(err, study.ErrDirTaken):
		return nil, exitcode.With(fmt.Errorf("study: %w", err), exitcode.Usage)
	case err != nil:
		return nil, fmt.Errorf("study: %w", err)
	}
	return rec, nil
}

// stepSpec is what a step measures, to compare with what the history holds
// for it: its flags but those that only say where it is written (--out,
// --label, --history) and how the tables are loaded (--prepare), the
// targets' passwords removed; sorted.
func stepSpec(args []string) []string {
	var out []string
	for _, a := range run.RedactArgs(args) {
		name, _, _ := strings.Cut(a, "=")
		if !slices.Contains([]string{"--out", "--label", "--history", "--prepare"}, name) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// withFileDigest adds to a step's spec the digest of the workload file it
// runs (Hooks.Definition), so that a study resumed after the file was
// edited runs the step again.
func withFileDigest(spec []string, w workload.Workload) []string {
	if def := w.Hooks().Definition; def != nil {
		spec = append(spec, "workload-file="+def().Digest)
		slices.Sort(spec)
	}
	return spec
}
