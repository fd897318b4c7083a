package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/plan"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// loaded is what the report command read from its files.
type loaded struct {
	// runs are the result files named and the steps of a single sweep;
	// results are the result files named only.
	runs, results []*result.Run
	// sweep is the sweep when one was named; sweeps are all of them.
	sweep  *analysis.Result
	sweeps []analysis.Config
	plan   *plan.Report
	// files are the paths of every file read (steps' results too), which
	// report -o may not write over.
	files []string
	// arg is the argument being loaded; seen, the argument that brought
	// each sweep and run (by id), so that none is counted twice.
	arg  string
	seen seenOnce
}

// loadFiles reads result files, sweep files (with their steps' result
// files) and a plan (rightsize plan --format json), telling them apart by
// their fields.
func loadFiles(paths []string) (loaded, error) {
	var l loaded
	for _, p := range paths {
		l.arg = p
		if err := l.addFile(p); err != nil {
			return l, err
		}
	}
	l.finish()
	return l, nil
}

// addFile reads a result file, a sweep file (with its steps' result files)
// or a plan, telling them apart by their fields; each is read as
// session.ReadFile reads (no more than result.MaxFileSize, no device).
func (l *loaded) addFile(p string) error {
	b, err := session.ReadFile(p)
	if err != nil {
		return runError{fmt.Errorf("report: %w", err)}
	}
	l.files = append(l.files, p)
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return runError{fmt.Errorf("report: %s is not JSON: %w", p, err)}
	}
	_, axis := keys["axis"]
	_, summary := keys["summary"]
	_, host := keys["host"]
	_, htGain := keys["ht_gain_pct"]
	switch {
	case axis:
		cf, err := l.loadSweep(p, b)
		if err != nil {
			return err
		}
		return l.addSweep(cf)
	case summary:
		r, err := decodeRun(p, b)
		if err != nil {
			return err
		}
		return l.addRun(r)
	case host && htGain:
		var pr plan.Report
		if err := json.Unmarshal(b, &pr); err != nil {
			return runError{fmt.Errorf("report: %s: %w", p, err)}
		}
		l.plan = &pr
	default:
		return runError{fmt.Errorf("report: %s is neither a result, a sweep nor a plan (rightsize plan --format json)", p)}
	}
	return nil
}

// addSweep adds a sweep with its steps' runs; a sweep (or one of its
// steps' runs) already loaded is refused.
func (l *loaded) addSweep(cf analysis.Config) error {
	if err := l.once("sweep", cf.Sweep.ID, cf.Sweep.ID+" "+cf.Sweep.Workload); err != nil {
		return err
	}
	for _, r := range cf.Runs {
		if err := l.once("run", r.ID, runKey(r)); err != nil {
			return err
		}
	}
	l.sweeps = append(l.sweeps, cf)
	l.runs = append(l.runs, cf.Runs...)
	return nil
}

// addRun adds a run named on its own; one already loaded (on its own or
// as a step of a sweep) is refused.
func (l *loaded) addRun(r *result.Run) error {
	if err := l.once("run", r.ID, runKey(r)); err != nil {
		return err
	}
	l.runs, l.results = append(l.runs, r), append(l.results, r)
	return nil
}

// runKey tells runs apart: the steps of a sweep share its id, and the
// shards of a run have ids of their own.
func runKey(r *result.Run) string { return r.ID + " " + r.Workload + " " + r.Label }

// once records that the current argument brought the sweep or run of id
// (told apart by key), refusing (exit 2) one that an argument brought
// already: the same measurement named twice would count as two (one sweep
// as two repeats of its configuration).
func (l *loaded) once(what, id, key string) error {
	return l.seen.once("report", l.arg, what, id, key, "it would count twice")
}

// seenOnce is the argument that brought each sweep and run (by "what key"),
// for the commands that refuse the same measurement named twice (report,
// history compare).
type seenOnce map[string]string

// once records that arg brought the sweep or run (what) of id, told apart
// by key, refusing (exit 2, naming both arguments, with why) one that an
// argument brought already: by the same file, a copy, its key or a label.
// Files of no id are not told apart.
func (s *seenOnce) once(verb, arg, what, id, key, why string) error {
	if id == "" {
		return nil
	}
	if *s == nil {
		*s = seenOnce{}
	}
	k := what + " " + key
	prev, ok := (*s)[k]
	if !ok {
		(*s)[k] = arg
		return nil
	}
	return usagef("%s: %s and %s are the same %s (id %s): %s; name each measurement once", verb, quoteArg(prev), quoteArg(arg), what, id, why)
}

