package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/config"
	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/all"
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
id>/<step>) under a line naming the study.`

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
func historyDSN(env *Env, flag string) string { return config.HistoryDSN(env.Getenv, flag) }

// recordTimeout bounds recording after a run: the run is over (perhaps
// interrupted), and its result file is already written.
const recordTimeout = 30 * time.Second

// recordInHistory records a run's or sweep's results in the catalog at dsn
// (nothing when dsn is ""): runs with their result files' paths (paths[i]
// for runs[i]; "" or "-" when none), and the sweep with its file when sw is
// not nil. It runs even when ctx is cancelled (an interrupted run's partial
// result is recorded too), for at most 30 s, and says what it recorded on
// env.Stdout. Runs and sweeps already in the catalog are left as they are.
func recordInHistory(ctx context.Context, env *Env, dsn string, runs []*result.Run, paths []string, sw *result.Sweep, swPath string) error {
	if dsn == "" || (len(runs) == 0 && sw == nil) {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	cat, err := history.Open(ctx, dsn, env.Getenv)
	if err != nil {
		return err
	}
	defer cat.Close()
	n := 0
	for i, r := range runs {
		if r == nil {
			continue
		}
		p := ""
		if i < len(paths) {
			p = absPath(paths[i])
		}
		if err := cat.Record(ctx, r, p); err != nil {
			return err
		}
		n++
	}
	what := plural(n, "run")
	if sw != nil {
		if err := cat.RecordSweep(ctx, sw, absPath(swPath)); err != nil {
			return err
		}
		what += " and the sweep"
	}
	fmt.Fprintf(env.Stdout, "history: %s recorded in %s\n", what, cat)
	return nil
}

// absPath makes a result file's path absolute for the catalog ("" for none).
func absPath(p string) string {
	if p == "" || p == "-" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

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
	open := func(ctx context.Context) (*history.Catalog, error) {
		dsn := historyDSN(env, dsnFlag)
		if dsn == "" {
			return nil, usagef("history: no catalog: give --history, or set RIGHTSIZE_HISTORY, XDG_DATA_HOME or HOME")
		}
		return openCatalog(ctx, env, dsn)
	}
	cmd.AddCommand(historyList(env, open), historyShow(env, open), historyDelete(env, open),
		historyImport(env, open), historyCompare(env, open))
	return cmd
}

type catalogOpener func(ctx context.Context) (*history.Catalog, error)

// openCatalog opens the catalog at dsn (historyDSN's); a location it cannot
// use is a usage error. The caller closes the catalog.
func openCatalog(ctx context.Context, env *Env, dsn string) (*history.Catalog, error) {
	cat, err := history.Open(ctx, dsn, env.Getenv)
	if errors.Is(err, history.ErrBadDSN) {
		return nil, usageError{err}
	}
	return cat, err
}

// sweepRuns returns the catalog's runs of the sweep sw's steps, oldest
// first (the sweep's order).
func sweepRuns(ctx context.Context, cat *history.Catalog, sw *result.Sweep) ([]history.Entry, error) {
	es, err := cat.List(ctx, history.Filter{Workload: sw.Workload})
	if err != nil {
		return nil, err
	}
	var steps []history.Entry
	for i := len(es) - 1; i >= 0; i-- { // List is newest first
		if es[i].SweepID == sw.ID {
			steps = append(steps, es[i])
		}
	}
	return steps, nil
}

// oneKey is the argument check of a subcommand that takes one key.
func oneKey(verb string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("history %s: name one run or sweep (its key or a unique prefix; see history list)", verb)
		}
		return nil
	}
}

// resolve opens the catalog and finds the run or sweep a key or unique
// prefix names; the caller closes the catalog.
func resolve(ctx context.Context, open catalogOpener, verb, key string) (*history.Catalog, history.Ref, error) {
	cat, err := open(ctx)
	if err != nil {
		return nil, history.Ref{}, wrapRun(err)
	}
	ref, err := resolveKey(ctx, cat, key)
	if err != nil {
		cat.Close()
		return nil, ref, runError{fmt.Errorf("history %s: %w", verb, err)}
	}
	return cat, ref, nil
}

func historyList(env *Env, open catalogOpener) *cobra.Command {
	var f history.Filter
	var wide bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the runs (newest first), then the sweeps, each row fitted to 120 columns (--wide: every field whole)",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if f.Limit < 0 {
				return usagef("limit %d: want 0 (all) or more", f.Limit)
			}
			cat, err := open(c.Context())
			if err != nil {
				return wrapRun(err)
			}
			defer cat.Close()
			return wrapRun(listCatalog(c.Context(), env.Stdout, cat, f, wide))
		},
	}
	cmd.Flags().BoolVar(&wide, "wide", false, "every field whole (whole keys, targets and servers), with the start, average and p95, however wide the rows")
	cmd.Flags().StringVar(&f.Workload, "workload", "", "only runs of this workload")
	cmd.Flags().StringVar(&f.Label, "label", "", "only runs with exactly this label (no sweeps)")
	cmd.Flags().StringVar(&f.Config, "config", "", "only runs of exactly this configuration (--config of run and sweep; no sweeps)")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "at most this many runs, and as many sweeps (0: all)")
	return cmd
}

// firstOf is a run's first target, and how many more it had.
func firstOf(targets []string) string {
	switch len(targets) {
	case 0:
		return "-"
	case 1:
		return targets[0]
	}
	return fmt.Sprintf("%s (+%d more)", targets[0], len(targets)-1)
}

// distinct is a run's servers, each once ("-" when none is known).
func distinct(servers []string) string {
	var out []string
	for _, s := range servers {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, ", ")
}

func filterText(f history.Filter) string {
	var parts []string
	if f.Workload != "" {
		parts = append(parts, "workload "+f.Workload)
	}
	if f.Label != "" {
		parts = append(parts, fmt.Sprintf("label %q", f.Label))
	}
	if f.Config != "" {
		parts = append(parts, fmt.Sprintf("config %q", f.Config))
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

// num2 writes a figure to two decimals, "-" when it is not a number.
func num2(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

func historyShow(env *Env, open catalogOpener) *cobra.Command {
	return &cobra.Command{
		Use:   "show KEY",
		Short: "Print a run's summary or a sweep's report from the catalog",
		Args:  oneKey("show"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			cat, ref, err := resolve(ctx, open, "show", args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			if ref.Kind == history.KindSweep {
				sw, e, err := cat.GetSweep(ctx, ref.Key)
				if err != nil {
					return wrapRun(err)
				}
				fmt.Fprintf(env.Stdout, "sweep %s, recorded %s%s\n", e.Key, e.Recorded.Format(time.RFC3339), fromFile(e.Path))
				info, err := sweepInfoOf(ctx, cat, e)
				if err != nil {
					return wrapRun(err)
				}
				fmt.Fprintf(env.Stdout, "%s\n\n", info.describe())
				// As analyze and report do: the catalog keeps the data, and
				// the analysis is done again from its steps.
				if err := report.SweepReport(env.Stdout, analysis.Analyze(sw, analysis.OptionsOf(sw)), report.Text); err != nil {
					return wrapRun(err)
				}
				steps, err := sweepRuns(ctx, cat, sw)
				if err != nil {
					return wrapRun(err)
				}
				var keys []string
				for _, st := range steps {
					keys = append(keys, fmt.Sprintf("  %s (%s)", st.Key, st.SweepStep))
				}
				if len(keys) > 0 {
					fmt.Fprintf(env.Stdout, "\nits runs in the catalog:\n%s\n", strings.Join(keys, "\n"))
				}
				return nil
			}
			r, e, err := cat.Get(ctx, ref.Key)
			if err != nil {
				return wrapRun(err)
			}
			fmt.Fprintf(env.Stdout, "run %s, recorded %s%s\n", e.Key, e.Recorded.Format(time.RFC3339), fromFile(e.Path))
			if st, step := studyOf(e.Label); st != "" {
				// The study's step, less the sweep step its label ends
				// with (said on the next line): "step rate", not
				// "step rate rate 2x".
				if e.SweepStep != "" && strings.HasSuffix(step, " "+e.SweepStep) {
					step = strings.TrimSuffix(step, " "+e.SweepStep)
				}
				fmt.Fprintf(env.Stdout, "study %s, step %s\n", st, step)
			}
			if e.SweepID != "" {
				fmt.Fprintf(env.Stdout, "sweep step %q of sweep %s (history show %s-%s-sweep)\n", e.SweepStep, e.SweepID, e.SweepID, e.Workload)
			}
			if !recordsServer(r) { // the summary names them otherwise
				for i, tg := range e.Targets {
					fmt.Fprintf(env.Stdout, "target: %s (%s)\n", tg, distinct(e.Servers[i:min(i+1, len(e.Servers))]))
				}
			}
			all.Upgrade(r)
			return wrapRun(report.Summary(env.Stdout, r))
		},
	}
}

// recordsServer reports a result that names its servers itself (written
// since server_product was recorded): its summary shows them.
func recordsServer(r *result.Run) bool {
	for _, in := range r.Instances {
		if in.ServerProduct != "" {
			return true
		}
	}
	return r.Machine != nil
}

func fromFile(path string) string {
	if path == "" {
		return ""
	}
	return " from " + path
}

func historyDelete(env *Env, open catalogOpener) *cobra.Command {
	return &cobra.Command{
		Use:   "delete KEY",
		Short: "Delete one run or sweep from the catalog (its key or a unique prefix; a sweep's runs are kept)",
		Args:  oneKey("delete"),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			cat, ref, err := resolve(ctx, open, "delete", args[0])
			if err != nil {
				return err
			}
			defer cat.Close()
			if err := cat.Delete(ctx, ref.Key); err != nil {
				return wrapRun(err)
			}
			if ref.Kind == history.KindSweep {
				fmt.Fprintf(env.Stdout, "deleted sweep %s (the runs of its steps are kept)\n", ref.Key)
			} else {
				fmt.Fprintf(env.Stdout, "deleted run %s\n", ref.Key)
			}
			return nil
		},
	}
}

// readResultOrSweep reads a result file or a sweep file (told apart by the
// sweep's "axis" and "steps").
func readResultOrSweep(path string) (*result.Run, *result.Sweep, error) {
	b, err := session.ReadFile(path) // at most result.MaxFileSize, no devices
	if err != nil {
		return nil, nil, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, nil, fmt.Errorf("%s is not JSON: %w", path, err)
	}
	_, axis := keys["axis"]
	_, steps := keys["steps"]
	if axis && steps {
		sw, err := decodeSweep(path, b)
		return nil, sw, err
	}
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil, nil
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
			cat, err := open(ctx)
			if err != nil {
				return wrapRun(err)
			}
			defer cat.Close()
			failed := 0
			for _, path := range args {
				if err := importFile(ctx, env.Stdout, cat, path); err != nil {
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

func importFile(ctx context.Context, w io.Writer, cat *history.Catalog, path string) error {
	r, sw, err := readResultOrSweep(path)
	if err != nil {
		return err
	}
	kind, key := "run", ""
	if sw != nil {
		kind, key = "sweep", history.SweepKey(sw)
	} else {
		key = history.Key(r)
	}
	has, err := cat.Has(ctx, key)
	if err != nil {
		return err
	}
	if has {
		fmt.Fprintf(w, "already in the catalog: %s %s (%s)\n", kind, key, path)
		return nil
	}
	if sw != nil {
		err = cat.RecordSweep(ctx, sw, absPath(path))
	} else {
		err = cat.Record(ctx, r, absPath(path))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "imported %s %s (%s)\n", kind, key, path)
	return nil
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
			ctx := c.Context()
			var cat *history.Catalog
			defer func() {
				if cat != nil {
					cat.Close()
				}
			}()
			catalog := func() (*history.Catalog, error) {
				if cat != nil {
					return cat, nil
				}
				var err error
				cat, err = open(ctx)
				return cat, err
			}
			base, cand, err := compareBoth(ctx, env.Stdout, args, catalog)
			if err != nil {
				return err
			}
			sd := compareSides(base, cand)
			if err := sd.write(env.Stdout); err != nil {
				return wrapRun(err)
			}
			for _, d := range sd.differs {
				fmt.Fprintf(env.Stderr, "rightsize: history compare: warning: the baseline and the candidate ran %s\n", differently(d))
			}
			if failIf.set && len(sd.unfair) > 0 && !force {
				return usagef("history compare: --fail-if-slower will not judge runs of different %s: compare like with like, or give --force", strings.Join(sd.unfair, " and "))
			}
			cmp := analysis.Compare(base, cand, rounds, seed)
			if err := writeComparison(env.Stdout, cmp); err != nil {
				return wrapRun(err)
			}
			if !failIf.set {
				return nil
			}
			if cmp.Regressed(failIf.pct) {
				return runError{fmt.Errorf("history compare: the candidate is slower than the baseline by more than %s (--fail-if-slower)", failIf.String())}
			}
			// A gate that cannot see must not pass silently.
			for _, name := range []string{"throughput", "p99"} {
				if m := cmp.Metric(name); m.Verdict == analysis.NotEnoughData {
					return runError{fmt.Errorf("history compare: --fail-if-slower cannot tell: %s has too few samples (%d baseline, %d candidate; 2 a side needed): repeat the runs, or run them longer than a few report intervals",
						name, m.BaseN, m.CandN)}
				}
			}
			fmt.Fprintf(env.Stdout, "no regression beyond %s\n", failIf.String())
			return nil
		},
	}
	cmd.Flags().Var(&failIf, "fail-if-slower", "exit 1 when throughput fell, or p99 rose, by more than this percentage with 95 % confidence (e.g. 5%)")
	cmd.Flags().BoolVar(&force, "force", false, "with --fail-if-slower, judge runs of different workloads, load or options too")
	cmd.Flags().IntVar(&rounds, "rounds", analysis.DefaultRounds, "bootstrap resampling rounds")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "the bootstrap's random seed (the same seed gives the same intervals)")
	return cmd
}

// compareSide loads one side of a comparison: a result file, else a run
// whose key is exactly arg, else the runs labelled arg, else the run whose
// key starts with arg. It returns the runs and a description of them.
func compareSide(ctx context.Context, arg string, catalog func() (*history.Catalog, error)) ([]*result.Run, string, error) {
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		r, sw, err := readResultOrSweep(arg)
		if err != nil {
			return nil, "", runError{fmt.Errorf("history compare: %w", err)}
		}
		if sw != nil {
			return nil, "", usagef("history compare: %s is a sweep file; compare runs (result files, keys or labels)", arg)
		}
		return []*result.Run{r}, fmt.Sprintf("%s (%s)", arg, describeRun(r)), nil
	}
	cat, err := catalog()
	if err != nil {
		return nil, "", err
	}
	has, err := cat.Has(ctx, arg)
	if err != nil {
		return nil, "", err
	}
	if !has {
		es, err := cat.List(ctx, history.Filter{Label: arg})
		if err != nil {
			return nil, "", err
		}
		if len(es) > 0 {
			var runs []*result.Run
			workloads := map[string]bool{}
			for _, e := range es {
				r, _, err := cat.Get(ctx, e.Key)
				if err != nil {
					return nil, "", err
				}
				runs = append(runs, r)
				workloads[r.Workload] = true
			}
			names := make([]string, 0, len(workloads))
			for w := range workloads {
				names = append(names, w)
			}
			return runs, fmt.Sprintf("label %q: %d run(s) of %s", arg, len(runs), strings.Join(names, ", ")), nil
		}
	}
	ref, err := resolveKey(ctx, cat, arg)
	if err != nil {
		return nil, "", runError{fmt.Errorf("history compare: %q is not a result file, a run's key or a label in %s: %w", arg, cat, err)}
	}
	if ref.Kind == history.KindSweep {
		return nil, "", usagef("history compare: %s is a sweep; compare runs (its steps' keys: history show %s)", ref.Key, ref.Key)
	}
	r, e, err := cat.Get(ctx, ref.Key)
	if err != nil {
		return nil, "", err
	}
	return []*result.Run{r}, fmt.Sprintf("%s (%s)", e.Key, describeRun(r)), nil
}

// compareBoth loads the baseline and the candidate (args), refusing a run
// on both sides, and writes what each side is.
func compareBoth(ctx context.Context, w io.Writer, args []string, catalog func() (*history.Catalog, error)) (base, cand []*result.Run, err error) {
	base, baseDesc, err := compareSide(ctx, args[0], catalog)
	if err != nil {
		return nil, nil, wrapRun(err)
	}
	cand, candDesc, err := compareSide(ctx, args[1], catalog)
	if err != nil {
		return nil, nil, wrapRun(err)
	}
	if err := sameRunTwice(args, base, cand); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "baseline:  %s\ncandidate: %s\n\n", baseDesc, candDesc)
	return base, cand, nil
}

// sameRunTwice refuses (exit 2, naming both arguments) a run on both
// sides of a comparison, as report refuses the same measurement named
// twice: by the same file, a copy, its key or a label that shares it.
func sameRunTwice(args []string, sides ...[]*result.Run) error {
	var seen seenOnce
	for i, runs := range sides {
		for _, r := range runs {
			if err := seen.once("history compare", args[i], "run", r.ID, runKey(r), "a run compared with itself shows no change"); err != nil {
				return err
			}
		}
	}
	return nil
}

func describeRun(r *result.Run) string {
	s := r.Workload
	if r.Label != "" {
		s += fmt.Sprintf(" %q", r.Label)
	}
	return s + ", " + r.Started.UTC().Format("2006-01-02 15:04 UTC")
}

// differently words a difference of sides: "on different servers (...)",
// "different options (...)".
func differently(d string) string {
	if strings.HasPrefix(d, "servers") || strings.HasPrefix(d, "targets") {
		return "on different " + d
	}
	if strings.HasPrefix(d, "load") {
		return "a different " + d
	}
	return "different " + d
}

// writeComparison writes a comparison as a table: metric, baseline,
// candidate, change, 95 % interval, verdict; then the overall verdict and
// the notes. The baseline and candidate are each side's own figures (a
// run's percentiles from its merged histogram); with the intervals basis
// the interval is of the change in the per-interval means, shown beside it
// (INTERVAL CHANGE), which is not the change of the runs' figures.
func writeComparison(w io.Writer, c analysis.Comparison) error {
	byIntervals := c.Basis != analysis.BasisRuns
	if byIntervals {
		fmt.Fprintf(w, "figures: each side's own (throughput over its measured window, percentiles from its merged histogram)\n")
		fmt.Fprintf(w, "95%% intervals: bootstrap over the runs' measured report intervals, of the change in the per-interval means (INTERVAL CHANGE), %d rounds, seed %d\n\n", c.Rounds, c.Seed)
	} else {
		fmt.Fprintf(w, "figures: the mean of each side's runs' own figures (a run's percentiles from its merged histogram)\n")
		fmt.Fprintf(w, "95%% intervals: bootstrap over runs (%d baseline, %d candidate), %d rounds, seed %d\n\n", c.BaseRuns, c.CandRuns, c.Rounds, c.Seed)
	}
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	head := "METRIC\tBASELINE\tCANDIDATE\tCHANGE\t"
	if byIntervals {
		head += "INTERVAL CHANGE\t"
	}
	fmt.Fprintf(tw, "%s95%% CI\tVERDICT\n", head)
	for _, m := range c.Metrics {
		name := m.Name + " ms"
		if m.HigherIsBetter {
			name = m.Name + " /s"
		}
		ci := "-"
		if !math.IsNaN(m.CILowPct) {
			ci = fmt.Sprintf("%s to %s", signedPct(m.CILowPct), signedPct(m.CIHighPct))
		}
		row := fmt.Sprintf("%s\t%s\t%s\t%s\t", name, num2(m.Base), num2(m.Cand), signedPct(m.ChangePct))
		if byIntervals {
			row += signedPct(m.SampleChangePct) + "\t"
		}
		fmt.Fprintf(tw, "%s%s\t%s\n", row, ci, m.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\noverall: %s (%s; lower latency is faster)\n", c.Verdict, c.Reason)
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
}

func signedPct(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", x)
}
