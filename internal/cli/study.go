package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/config"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/shellword"
	"github.com/rightsize/rightsize/internal/study"
	"github.com/rightsize/rightsize/internal/workload/all"
)

const studyLong = `A study is a published test protocol in one command: the sweeps and runs
that reproduce it (workload, options, the axis and its values, the
configuration under test), a VM right-sized from one of them, and the report
written at the end. It is a YAML file (docs/studies.md), or one of the
built-in protocols:

  vm-rate           a closed-loop baseline, then 1x..5x of its rate: response
                    time with the host's CPU, and a VM right-sized at 3x
                    (CPU capacity planning for large database VMs, vSphere)
  scaled-instances  oltp_read_write on 4, 8, 16, 24 and 32 instances at once
                    (scaled sysbench OLTP, HCI vs two-tier)
  tpcc-4x           TPC-C on 4 instances at once, 15 terminals each, keying
                    and think times a quarter of the spec's
  storage-patterns  fileio t1 o32 b16k and b4k at 100/90/70 % read, and b2m
                    sequential read, per volume, per VM and per GB
                    (Storage Spaces Direct for MS SQL, fio)

  rightsize study run vm-rate                      # on embedded SQLite
  rightsize study run scaled-instances --target postgres://u@db:5432/sb
  rightsize study run my-study.yaml --scale full --config "24 vCPU"
  rightsize study show tpcc-4x > my-tpcc.yaml      # a protocol, to change

--scale small fits a 2-core machine in a few minutes; --scale full uses the
published sizes (hours). Each step is an ordinary sweep or run (printed
before it runs, passwords removed), labelled <study id>/<step> and
recorded in the history catalog; run the study again with --study-id to
resume it: the steps the catalog holds, complete and with the same options,
are not run again (a step whose options changed runs again, and the study
says why). --dir is the study's: a folder holding a report or results of
the study's names that this study id did not write is refused without
--force.`

// studyCommand is 'rightsize study': run, show and list protocols.
func studyCommand(ctx context.Context, env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Run a published test protocol (vm-rate, scaled-instances, tpcc-4x, storage-patterns) or a study file in one command",
		Long:  studyLong,
		Args: func(c *cobra.Command, args []string) error {
			return usagef("study: run, show or list (see 'rightsize study --help')")
		},
		RunE: func(c *cobra.Command, args []string) error { return nil },
	}
	cmd.AddCommand(studyRunCommand(ctx, env), studyShowCommand(env), studyListCommand(env))
	return cmd
}

// studyOptions are study run's flags.
type studyOptions struct {
	scale, id, dir, config, history, prepare string
	targets                                  []string
	dryRun, force                            bool
	// replaceOurs lets the study replace, in --dir, the files rightsize
	// wrote there whatever study wrote them (quickstart's folder is its
	// own), not others.
	replaceOurs bool
	// extra are flags given to every step after the study's own (the last
	// of a flag wins): quickstart's --time.
	extra []string
}

func studyRunCommand(ctx context.Context, env *Env) *cobra.Command {
	var o studyOptions
	cmd := &cobra.Command{
		Use:   "run PROTOCOL|FILE.yaml",
		Short: "Run a study's steps (skipping those the history holds for --study-id), right-size, and write its report",
		Long:  studyLong,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("study run: name one protocol (%s) or study file", strings.Join(study.Builtins(), ", "))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return wrapRun(runStudy(ctx, env, args[0], o))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.scale, "scale", study.Small, "small (a 2-core machine, a few minutes) or full (the published sizes)")
	fs.StringArrayVar(&o.targets, "target", nil, "every step's --target (repeat for several instances; default: each workload's, an embedded SQLite file or fileio's --file)")
	fs.StringVar(&o.config, "config", "", "the configuration under test, for every step (default: each step's config, else run's default)")
	fs.StringVar(&o.id, "study-id", "", "resume this study: steps recorded in the history under this id are not run again (default: a new id)")
	fs.StringVar(&o.dir, "dir", "", "directory of the steps' results, the plan and the report (default results/<study id>-<study>)")
	fs.StringVar(&o.history, "history", "", "the history catalog the steps are recorded in and resumed from (default: as run's)")
	fs.StringVar(&o.prepare, "prepare", "", "every step's --prepare: auto, always or never (default: the study's, else run's auto)")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print each step's command and run nothing")
	fs.BoolVar(&o.force, "force", false, "write in a --dir that holds a report, results or a plan of the study's names that this study id did not write (replacing them)")
	return cmd
}

