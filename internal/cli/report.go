package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/stored"
)

// loaded is what the report command read (stored.Door).
type loaded struct {
	stored.Set
}

// loadFiles reads result files, sweep files (with their steps' result
// files) and a plan (rightsize plan --format json).
func loadFiles(paths []string) (loaded, error) {
	return loadArgs(context.Background(), &stored.Door{Verb: "report"}, paths)
}

// loadArgs reads what each argument names through d (stored.Door.LoadAll).
func loadArgs(ctx context.Context, d *stored.Door, args []string) (loaded, error) {
	s, err := d.LoadAll(ctx, args)
	l := loaded{Set: s}
	if err != nil {
		return l, fromStore(err)
	}
	return l, nil
}

// fromStore maps an error of package stored to its exit code: the
// command line named something wrongly (2), or it could not be read (1).
func fromStore(err error) error {
	if errors.Is(err, stored.ErrUsage) {
		return usageError{err}
	}
	return wrapRun(err)
}

// reportOptions are report's flags.
type reportOptions struct {
	format, out, sortBy, title, at, history string
	force                                   bool   // -o may replace a file rightsize did not write
	mark                                    string // what a file -o writes begins with (Markdown: markdownMarker)
}

// writeReport renders what args name to o.out (standard output when "" or
// "-"), in o.format: result, sweep and plan files, and (looked up in the
// history catalog, only when some argument is not a file) runs, sweeps and
// configurations; several sweeps as one comparison of their configurations.
func writeReport(ctx context.Context, env *Env, o reportOptions, args []string) error {
	f, err := report.ParseFormat(o.format, report.HTMLPage, report.Markdown, report.CSV, report.Text)
	if err != nil {
		return usageError{err}
	}
	d := &stored.Door{Verb: "report", DSN: historyDSN(env, o.history), Getenv: env.Getenv}
	defer d.Close()
	l, err := loadArgs(ctx, d, args)
	if err != nil {
		return err
	}
	if o.out != "" && o.out != "-" {
		if err := checkOutput("report", "-o", o.out, reportOut, o.force, l.Files); err != nil {
			return err
		}
		if f == report.Markdown {
			o.mark = markdownMarker
		}
	}
	var b bytes.Buffer
	err = report.Render(&b, report.Input{Runs: l.Runs, Results: l.Results, Configs: l.Configs(), Plan: l.Plan},
		report.Options{Format: f, SortBy: o.sortBy, At: o.at, Title: o.title, Tool: "rightsize " + Version()})
	switch {
	case errors.Is(err, report.ErrAsked):
		return usageError{err}
	case err != nil:
		return runError{err}
	}
	return emit(env, o, b.Bytes())
}

// emit writes a rendered report to o.out (standard output when "" or
// "-"): a file as writeOutput writes it (a full disk leaves the previous
// report whole), beginning with o.mark.
func emit(env *Env, o reportOptions, b []byte) error {
	if o.out == "" || o.out == "-" {
		_, err := env.Stdout.Write(b)
		return err
	}
	if err := writeOutput(o.out, append([]byte(o.mark), b...)); err != nil {
		return runError{fmt.Errorf("report: %w", err)}
	}
	fmt.Fprintf(env.Stderr, "report: %s\n", o.out)
	return nil
}

