package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/stored"
)

const historyLong = `The run catalog: every run and sweep is recorded in it (unless --no-history),
and result files made elsewhere can be imported.

The catalog is, in this order: --history; $RIGHTSIZE_HISTORY; an SQLite file,
$XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db.
For a team, point it at PostgreSQL: --history postgres://user@host:5432/db
(the database must exist; the tables are created in it).

A run's key is <id>-<workload>, and -<label> when it has a label (spaces and
other signs dropped, as in result file names); a sweep's is
<id>-<workload>-sweep. Any unique prefix of a key will do, and so will a key
as history list elides it to fit a terminal (its head, "…", its tail).
history list groups the runs and sweeps a study made (labelled <study
id>/<step>) under a line naming the study; where runs have different targets
or servers, each row keeps its target's host and port and its server's name
and version whole enough to tell them apart.`

const compareLong = `Compare a candidate with a baseline: throughput and each latency percentile,
the change in percent with its 95 % confidence interval, and a verdict:
faster, slower, or no significant difference (the interval contains 0).

BASELINE and CANDIDATE are each a result file, a catalog key (or unique
prefix), or a label: every run in the catalog with exactly that label, as
repeated runs of one configuration. With two or more runs on each side the
interval is a bootstrap over the runs; with a single run on a side it is over
the runs' measured report intervals, which is narrower than repeated runs
would give (repeat runs for a sound verdict). The figures shown are each
side's own: a run's percentiles from its merged histogram (the mean of the
runs' with several a side); with the intervals basis, the interval is of the
change in the per-interval means, shown beside it (INTERVAL CHANGE). A run
on both sides (the same file twice, a copy, its key beside its file, labels
that share a run) is refused (exit 2): compared with itself it shows no
change.

First it prints what each side ran: workload, targets, servers (product and
version), load (loop, threads, rate) and the workload's options, and warns
(on stderr) of each that differs.

With --fail-if-slower P%, the exit code is 1 when the candidate is slower
beyond doubt by more than P %: throughput's whole interval below -P %, or
p99's whole interval above +P %; and when there are too few samples to tell
(a single report interval a side). It refuses (exit 2) to judge runs of
different workloads, load or options, which count different work, unless
--force; different targets or servers are what one compares (a warning).`

// historyDSN is the catalog to use: the --history flag, else
// $RIGHTSIZE_HISTORY, else the SQLite file under $XDG_DATA_HOME (when it is
// an absolute path, as the XDG spec requires) or ~/.local/share; "" when
// none of them is set.
func historyDSN(env *Env, flag string) string { return runplan.HistoryDSN(env.Getenv, flag) }

// historyCommand builds "rightsize history" with its subcommands.
func historyCommand(env *Env) *cobra.Command {
	var dsnFlag string
	subs := "list, show, delete, import, compare"
	cmd := &cobra.Command{
		Use:   "history",
		Short: "The run catalog: list, show, delete and import runs and sweeps; compare a candidate with a baseline",
		Long:  historyLong,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("history: unknown subcommand %q (one of: %s)", args[0], subs)
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return usagef("history: name a subcommand (one of: %s)", subs)
		},
	}
	cmd.PersistentFlags().StringVar(&dsnFlag, "history", "",
		"the catalog: sqlite:PATH or postgres://user@host:5432/db (default: $RIGHTSIZE_HISTORY, else $XDG_DATA_HOME/rightsize/history.db or ~/.local/share/rightsize/history.db)")
	open := func(verb string, takes stored.Takes) *stored.Door {
		return &stored.Door{Verb: verb, DSN: historyDSN(env, dsnFlag), Getenv: env.Getenv, Takes: takes,
			NoCatalog: "history: no catalog: give --history, or set RIGHTSIZE_HISTORY, XDG_DATA_HOME or HOME"}
	}
	cmd.AddCommand(historyList(env, open), historyShow(env, open), historyDelete(env, open),
		historyImport(env, open), historyCompare(env, open))
	return cmd
}

// catalogOpener makes the door a history subcommand reads the catalog
// through: verb begins its messages, takes says what its arguments name.
type catalogOpener func(verb string, takes stored.Takes) *stored.Door

// oneKey is the argument check of a subcommand that takes one key.
func oneKey(verb string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("history %s: name one run or sweep (its key or a unique prefix; see history list)", verb)
		}
		return nil
	}
}

func historyList(env *Env, open catalogOpener) *cobra.Command {
	var f stored.Filter
	var wide bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the runs (newest first), then the sweeps, each row fitted to 120 columns (--wide: every field whole)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.Limit < 0 {
				return usagef("limit %d: want 0 (all) or more", f.Limit)
			}
			d := open("history list", stored.Measurements)
			defer d.Close()
			cat, err := d.Catalog(c.Context(), "")
			if err != nil {
				return fromStore(err)
			}
			l, err := stored.List(c.Context(), cat, f, wide)
			if err != nil {
				return wrapRun(err)
			}
			return wrapRun(report.WriteListing(env.Stdout, l))
		},
	}
	cmd.Flags().BoolVar(&wide, "wide", false, "every field whole (whole keys, targets and servers), with the start, average and p95, however wide the rows")
	cmd.Flags().StringVar(&f.Workload, "workload", "", "only runs of this workload")
	cmd.Flags().StringVar(&f.Label, "label", "", "only runs with exactly this label (no sweeps)")
	cmd.Flags().StringVar(&f.Config, "config", "", "only runs of exactly this configuration (--config of run and sweep; no sweeps)")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "at most this many runs, and as many sweeps (0: all)")
	return cmd
}

