package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/config"
	"github.com/rightsize/rightsize/internal/plan"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// quickstartCommand is the whole story on the embedded default: a short
// sweep on SQLite, its analysis, a plan for this machine, and the HTML
// report, each step an ordinary rightsize command that it prints first.
func quickstartCommand(ctx context.Context, env *Env) *cobra.Command {
	var dir string
	var stepTime time.Duration
	cmd := &cobra.Command{
		Use:   "quickstart",
		Short: "Sweep oltp_read_write on an embedded SQLite file, find the knee, plan a VM for this machine, and write the HTML report (about 2 minutes)",
		Long: `quickstart runs, in --dir (default ./rightsize-quickstart):

  1. rightsize sweep oltp_read_write --threads 1,2,4,8 on an embedded SQLite
     file (prepared first: 2 tables of 20,000 rows), a short warm-up and
     --time per step;
  2. the sweep's analysis: the knee, the USL fit, CPU per transaction;
  3. rightsize plan for this machine (/sys), right-sizing a VM for the rate at
     the knee at 80 % CPU;
  4. rightsize report: one HTML file with the tables and charts.

Each command is printed before it runs, so that it can be repeated or
changed by hand.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if stepTime < time.Second {
				return usagef("quickstart: --time %v: want at least 1s", stepTime)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return runError{fmt.Errorf("quickstart: %w", err)}
			}
			return quickstart(ctx, env, dir, stepTime)
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "rightsize-quickstart", "directory for the database, results, plan and report")
	config.DurationVar(cmd.Flags(), &stepTime, "time", 15*time.Second, "measured time of each of the 4 steps")
	return cmd
}

// quickstart sweeps, plans and reports in dir; each stage is printed as
// the command that does the same by hand, and run by the functions that
// command runs.
func quickstart(ctx context.Context, env *Env, dir string, stepTime time.Duration) error {
	target := "sqlite:" + filepath.Join(dir, "sbtest.db")
	sweepArgs := []string{"--target", target, "--prepare", "always", "--tables", "2", "--table-size", "20000",
		"--threads", "1,2,4,8", "--warmup", (stepTime / 3).String(), "--time", stepTime.String(), "--label", "quickstart",
		"--out", filepath.Join(dir, "sweep.json")}
	printCommand(env, append([]string{"sweep", "oltp_read_write"}, sweepArgs...))
	o, err := sweepWith(ctx, env, "oltp_read_write", sweepArgs)
	if err != nil {
		return err
	}
	sw, swPath := o.Sweep, o.SweepPath
	rate := sw.Steps[len(sw.Steps)-1].Throughput
	for _, k := range sw.Knees {
		if k.Index >= 0 && k.Index < len(sw.Steps) {
			rate = sw.Steps[k.Index].Throughput
			break
		}
	}
	rateArg := fmt.Sprintf("%.0f", rate)
	printCommand(env, []string{"plan", "--from", swPath, "--target-rate", rateArg, "--format", "json"})
	h, err := loadHost(env, "auto")
	if err != nil {
		return err
	}
	sizing, err := sizeFromSweep(h, swPath, rateArg, 80, 0)
	if err != nil {
		return err
	}
	pr := &plan.Report{Host: h, HTGainPct: 20, HTGainSource: "default", Sizing: &sizing}
	var pj bytes.Buffer
	if err := report.Plan(&pj, pr, report.JSON); err != nil {
		return runError{fmt.Errorf("quickstart: %w", err)}
	}
	planPath := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(planPath, pj.Bytes(), 0o644); err != nil {
		return runError{fmt.Errorf("quickstart: %w", err)}
	}
	fmt.Fprintf(env.Stdout, "plan: %d vCPUs for %.0f transactions/s at 80 %% CPU on this machine's topology\n", sizing.VCPU, rate)
	for _, r := range sizing.Reasons {
		fmt.Fprintf(env.Stdout, "  %s\n", r)
	}
	page := filepath.Join(dir, "report.html")
	printCommand(env, []string{"report", swPath, planPath, "-o", page})
	if err := writeReport(env, reportOptions{format: "html", out: page}, []string{swPath, planPath}); err != nil {
		return err
	}
	abs, _ := filepath.Abs(page)
	fmt.Fprintf(env.Stdout, "\nquickstart done. The report: %s\n", abs)
	return nil
}

// sweepWith sweeps the named workload with the given options, as 'rightsize
// sweep NAME args...' does.
func sweepWith(ctx context.Context, env *Env, name string, args []string) (*session.Outcome, error) {
	w := all.ByName(name)
	if w == nil {
		return nil, fmt.Errorf("no workload %s", name)
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	w.BindFlags(fs)
	var f config.Flags
	f.Bind(fs, config.PhaseSweep)
	if err := fs.Parse(args); err != nil {
		return nil, usageError{err}
	}
	p, err := f.Plan(w, planEnv(env))
	if err != nil {
		return nil, err
	}
	o, err := execute(ctx, env, p)
	return o, wrapRun(err)
}

// printCommand prints a command line, as the user would type it.
func printCommand(env *Env, args []string) {
	fmt.Fprintf(env.Stdout, "\n$ rightsize %s\n", shellJoin(args))
}

// shellJoin quotes arguments that need it, for printing a command.
func shellJoin(args []string) string {
	var b bytes.Buffer
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || bytes.ContainsAny([]byte(a), " \t\"'$\\<>|&;*?") {
			fmt.Fprintf(&b, "'%s'", a)
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}
