package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/runplan"
)

// quickstartCommand is the whole story on the embedded default: the vm-rate
// study at its small scale on SQLite (a baseline, 1x..5x of it), a VM
// right-sized for this machine, and the HTML report, in brief.
func quickstartCommand(ctx context.Context, env *Env) *cobra.Command {
	var dir string
	var stepTime time.Duration
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Run the vm-rate study small on an embedded SQLite file: 1x..5x a baseline rate, the knee, a VM planned for this machine, and the HTML report (about 1 minute)",
		Long: `quickstart runs, in --dir (default ./rightsize-quickstart), the vm-rate study at
its small scale (rightsize study run vm-rate --scale small) on an embedded
SQLite file:

  1. oltp_read_write on 2 tables of 20,000 rows, an open loop at 1x, 2x, 3x,
     4x and 5x of a baseline rate (small: 400 transactions/s), 8 virtual
     users, a short warm-up and --time per step;
  2. the sweep's analysis: the knee, the bottleneck there, CPU per
     transaction;
  3. rightsize plan for this machine (/sys), right-sizing a VM for 3x at 80 %
     CPU;
  4. rightsize report: one HTML file, the answer first.

It prints each command before it runs and one line per step, and ends with
the report's path and the answer. The result files, the sweep file and the
plan are in --dir.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if stepTime < time.Second {
				return usagef("quickstart: --time %v: want at least 1s", stepTime)
			}
			if err := makeIgnoredDir(dir); err != nil {
				return runError{fmt.Errorf("quickstart: %w", err)}
			}
			return quickstart(ctx, env, dir, stepTime)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "rightsize-quickstart", "directory for the database, results, plan and report")
	runplan.DurationVar(cmd.Flags(), &stepTime, "time", 10*time.Second, "measured time of each of the 5 steps")
	return cmd
}

// quickstart runs vm-rate small in dir, briefly, then says where the report
// is and what it answers.
func quickstart(ctx context.Context, env *Env, dir string, stepTime time.Duration) error {
	brief := *env
	brief.Brief = true
	o := app.StudyOptions{Scale: "small", Dir: dir, Prepare: "always", ReplaceOurs: true, Targets: []string{"sqlite:" + filepath.Join(dir, "sbtest.db")},
		Extra: []string{"--time=" + stepTime.String(), "--warmup=" + (stepTime / 3).Round(100*time.Millisecond).String()}}
	if err := runStudy(ctx, &brief, "vm-rate", "", o); err != nil {
		return err
	}
	sweeps, _ := filepath.Glob(filepath.Join(dir, "*-sweep.json"))
	if len(sweeps) != 1 {
		return runError{fmt.Errorf("quickstart: %d sweep files in %s, want 1", len(sweeps), dir)}
	}
	files := []string{sweeps[0]}
	if p := filepath.Join(dir, "plan.json"); fileExists(p) { // none when no VM could be planned
		files = append(files, p)
	}
	l, err := loadFiles(files)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout)
	return report.WriteHeadline(env.Stdout, report.Headline(report.Doc{Sweep: l.FirstSweep(), Plan: l.Plan}), report.Text)
}

// printCommand prints a command line, as the user would type it, its
// passwords removed (app.PrintCommand).
func printCommand(env *Env, args []string) { app.PrintCommand(env.Stdout, args) }