// loadStudy reads a built-in protocol, or else a study file.
func loadStudy(arg string) (*study.Study, error) {
	if s, ok, err := study.ParseBuiltin(arg); ok {
		return s, err
	}
	f, err := os.Open(arg)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(arg, `/\.`) {
		return nil, usagef("study: no protocol %q (built in: %s) and no file of that name", arg, strings.Join(study.Builtins(), ", "))
	}
	if err != nil {
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	defer f.Close()
	s, err := study.Parse(f, arg)
	if errors.Is(err, study.ErrInvalid) {
		return nil, usageError{err}
	}
	return s, err
}

// stepRun is one step of a study as planned: its command, and the plan
// its flags make.
type stepRun struct {
	cmd   study.Command
	args  []string // the command's flags with the study's own
	plan  *config.Plan
	label string // <study id>/<step>: how the history finds it
	out   string // its --out
	spec  []string
}

// planStudy builds every step's plan, as sweep and run would from these
// flags; the problems of every step are returned at once (exit 2).
func planStudy(env *Env, s *study.Study, name string, o studyOptions) ([]stepRun, error) {
	cmds, err := s.Expand(o.scale)
	if err != nil {
		return nil, usageError{err}
	}
	var steps []stepRun
	var problems []study.Problem
	for _, c := range cmds {
		st := stepRun{cmd: c, label: o.id + "/" + c.Step, out: filepath.Join(o.dir, c.Step+".json")}
		st.args = withFlags(append([]string{}, c.Args...), o.extra...)
		st.args = append(st.args, "--out="+st.out, "--label="+st.label)
		for _, t := range o.targets {
			st.args = append(st.args, "--target="+t)
		}
		if cfg := orElse(o.config, c.Config); cfg != "" {
			st.args = append(st.args, "--config="+cfg)
		}
		if o.prepare != "" {
			st.args = withFlags(st.args, "--prepare="+o.prepare)
		}
		if o.history != "" {
			st.args = append(st.args, "--history="+o.history)
		}
		st.spec = stepSpec(st.args)
		st.plan, err = planStep(env, c, st.args)
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
		return nil, usageError{&study.Error{File: name, Problems: problems}}
	}
	return steps, nil
}

// withFlags adds flags (--name=value) to args, each in place of the same
// flag's earlier value, so that the command a study prints names each flag
// once, with the value that counts.
func withFlags(args []string, flags ...string) []string {
	for _, f := range flags {
		name, _, _ := strings.Cut(f, "=")
		args = slices.DeleteFunc(args, func(a string) bool { return a == name || strings.HasPrefix(a, name+"=") })
		args = append(args, f)
	}
	return args
}

// orElse is a, else b.
func orElse(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// planStep parses a step's flags as 'rightsize sweep|run WORKLOAD' does and
// makes its plan.
func planStep(env *Env, c study.Command, args []string) (*config.Plan, error) {
	w := all.ByName(c.Workload)
	if w == nil {
		var names []string
		for _, w := range all.All() {
			names = append(names, w.Meta().Name)
		}
		return nil, fmt.Errorf("unknown workload %q (one of: %s)", c.Workload, strings.Join(names, ", "))
	}
	return config.PlanArgs(w, c.Phase, args, planEnv(env))
}

// runStudy plans every step, skips those the history holds, runs the
// others as sweep and run do, then plans and reports.
func runStudy(ctx context.Context, env *Env, arg string, o studyOptions) error {
	s, err := loadStudy(arg)
	if err != nil {
		return err
	}
	if o.id == "" {
		o.id = session.NewRunID(time.Now())
	} else if err := study.CheckID(o.id); err != nil {
		return usageError{err}
	}
	if o.dir == "" {
		o.dir = filepath.Join("results", o.id+"-"+s.Name)
	}
	steps, err := planStudy(env, s, arg, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "study %s (%s, scale %s): %s, id %s, in %s\n", s.Name, orElse(s.Title, arg), o.scale, plural(len(steps), "step"), o.id, shellword.Quote(o.dir))
	if o.dryRun {
		for _, st := range steps {
			printCommand(env, append([]string{st.cmd.Phase, st.cmd.Workload}, st.args...))
		}
		return nil
	}
	rec, err := claimDir(s, o)
	if err != nil {
		return err
	}
	files, err := runSteps(ctx, env, steps, rec, o.dir)
	if err != nil {
		return err
	}
	return finishStudy(ctx, env, s, o, steps, files)
}