func historyShow(env *Env, open catalogOpener) *cobra.Command {
	return historyOnKey(env, open, "show", "Print a run's summary or a sweep's report from the catalog", (*stored.Door).Show)
}

func historyDelete(env *Env, open catalogOpener) *cobra.Command {
	return historyOnKey(env, open, "delete",
		"Delete one run or sweep from the catalog (its key or a unique prefix; a sweep's runs are kept)", (*stored.Door).Delete)
}

// historyOnKey is the history subcommand verb, which does act to the run
// or sweep its one argument names, writing to env's stdout.
func historyOnKey(env *Env, open catalogOpener, verb, short string,
	act func(d *stored.Door, ctx context.Context, w io.Writer, key string) error) *cobra.Command {
	return &cobra.Command{
		Use:   verb + " KEY",
		Short: short,
		Args:  oneKey(verb),
		RunE: func(c *cobra.Command, args []string) error {
			d := open("history "+verb, stored.Measurements)
			defer d.Close()
			return fromStore(act(d, c.Context(), env.Stdout, args[0]))
		},
	}
}

func historyImport(env *Env, open catalogOpener) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE...",
		Short: "Add result and sweep files to the catalog (those already in it are skipped)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("history import: name result or sweep files (results/*.json)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			d := open("history import", stored.Measurements)
			defer d.Close()
			cat, err := d.Catalog(ctx, "")
			if err != nil {
				return fromStore(err)
			}
			failed := 0
			for _, path := range args {
				if err := stored.Import(ctx, env.Stdout, cat, path); err != nil {
					if ctx.Err() != nil {
						return err
					}
					if len(args) == 1 { // one message for one file
						return runError{fmt.Errorf("history import: %w", err)}
					}
					fmt.Fprintf(env.Stderr, "rightsize: history import: %v\n", err)
					failed++
				}
			}
			if failed > 0 {
				return runError{fmt.Errorf("history import: %d of %d file(s) not imported", failed, len(args))}
			}
			return nil
		},
	}
}

// percentValue is a flag holding a percentage, given as "5%" or "5".
type percentValue struct {
	set bool
	pct float64
}

func (p *percentValue) String() string {
	if !p.set {
		return ""
	}
	return strconv.FormatFloat(p.pct, 'g', -1, 64) + "%"
}

func (p *percentValue) Set(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "%")), 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%q is not a percentage (such as 5%%)", v)
	}
	p.set, p.pct = true, f
	return nil
}

func (p *percentValue) Type() string { return "percent" }

func historyCompare(env *Env, open catalogOpener) *cobra.Command {
	var failIf percentValue
	var rounds int
	var seed uint64
	var force bool
	cmd := &cobra.Command{
		Use:   "compare BASELINE CANDIDATE",
		Short: "Compare a candidate with a baseline (result files, catalog keys or labels), with 95 % confidence intervals; exit 1 on a regression with --fail-if-slower",
		Long:  compareLong,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("history compare: name a baseline and a candidate (each a result file, a catalog key or a label)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if rounds < 100 {
				return usagef("rounds %d: want 100 or more", rounds)
			}
			d := open("history compare", stored.Runs)
			defer d.Close()
			base, cand, err := d.LoadSides(c.Context(), env.Stdout, args)
			if err != nil {
				return fromStore(err)
			}
			sd := report.CompareSides(base, cand)
			if err := sd.Write(env.Stdout); err != nil {
				return wrapRun(err)
			}
			for _, d := range sd.Differs {
				fmt.Fprintf(env.Stderr, "rightsize: history compare: warning: the baseline and the candidate ran %s\n", report.Differently(d))
			}
			if failIf.set && len(sd.Unfair) > 0 && !force {
				return usagef("history compare: --fail-if-slower will not judge runs of different %s: compare like with like, or give --force", strings.Join(sd.Unfair, " and "))
			}
			cmp := stored.Compare(base, cand, rounds, seed)
			if err := report.WriteComparison(env.Stdout, cmp); err != nil {
				return wrapRun(err)
			}
			if !failIf.set {
				return nil
			}
			if cmp.Regressed(failIf.pct) {
				return runError{fmt.Errorf("history compare: the candidate is slower than the baseline by more than %s (--fail-if-slower)", failIf.String())}
			}
			// A gate that cannot see must not pass silently.
			if m, few := cmp.TooFew("throughput", "p99"); few {
				return runError{fmt.Errorf("history compare: --fail-if-slower cannot tell: %s has too few samples (%d baseline, %d candidate; 2 a side needed): repeat the runs, or run them longer than a few report intervals",
					m.Name, m.BaseN, m.CandN)}
			}
			fmt.Fprintf(env.Stdout, "no regression beyond %s\n", failIf.String())
			return nil
		},
	}
	cmd.Flags().Var(&failIf, "fail-if-slower", "exit 1 when throughput fell, or p99 rose, by more than this percentage with 95 % confidence (e.g. 5%)")
	cmd.Flags().BoolVar(&force, "force", false, "with --fail-if-slower, judge runs of different workloads, load or options too")
	cmd.Flags().IntVar(&rounds, "rounds", stored.DefaultRounds, "bootstrap resampling rounds")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the bootstrap's random seed (the same seed gives the same intervals)")
	return cmd
}
