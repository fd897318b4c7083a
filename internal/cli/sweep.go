package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/stored"
)

// analyzeCommand re-runs a sweep's analysis from its file, with no database.
func analyzeCommand(env *Env) *cobra.Command {
	var slo, cpuTarget float64
	var typeSLO runplan.TypeSLOs
	var format string
	cmd := &cobra.Command{
		Use:   "analyze SWEEP.json",
		Short: "Re-run a sweep's analysis (knees, USL, sweet spot, verdict) from its sweep file, with no database; as text or Markdown",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("analyze: name one sweep file (results/<id>-<workload>-sweep.json)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := runplan.CheckCPUTarget(cpuTarget); err != nil {
				return usageError{err}
			}
			sw, err := stored.ReadSweep(args[0])
			if err != nil {
				return runError{fmt.Errorf("analyze: %w", err)}
			}
			f, err := report.ParseFormat(format, report.Text, report.Markdown)
			if err != nil {
				return usageError{err}
			}
			if c.Flags().Changed("slo-type") {
				if err := typeSLO.Within(sw); err != nil {
					return usageError{fmt.Errorf("analyze: %w", err)}
				}
				sw.TypeSLOMs = typeSLO
			}
			a := stored.Analyze(sw, slo, c.Flags().Changed("slo"), cpuTarget, c.Flags().Changed("cpu-target"))
			return report.SweepReport(env.Stdout, a, f)
		},
	}
	runplan.MillisVar(cmd.Flags(), &slo, "slo", 0, "p99 objective for the SLO knee: a duration (50ms) or milliseconds (default: the sweep's)")
	cmd.Flags().Var(&typeSLO, "slo-type", "p95 objective of a transaction type, NAME=DURATION, repeatable (default: the sweep's)")
	cmd.Flags().StringVar(&format, "format", "text", "text, or markdown (the table and verdict as a Markdown document, as sweep writes beside the sweep file)")
	cmd.Flags().Float64Var(&cpuTarget, "cpu-target", 80, "host CPU % the sweet spot must stay under (default: the sweep's, else 80)")
	return cmd
}
