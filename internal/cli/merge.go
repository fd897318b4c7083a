package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/stored"
	"github.com/rightsize/rightsize/internal/workload/all"
)

const mergeLong = `Merge the results of the shards of one distributed run (run --shard I/N on
several generators) into the result of the whole run: HDR histograms are
added (percentiles are never averaged), counts, errors and retries summed,
report intervals aligned by wall clock; each generator's own CPU, host
figures and ticker are kept under "generators". Shards of different runs or
options are refused, and missing shards are named.

  rightsize merge results/*-shard*of4-tpcc.json -o merged.json
  rightsize merge --run 20261201T100000Z-1a2b3c4d --history postgres://rs@history/rs

-o never replaces one of the shards' files (exit 2), nor, without --force, a
file that is not a result, sweep file or sweep's Markdown report of
rightsize's (a report, a plan, a file of the user's).

The merged result is recorded in the history catalog (--no-history: not).`

func mergeCommand(ctx context.Context, env *Env) *cobra.Command {
	var runID, out, dsnFlag string
	var noHistory, force bool
	cmd := &cobra.Command{
		Use:   "merge [SHARD.json ...]",
		Short: "Merge the results of a distributed run's shards into one exact result",
		Long:  mergeLong,
		Args: func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && runID == "":
				return usagef("merge: name the shards' result files, or a run in the history catalog with --run ID")
			case len(args) > 0 && runID != "":
				return usagef("merge: give result files or --run, not both")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			dsn := historyDSN(env, dsnFlag)
			if runID != "" && dsn == "" {
				return usagef("merge --run: no history catalog (--history or $RIGHTSIZE_HISTORY)")
			}
			if dsn != "" && (runID != "" || !noHistory) {
				if err := stored.CheckCatalog(dsn, env.Getenv); err != nil {
					return fromStore(err)
				}
			}
			if out != "" && out != "-" {
				if err := checkOutput("merge", "-o", out, resultOut, force, args); err != nil {
					return err
				}
			}
			m, notes, err := stored.Merge(ctx, dsn, env.Getenv, runID, args)
			if err != nil {
				return runError{err}
			}
			for _, n := range notes {
				fmt.Fprintf(env.Stderr, "rightsize: merge: %s\n", n)
			}
			if err := all.Summarize(m); err != nil {
				fmt.Fprintf(env.Stderr, "rightsize: %s figures not computed: %v\n", m.Workload, err)
			}
			fmt.Fprintf(env.Stdout, "merged %d shards of run %s\n", len(m.Generators), m.ID)
			if err := report.Summary(env.Stdout, m); err != nil {
				return err
			}
			if out == "" {
				out = filepath.Join("results", result.FileSafe(m.ID+"-"+m.Workload)+".json")
			}
			if out != "-" {
				if err := checkOutput("merge", "-o", out, resultOut, force, args); err != nil { // the default's
					return err
				}
				if err := session.WriteResult(out, m); err != nil {
					return runError{err}
				}
				fmt.Fprintf(env.Stdout, "result: %s\n", out)
			}
			if !noHistory && dsn != "" {
				if err := app.Record(ctx, env, dsn, []*result.Run{m}, []string{out}, nil, ""); err != nil {
					fmt.Fprintf(env.Stderr, "rightsize: history: not recorded: %v\n", err)
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&runID, "run", "", "merge the shards of this run recorded in the history catalog (the run id every shard printed)")
	f.StringVarP(&out, "out", "o", "", "the merged result file (default results/<run id>-<workload>.json; '-' for none); never one of the shards' files, nor a file that is not a result or sweep of rightsize's (see --force)")
	f.BoolVar(&force, "force", false, "let -o replace an existing file that is not a result, sweep, plan or report of rightsize's")
	f.StringVar(&dsnFlag, "history", "", "the history catalog (default: $RIGHTSIZE_HISTORY, else the local one): where --run is looked up and the merged result recorded")
	f.BoolVar(&noHistory, "no-history", false, "do not record the merged result in the history catalog")
	return cmd
}
