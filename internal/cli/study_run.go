package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/config"
	dialectall "github.com/rightsize/rightsize/internal/dialect/all"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/plan"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/study"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/all"
)

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

// runSteps runs each step the history does not hold yet with the same
// options, in order, adding each to the study's record in dir as it
// completes, and returns every step's files (a skipped step's as the
// catalog recorded them). The first step that fails ends the study.
func runSteps(ctx context.Context, env *Env, steps []stepRun, rec *study.Record, dir string) (map[string]stepFiles, error) {
	files := map[string]stepFiles{}
	var cat *history.Catalog
	if dsn := steps[0].plan.History; dsn != "" {
		c, err := history.Open(ctx, dsn, env.Getenv)
		if err != nil {
			return nil, runError{fmt.Errorf("study: %w", err)}
		}
		defer c.Close()
		cat = c
	} else {
		fmt.Fprintln(env.Stdout, "study: no history catalog (--history): every step runs, and the study cannot be resumed")
	}
	var skipped []string
	for _, st := range steps {
		f, done, err := stepDone(ctx, env, cat, st)
		if err != nil {
			return nil, runError{fmt.Errorf("study: step %s: %w", st.cmd.Step, err)}
		}
		if done {
			skipped = append(skipped, st.cmd.Step)
		} else if f, err = runStep(ctx, env, st); err != nil {
			return nil, err
		}
		files[st.cmd.Step] = f
		if err := rec.Done(dir, st.cmd.Step, st.spec, f.all()); err != nil {
			return nil, runError{fmt.Errorf("study: %w", err)}
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(env.Stdout, "study: skipped %d of %s, already in the history: %s\n", len(skipped), plural(len(steps), "step"), strings.Join(skipped, ", "))
	}
	return files, nil
}

// runStep runs one step as sweep or run would, and returns its files. A
// step whose tables, or database, are missing says how the study would
// load them.
func runStep(ctx context.Context, env *Env, st stepRun) (stepFiles, error) {
	printCommand(env, append([]string{st.cmd.Phase, st.cmd.Workload}, st.args...))
	out, err := execute(ctx, env, st.plan)
	if err != nil {
		switch {
		case st.plan.Prepare == "always":
		case errors.Is(err, workload.ErrNotPrepared):
			err = fmt.Errorf("%w (a study's --prepare auto loads only the default embedded target and numbered databases: give study run --prepare always to load a database named with --target)", err)
		case dialectall.Missing(st.plan.Targets, err):
			err = fmt.Errorf("%w (the database does not exist yet: give study run --prepare always to create and load it)", err)
		}
		return stepFiles{}, wrapRun(fmt.Errorf("study: step %s: %w", st.cmd.Step, err))
	}
	return stepFiles{sweep: out.SweepPath, runs: out.Paths}, nil
}

// stepDone reports whether the history holds the step, complete, run with
// the options it has now (the record beside its files says which). When it
// holds the step otherwise it says why the step runs again.
func stepDone(ctx context.Context, env *Env, cat *history.Catalog, st stepRun) (stepFiles, bool, error) {
	if cat == nil {
		return stepFiles{}, false, nil
	}
	sweep, runs, ok, err := cat.Labelled(ctx, st.cmd.Workload, st.label, st.plan.Sweep)
	if err != nil || !ok {
		return stepFiles{}, false, err
	}
	f := stepFiles{sweep: sweep, runs: runs}
	done, why := study.RanWith(f.all()[0], st.label, st.cmd.Step, st.spec)
	if done {
		return f, true, nil
	}
	fmt.Fprintf(env.Stdout, "study: step %s: %s: running it again\n", st.cmd.Step, why)
	return stepFiles{}, false, nil
}

// finishStudy right-sizes a VM when the study asks, writes the report, says
// how to resume, and how to remove what the steps prepared on a server.
func finishStudy(ctx context.Context, env *Env, s *study.Study, o studyOptions, steps []stepRun, files map[string]stepFiles) error {
	var paths []string
	for _, name := range s.Report.Steps {
		paths = append(paths, files[name].all()...)
	}
	if s.Plan != nil {
		p, err := studyPlan(env, s.Plan, files[s.Plan.Step].sweep, o.dir)
		switch {
		case errors.Is(err, plan.ErrNoDemand) || errors.Is(err, plan.ErrNoVMFits):
			// The steps measured something worth reporting: the report
			// says what they found, and this why no VM is planned.
			fmt.Fprintf(env.Stdout, "plan: no VM planned: %v\n", err)
			// An earlier run's plan in --dir would read as this one's.
			if err := os.Remove(filepath.Join(o.dir, "plan.json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return runError{fmt.Errorf("study: plan: %w", err)}
			}
		case err != nil:
			return err
		default:
			paths = append(paths, p)
		}
	}
	page := filepath.Join(o.dir, s.Report.Path)
	printCommand(env, append([]string{"report", "--format", s.Report.Format, "-o", page}, paths...))
	title := orElse(s.Title, s.Name)
	// claimDir has made --dir the study's: its report there may be replaced.
	if err := writeReport(ctx, env, reportOptions{format: s.Report.Format, out: page, title: title, force: true}, paths); err != nil {
		return err
	}
	abs, _ := filepath.Abs(page)
	fmt.Fprintf(env.Stdout, "\nstudy %s done (id %s). The report: %s\n", s.Name, o.id, abs)
	fmt.Fprintf(env.Stdout, "Run it again with --study-id %s to resume: the steps in the history are not run again.\n", o.id)
	printCleanup(env, steps)
	return nil
}

// printCleanup prints the cleanup command(s) that remove what the steps
// prepared on a database server (preparedOnServer): one per workload,
// targets and workload options, with the largest --instances of its steps.
// The embedded default target is left out: it is a file of this machine.
func printCleanup(env *Env, steps []stepRun) {
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
		printCommand(env, args)
	}
}

// preparedOnServer reports whether the step's --prepare loads its targets
// (always; auto for databases numbered by --instances, config.Plan's
// AutoPrepare) and one of them is on a server, not an embedded database.
func preparedOnServer(p *config.Plan) bool {
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
	all.ByName(st.cmd.Workload).BindFlags(fs) // a new workload: the step's plan keeps its options
	args = []string{"cleanup", st.cmd.Workload}
	for _, a := range st.args {
		name, v, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case name == "target" || fs.Lookup(name) != nil:
			args = append(args, a)
		case name == "instances":
			ns, _ := config.IntList(v)
			instances = slices.Max(append(ns, 0))
		}
	}
	return args, instances
}