// quoteArg is an argument as messages name it: quoted when it is empty or
// has spaces.
func quoteArg(a string) string {
	if a == "" || strings.ContainsAny(a, " \t") {
		return strconv.Quote(a)
	}
	return a
}

// finish sets the sweep once everything is loaded.
func (l *loaded) finish() {
	if len(l.sweeps) > 0 {
		l.sweep = l.sweeps[0].Sweep
	}
}

// loadSweep decodes the sweep file p (its bytes b), analyses it and reads
// its steps' result files (where the sweep recorded them, else beside it).
func (l *loaded) loadSweep(p string, b []byte) (analysis.Config, error) {
	data, err := decodeSweep(p, b)
	if err != nil {
		return analysis.Config{}, runError{fmt.Errorf("report: %w", err)}
	}
	return analyseSweep(data, func(st result.SweepStep) (*result.Run, error) {
		if st.Result == "" {
			return nil, nil
		}
		return l.readRun(st.Result, filepath.Join(filepath.Dir(p), filepath.Base(st.Result)))
	})
}

// errNoSteps is a sweep file that holds no step: nothing was measured, so
// there is nothing to report, analyse or plan from.
var errNoSteps = errors.New("a sweep with no steps: nothing to report")

// decodeSweep decodes the sweep file p (its bytes b), the one check every
// command that reads a sweep file shares (report, analyze, plan --from,
// history import, import --into): JSON of this build's schema version,
// with an axis and at least one step (errNoSteps). Its errors name p and
// not the command: the caller prefixes its own.
func decodeSweep(p string, b []byte) (*result.Sweep, error) {
	var sw result.Sweep
	if err := json.Unmarshal(b, &sw); err != nil {
		return nil, fmt.Errorf("%s is not a sweep file (rightsize sweep writes <id>-<workload>-sweep.json): %w", p, err)
	}
	if sw.SchemaVersion != result.SchemaVersion {
		return nil, fmt.Errorf("%s has schema version %d; this rightsize reads sweep files of schema version %d", p, sw.SchemaVersion, result.SchemaVersion)
	}
	if sw.Axis == "" && len(sw.Steps) == 0 {
		return nil, fmt.Errorf("%s is not a sweep file: it names no axis and has no steps (a run's result? report reads those)", p)
	}
	if sw.Axis == "" {
		return nil, fmt.Errorf("%s is not a sweep file: it names no axis", p)
	}
	if len(sw.Steps) == 0 {
		return nil, fmt.Errorf("%s: %w", p, errNoSteps)
	}
	return &sw, nil
}

// analyseSweep analyses a sweep and names its configuration, with the runs
// of its steps that stepRun finds (nil: the step has none).
func analyseSweep(data *result.Sweep, stepRun func(result.SweepStep) (*result.Run, error)) (analysis.Config, error) {
	sw := analysis.Analyze(data, analysis.OptionsOf(data))
	var runs []*result.Run
	for _, st := range sw.Steps {
		r, err := stepRun(st)
		if err != nil {
			return analysis.Config{}, err
		}
		if r != nil {
			runs = append(runs, r)
		}
	}
	return analysis.Config{Name: analysis.ConfigOf(data, runs), Sweep: sw, Runs: runs}, nil
}

// readRun is readRun, adding the file read to l.files.
func (l *loaded) readRun(paths ...string) (*result.Run, error) {
	r, p, err := readRunAt(paths...)
	if p != "" {
		l.files = append(l.files, p)
	}
	return r, err
}

// readRun decodes the first of paths that exists.
func readRun(paths ...string) (*result.Run, error) {
	r, _, err := readRunAt(paths...)
	return r, err
}

// readRunAt decodes the first of paths that exists (read as
// session.ReadFile reads), returning which it was.
func readRunAt(paths ...string) (*result.Run, string, error) {
	var firstErr error
	for _, p := range paths {
		b, err := session.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if err != nil {
			return nil, p, runError{fmt.Errorf("report: %w", err)}
		}
		r, err := decodeRun(p, b)
		return r, p, err
	}
	return nil, "", runError{fmt.Errorf("report: %w", firstErr)}
}