func reportCommand(env *Env) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report FILE|KEY|CONFIG...",
		Short: "Report result, sweep and plan files, or runs, sweeps and configurations from the history catalog (several sweeps: one comparison of their configurations): a self-contained HTML page with charts, or Markdown, CSV or text tables",
		Long: `Report result files, sweep files (with their steps' results) and a plan
(rightsize plan --format json) from disk, with no database.

An argument that is not a file is looked up in the history catalog
(--history; by default as run and sweep record: $RIGHTSIZE_HISTORY, else
$XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db):
a run's or sweep's key (or a unique prefix of one; see history list) is that
run or sweep, the sweep with its steps' results as the catalog holds them
(moved files do not matter); a configuration name (the --config of run and
sweep) is every sweep of that configuration, or its runs when it has no
sweep. An argument ending in .json is always a file. One that is neither a
file, a key nor a configuration is refused (exit 2). The catalog is opened
only when an argument is not a file.

  --format html   one self-contained file (inline SVG charts, no script, opens
                  offline): the step table and the verdict, response time bars
                  with the host's CPU as lines, throughput with the USL fit and
                  the knee, each run's throughput and p99 over time (warm-up
                  shaded), each operation's latency percentiles, the plan and
                  the parameters;
  --format md|csv|text
                  the tables: a sweep's steps, and one row per result (file or key)
                  (label, target, throughput, avg, p95, p99, errors), sortable
                  with --sort.

Two sweeps or more make one comparison of configurations, each named by
its sweep's --config (by default its --label, else the target's host), so
"rightsize report HCI two-tier" compares the sweeps recorded of those two
configurations. Sweeps of one name and the same options are repeats of it:
compared by their means, with the mean throughput's 95 % interval and the
winner's lead with its bootstrap interval when both were swept twice or
more; with other options they are told apart by their ids. It opens with the
headline: which configuration has the most throughput at the compared step
and by how much over the next ("HCI: 7,436/s at rate 2x, +18 % over
two-tier (6,300/s)"), and each configuration's knee. Then the configuration
table: one row per configuration at that step (throughput, its ratio to the
best, avg and p99 response time, host CPU busy, knee), ranked by
throughput; --sort config|throughput|avg|p99 reorders it. Each is at its
capacity (a search's answer, else its knee) when all have one, else at the
last step all share; --at picks a step ("threads 8", "8") or capacity. Then, where they apply: by
instance count, the aggregate, per instance and the instances' spread
(lowest, highest, CoV); the workload's own figures and limit checks at that
step (TPC-C's tpmC, NOPM, efficiency, response-time limits); each
configuration's fileio pattern table (read mixes as columns). In HTML:
average response time as bars grouped by step, one per configuration, with
host CPU busy as lines; the curves of every configuration overlaid over the
shared axis (throughput, average and p99 response time, host CPU busy); then
each configuration's steps and parameters. Sweeps of different workloads or
axes are refused (exit 2); options that differ are noted. The same sweep or
run named twice (the same file, a copy, its key beside its file) is refused
(exit 2): it would count twice.

Files over 256 MiB and devices (/dev/zero) are refused (exit 1). -o writes
to a temporary file renamed into place (a full disk leaves the previous
report whole); it never replaces an input (exit 2), and replaces an existing
file only when it is a report rightsize wrote (an HTML report, a Markdown
report of report -o) or empty: anything else (a result, a sweep, a plan, a
CSV or text report, which carry no mark) needs --force.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report: name at least one result, sweep or plan file")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return writeReport(c.Context(), env, o, args) },
	}
	cmd.Flags().StringVar(&o.format, "format", "html", "html, md, csv or text")
	cmd.Flags().StringVarP(&o.out, "out", "o", "", "write the report to this file (default: standard output); never one of the inputs, nor a file that is not a report of rightsize's (see --force)")
	cmd.Flags().BoolVar(&o.force, "force", false, "let -o replace an existing file that is not an HTML or Markdown report of rightsize's (a result, a sweep, a plan, a CSV or text report: these carry no report mark)")
	cmd.Flags().StringVar(&o.sortBy, "sort", "", "sort the runs table by label, target, throughput, avg, p95, p99 or errors; a comparison's table by config, throughput, avg or p99 (best first)")
	cmd.Flags().StringVar(&o.title, "title", "", "the HTML report's title")
	cmd.Flags().StringVar(&o.history, "history", "", "the history catalog the arguments that are not files are looked up in: sqlite:PATH or postgres://user@host:5432/db (default: $RIGHTSIZE_HISTORY, else $XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db)")
	cmd.Flags().StringVar(&o.at, "at", "", `a comparison's step: a step label ("threads 8", "rate 2x"), an axis value, or capacity (default: each configuration's capacity when all have one, else the last step every sweep has)`)
	return cmd
}