// studyPlan right-sizes a VM from the plan step's sweep, as 'rightsize plan
// --from SWEEP --target-rate R --cpu-target C' does, into dir/plan.json.
func studyPlan(env *Env, p *study.Plan, sweep, dir string) (string, error) {
	if sweep == "" {
		return "", runError{fmt.Errorf("study: plan: step %s wrote no sweep file", p.Step)}
	}
	cpu := fmt.Sprintf("%g", p.CPUTarget)
	printCommand(env, []string{"plan", "--from", sweep, "--target-rate", p.TargetRate, "--cpu-target", cpu, "--format", "json"})
	h, err := loadHost(env, "auto")
	if err != nil {
		return "", err
	}
	sizing, err := sizeFromSweep(h, sweep, p.TargetRate, p.CPUTarget, 0)
	if err != nil {
		return "", err
	}
	pr := &plan.Report{Host: h, HTGainPct: 20, HTGainSource: "default", Sizing: &sizing}
	var b bytes.Buffer
	if err := report.Plan(&b, pr, report.JSON); err != nil {
		return "", runError{fmt.Errorf("study: plan: %w", err)}
	}
	path := filepath.Join(dir, "plan.json")
	if err := writeOutput(path, b.Bytes()); err != nil { // atomic: a full disk leaves the old plan whole
		return "", runError{fmt.Errorf("study: plan: %w", err)}
	}
	fmt.Fprintf(env.Stdout, "plan: %s for %s at %s %% CPU on this machine's topology\n", plural(sizing.VCPU, "vCPU"), p.TargetRate, cpu)
	for _, r := range sizing.Reasons {
		fmt.Fprintf(env.Stdout, "  %s\n", r)
	}
	return path, nil
}

func studyShowCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "show PROTOCOL",
		Short: "Print a built-in protocol's study file (to copy and change)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("study show: name one protocol (%s)", strings.Join(study.Builtins(), ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			b, ok := study.Builtin(args[0])
			if !ok {
				return usagef("study show: no protocol %q (built in: %s)", args[0], strings.Join(study.Builtins(), ", "))
			}
			_, err := env.Stdout.Write(b)
			return err
		},
	}
}

func studyListCommand(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the built-in protocols and the studies they follow",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, name := range study.Builtins() {
				s, _, err := study.ParseBuiltin(name)
				if err != nil {
					return runError{err}
				}
				fmt.Fprintf(env.Stdout, "%-18s %s\n%-18s follows: %s\n", name, s.Title, "", s.Follows)
			}
			return nil
		},
	}
}

// fileExists reports whether path names something (the plan a study wrote).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
