package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/study"
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
  app-rate          your own workload (--workload FILE.yaml, which
                    'rightsize capture' writes from production) at 1x..5x
                    of its production rate: each transaction type's
                    response time, the knee, a VM right-sized at 3x

  rightsize study run vm-rate                      # on embedded SQLite
  rightsize study run scaled-instances --target postgres://u@db:5432/sb
  rightsize study run my-study.yaml --scale full --config "24 vCPU"
  rightsize study show tpcc-4x > my-tpcc.yaml      # a protocol, to change
  rightsize study run app-rate --workload my-app.yaml --target postgres://u@copy/app

--scale small fits a 2-core machine in a few minutes; --scale full uses the
published sizes (hours). Each step is an ordinary sweep or run (printed
before it runs, passwords removed), labelled <study id>/<step> and
recorded in the history catalog; run the study again with --study-id to
resume it: the steps the catalog holds, complete, that this study (its name
and file) ran with the same options, are not run again (a step whose
options changed, or another study file's under the same id, runs again, and
the study says why). --dir is the study's: a folder holding a report or
results of the study's names that this study id did not write is refused
without --force.`

// studyCommand is 'rightsize study': run, show and list protocols.
func studyCommand(ctx context.Context, env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "study",
		Short: "Run a published test protocol (vm-rate, app-rate, scaled-instances, tpcc-4x, storage-patterns) or a study file in one command",
		Long:  studyLong,
		Args: func(c *cobra.Command, args []string) error {
			return usagef("study: run, show or list (see 'rightsize study --help')")
		},
		RunE: func(c *cobra.Command, args []string) error { return nil },
	}
	cmd.AddCommand(studyRunCommand(ctx, env), studyShowCommand(env), studyListCommand(env))
	return cmd
}

func studyRunCommand(ctx context.Context, env *Env) *cobra.Command {
	var o app.StudyOptions
	var workloadArg, baseline string
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
			if baseline != "" {
				o.Extra = append(o.Extra, "--baseline-rate="+baseline)
			}
			return wrapRun(runStudy(ctx, env, args[0], workloadArg, o))
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.Scale, "scale", study.Small, "small (a 2-core machine, a few minutes) or full (the published sizes)")
	fs.StringArrayVar(&o.Targets, "target", nil, "every step's --target (repeat for several instances; default: each workload's, an embedded SQLite file or fileio's --file)")
	fs.StringVar(&o.Config, "config", "", "the configuration under test, for every step (default: each step's config, else run's default)")
	fs.StringVar(&o.ID, "study-id", "", "resume this study: steps recorded in the history under this id are not run again (default: a new id)")
	fs.StringVar(&o.Dir, "dir", "", "directory of the steps' results, the plan and the report (default results/<study id>-<study>)")
	fs.StringVar(&o.History, "history", "", "the history catalog the steps are recorded in and resumed from (default: as run's)")
	fs.StringVar(&o.Prepare, "prepare", "", "every step's --prepare: auto, always or never (default: the study's, else run's auto)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print each step's command and run nothing")
	fs.BoolVar(&o.Force, "force", false, "write in a --dir that holds a report, results or a plan of the study's names that this study id did not write (replacing them)")
	fs.StringVar(&workloadArg, "workload", "", "the workload of a study that drives yours (app-rate): a workload file (rightsize capture writes one)")
	fs.StringVar(&baseline, "baseline-rate", "", "every step's --baseline-rate: what 1x is, per second per instance, or auto (default: the study's, else the workload file's baseline_rate)")
	return cmd
}

// loadStudy reads a built-in protocol, or else a study file.
func loadStudy(arg string) (*study.Study, error) {
	if s, ok, err := study.ParseBuiltin(arg); ok {
		return s, err
	}
	s, err := study.ReadFile(arg)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(arg, `/\.`) {
		return nil, usagef("study: no protocol %q (built in: %s) and no file of that name", arg, strings.Join(study.Builtins(), ", "))
	}
	switch {
	case errors.Is(err, study.ErrInvalid):
		return nil, usageError{err}
	case err != nil:
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	return s, nil
}

// runStudy runs the study arg names (app.RunStudy), a VM right-sized
// as 'rightsize plan' does and its report written as 'rightsize report'
// does.
func runStudy(ctx context.Context, env *Env, arg, workloadArg string, o app.StudyOptions) error {
	s, err := loadStudy(arg)
	if err != nil {
		return err
	}
	if err := s.UseWorkload(workloadArg); err != nil {
		return usageError{err}
	}
	return app.RunStudy(ctx, env, s, arg, o, app.StudyHooks{
		Record: app.Record,
		Plan: func(ctx context.Context, p *study.Sizing, sweep, dir string, verify []string) (string, error) {
			return studyPlan(ctx, env, p, sweep, dir, verify)
		},
		Report: func(ctx context.Context, format, out, title string, paths []string) error {
			// The study has made --dir its own: its report there may be replaced.
			return writeReport(ctx, env, reportOptions{format: format, out: out, title: title, force: true}, paths)
		},
	})
}
