package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/plan"
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
			sub := func(out *bytes.Buffer, args ...string) error {
				fmt.Fprintf(env.Stdout, "\n$ rightsize %s\n", shellJoin(args))
				e := *env
				e.Args = args
				if out != nil {
					e.Stdout = out
				}
				root := newRoot(ctx, &e)
				root.SetArgs(args)
				root.SetOut(e.Stdout)
				root.SetErr(e.Stderr)
				return root.ExecuteContext(ctx)
			}
			target := "sqlite:" + filepath.Join(dir, "sbtest.db")
			out := filepath.Join(dir, "sweep.json")
			warm := stepTime / 3
			if err := sub(nil, "sweep", "oltp_read_write", "--target", target, "--prepare", "always", "--tables", "2", "--table-size", "20000",
				"--threads", "1,2,4,8", "--warmup", warm.String(), "--time", stepTime.String(), "--label", "quickstart", "--out", out); err != nil {
				return err
			}
			swPath := filepath.Join(dir, "sweep-sweep.json")
			b, err := os.ReadFile(swPath)
			if err != nil {
				return runError{fmt.Errorf("quickstart: %w", err)}
			}
			var sw analysis.Sweep
			if err := json.Unmarshal(b, &sw); err != nil {
				return runError{fmt.Errorf("quickstart: %s: %w", swPath, err)}
			}
			sw.Analyze()
			rate := sw.Steps[len(sw.Steps)-1].Throughput
			for _, k := range sw.Knees {
				if k.Index >= 0 && k.Index < len(sw.Steps) {
					rate = sw.Steps[k.Index].Throughput
					break
				}
			}
			planPath := filepath.Join(dir, "plan.json")
			var pj bytes.Buffer
			err = sub(&pj, "plan", "--from", swPath, "--target-rate", fmt.Sprintf("%.0f", rate), "--format", "json")
			if err != nil && pj.Len() == 0 {
				return err
			}
			var pr plan.Report
			if json.Unmarshal(pj.Bytes(), &pr) == nil && pr.Sizing != nil {
				fmt.Fprintf(env.Stdout, "plan: %d vCPUs for %.0f transactions/s at 80 %% CPU on this machine's topology\n", pr.Sizing.VCPU, rate)
				for _, r := range pr.Sizing.Reasons {
					fmt.Fprintf(env.Stdout, "  %s\n", r)
				}
			}
			if err := os.WriteFile(planPath, pj.Bytes(), 0o644); err != nil {
				return runError{fmt.Errorf("quickstart: %w", err)}
			}
			page := filepath.Join(dir, "report.html")
			if err := sub(nil, "report", swPath, planPath, "-o", page); err != nil {
				return err
			}
			abs, _ := filepath.Abs(page)
			fmt.Fprintf(env.Stdout, "\nquickstart done. The report: %s\n", abs)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "rightsize-quickstart", "directory for the database, results, plan and report")
	durVar(cmd.Flags(), &stepTime, "time", 15*time.Second, "measured time of each of the 4 steps")
	return cmd
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
