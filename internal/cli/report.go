package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/plan"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload/all"
)

// loaded is what the report command read from its files.
type loaded struct {
	runs  []*result.Run
	sweep *analysis.Result
	plan  *plan.Report
}

// loadFiles reads result files, a sweep file (with its steps' result
// files) and a plan (rightsize plan --format json), telling them apart by
// their fields.
func loadFiles(paths []string) (loaded, error) {
	var l loaded
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return l, runError{fmt.Errorf("report: %w", err)}
		}
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(b, &keys); err != nil {
			return l, runError{fmt.Errorf("report: %s is not JSON: %w", p, err)}
		}
		_, axis := keys["axis"]
		_, summary := keys["summary"]
		_, host := keys["host"]
		_, htGain := keys["ht_gain_pct"]
		switch {
		case axis:
			if l.sweep != nil {
				return l, usagef("report: one sweep file at a time (%s is a second)", p)
			}
			var data result.Sweep
			if err := json.Unmarshal(b, &data); err != nil || data.SchemaVersion != result.SchemaVersion {
				return l, runError{fmt.Errorf("report: %s is not a sweep file of schema version %d", p, result.SchemaVersion)}
			}
			sw := analysis.Analyze(&data, analysis.OptionsOf(&data))
			l.sweep = sw
			for _, st := range sw.Steps {
				if st.Result == "" {
					continue
				}
				r, err := readRun(st.Result, filepath.Join(filepath.Dir(p), filepath.Base(st.Result)))
				if err != nil {
					return l, err
				}
				l.runs = append(l.runs, r)
			}
		case summary:
			r, err := readRun(p)
			if err != nil {
				return l, err
			}
			l.runs = append(l.runs, r)
		case host && htGain:
			var pr plan.Report
			if err := json.Unmarshal(b, &pr); err != nil {
				return l, runError{fmt.Errorf("report: %s: %w", p, err)}
			}
			l.plan = &pr
		default:
			return l, runError{fmt.Errorf("report: %s is neither a result, a sweep nor a plan (rightsize plan --format json)", p)}
		}
	}
	return l, nil
}

// readRun decodes the first of paths that exists.
func readRun(paths ...string) (*result.Run, error) {
	var firstErr error
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		r, err := result.Decode(f)
		f.Close()
		if err != nil {
			return nil, runError{fmt.Errorf("report: %s: %w", p, err)}
		}
		all.Upgrade(r)
		return r, nil
	}
	return nil, runError{fmt.Errorf("report: %w", firstErr)}
}

// reportOptions are report's flags.
type reportOptions struct{ format, out, sortBy, title string }

// writeReport renders the result, sweep and plan files at paths to o.out
// (standard output when "" or "-"), in o.format.
func writeReport(env *Env, o reportOptions, paths []string) error {
	f, err := report.ParseFormat(o.format, report.HTMLPage, report.Markdown, report.CSV, report.Text)
	if err != nil {
		return usageError{err}
	}
	l, err := loadFiles(paths)
	if err != nil {
		return err
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
	if o.out == "" || o.out == "-" {
		_, err := env.Stdout.Write(b.Bytes())
		return err
	}
	if err := os.WriteFile(o.out, b.Bytes(), 0o644); err != nil {
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
	var format, out, sortBy, title string
	cmd := &cobra.Command{
		Use:   "report FILE...",
		Short: "Report result, sweep and plan files: a self-contained HTML page with charts, or Markdown, CSV or text tables",
		Long: `Report result files, a sweep file (with its steps' results) and a plan
(rightsize plan --format json) from disk, with no database:

  --format html   one self-contained file (inline SVG charts, no script, opens
                  offline): the step table and the verdict, response time bars
                  with the host's CPU as lines, throughput with the USL fit and
                  the knee, each run's throughput and p99 over time (warm-up
                  shaded), each operation's latency percentiles, the plan and
                  the parameters;
  --format md|csv|text
                  the tables: a sweep's steps, and one row per result file
                  (label, target, throughput, avg, p95, p99, errors), sortable
                  with --sort.`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("report: name at least one result, sweep or plan file")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			return writeReport(env, reportOptions{format: format, out: out, sortBy: sortBy, title: title}, args)
		},
	}
	cmd.Flags().StringVar(&format, "format", "html", "html, md, csv or text")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the report to this file (default: standard output)")
	cmd.Flags().StringVar(&sortBy, "sort", "", "sort the runs table by label, target, throughput, avg, p95, p99 or errors (best first)")
	cmd.Flags().StringVar(&title, "title", "", "the HTML report's title")
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
			err = report.SweepReport(w, sw, f)
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