// decodeRun decodes the result file p (its bytes b), upgraded to this
// build's figures.
func decodeRun(p string, b []byte) (*result.Run, error) {
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, runError{fmt.Errorf("report: %s: %w", p, err)}
	}
	all.Upgrade(r)
	return r, nil
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
	rc := &reportCatalog{env: env, flag: o.history}
	defer rc.close()
	l, err := loadArgs(ctx, rc, args)
	if err != nil {
		return err
	}
	if o.out != "" && o.out != "-" {
		if err := checkOutput("report", "-o", o.out, reportOut, o.force, l.files); err != nil {
			return err
		}
		if f == report.Markdown {
			o.mark = markdownMarker
		}
	}
	if len(l.sweeps) > 1 {
		return writeConfigs(env, o, f, l)
	}
	if o.at != "" {
		return usagef("report: --at picks the step of a comparison: name two sweep files or more")
	}
	rows := report.RunRows(l.runs)
	if err := report.SortRuns(rows, o.sortBy); err != nil {
		return usageError{err}
	}
	var b bytes.Buffer
	if f == report.HTMLPage {
		if err := report.HTML(&b, report.Doc{Title: reportTitle(o.title, l), Runs: l.runs, Sweep: l.sweep, Plan: l.plan, Tool: "rightsize " + Version()}); err != nil {
			return runError{err}
		}
	} else if err := tables(&b, l, rows, f); err != nil {
		return err
	}
	return emit(env, o, b.Bytes())
}

// writeConfigs renders several sweeps as one comparison of their
// configurations at --at; sweeps that cannot be overlaid (different
// workloads or axes) or an --at they do not share are usage errors.
func writeConfigs(env *Env, o reportOptions, f report.Format, l loaded) error {
	c, err := analysis.CompareConfigs(l.sweeps, o.at)
	if err != nil {
		return usagef("report: %w", err)
	}
	if err := report.SortConfigs(c.Rows, o.sortBy); err != nil {
		return usageError{err}
	}
	var b bytes.Buffer
	if f == report.HTMLPage {
		d := report.CompareDoc{Title: o.title, Comparison: c, Runs: l.results, Plan: l.plan, Tool: "rightsize " + Version()}
		if err := report.CompareHTML(&b, d); err != nil {
			return runError{err}
		}
		return emit(env, o, b.Bytes())
	}
	if err := report.CompareReport(&b, c, f); err != nil {
		return runError{err}
	}
	if len(l.results) > 0 && f != report.CSV {
		fmt.Fprintln(&b)
		if err := report.RunTable(&b, report.RunRows(l.results), f); err != nil {
			return runError{err}
		}
	}
	if l.plan != nil && f != report.CSV {
		if err := report.Plan(&b, l.plan, f); err != nil {
			return runError{err}
		}
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

// reportTitle is the HTML page's title: --title, else what was loaded.
func reportTitle(title string, l loaded) string {
	switch {
	case title != "":
		return title
	case l.sweep != nil:
		return fmt.Sprintf("%s sweep over %s", l.sweep.Workload, l.sweep.Axis)
	case len(l.runs) == 1:
		return l.runs[0].Workload + " run " + l.runs[0].ID
	}
	return "rightsize report"
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
throughput; --sort config|throughput|avg|p99 reorders it. The step is --at:
a step label ("threads 8", "rate 2x") or an axis value ("8", "2x"); by
default the last step all the sweeps share. Then, where they apply: by
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
	cmd.Flags().StringVar(&o.at, "at", "", `a comparison's step: a step label ("threads 8", "rate 2x") or an axis value (default: the last step every sweep has)`)
	return cmd
}

// tables writes the Markdown, CSV or text tables of what was loaded.
func tables(w io.Writer, l loaded, rows []report.RunRow, f report.Format) error {
	wrote := false
	if sw := l.sweep; sw != nil {
		var err error
		if f == report.CSV {
			err = report.SweepTable(w, sw, f)
		} else {
			err = report.SweepDocument(w, report.Doc{Sweep: sw, Plan: l.plan}, f)
		}
		if err != nil {
			return err
		}
		wrote = true
	}
	if len(rows) > 0 && (l.sweep == nil || f != report.CSV) {
		if wrote {
			fmt.Fprintln(w)
		}
		if err := report.RunTable(w, rows, f); err != nil {
			return err
		}
		wrote = true
	}
	if p := l.plan; p != nil && f != report.CSV {
		if err := report.Plan(w, p, f); err != nil {
			return err
		}
		wrote = true
	}
	if !wrote {
		return usageError{errors.New("report: nothing to tabulate in these files for this format")}
	}
	return nil
}
