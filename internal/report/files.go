package report

import (
	"errors"
	"fmt"
	"io"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// Input is what rightsize report renders: the runs named on their own and
// the steps of the sweeps (Runs), those named on their own only
// (Results), the sweeps analysed and named (Configs; two or more are one
// comparison of their configurations), and a plan.
type Input struct {
	Runs, Results []*result.Run
	Configs       []analysis.Candidate
	Plan          *sizing.Report
}

// Options are how Input is rendered: the format, the order of the runs'
// or configurations' table (SortBy), a comparison's step (At), the HTML
// page's title ("": one made of what is reported) and the tool that wrote
// it.
type Options struct {
	Format                  Format
	SortBy, At, Title, Tool string
}

// ErrAsked marks what cannot be rendered as asked (the options and the
// inputs do not go together, or nothing is left to tabulate): an error of
// the command line.
var ErrAsked = errors.New("cannot be reported as asked")

// asked is an error of what was asked: its message is err's, and it is
// ErrAsked.
type asked struct{ err error }

func (a asked) Error() string   { return a.err.Error() }
func (a asked) Unwrap() []error { return []error{a.err, ErrAsked} }

// Render writes in as o asks: one sweep (with the runs, the plan) as its
// document, several as one comparison of their configurations at o.At.
// Options that do not go with the input are ErrAsked, and so is nothing
// to tabulate in a table format.
func Render(w io.Writer, in Input, o Options) error {
	if len(in.Configs) > 1 {
		return renderConfigs(w, in, o)
	}
	if o.At != "" {
		return asked{errors.New("report: --at picks the step of a comparison: name two sweep files or more")}
	}
	rows := RunRows(in.Runs)
	if err := SortRuns(rows, o.SortBy); err != nil {
		return asked{err}
	}
	var sw *analysis.Result
	if len(in.Configs) > 0 {
		sw = in.Configs[0].Sweep
	}
	if o.Format == HTMLPage {
		return HTML(w, Doc{Title: pageTitle(o.Title, sw, in.Runs), Runs: in.Runs, Sweep: sw, Plan: in.Plan, Tool: o.Tool})
	}
	return fileTables(w, sw, in.Plan, rows, in.Runs, o.Format)
}

// renderConfigs writes several sweeps as one comparison of their
// configurations at o.At; sweeps that cannot be overlaid (different
// workloads or axes) or an At they do not share are ErrAsked.
func renderConfigs(w io.Writer, in Input, o Options) error {
	c, err := analysis.CompareConfigs(in.Configs, o.At)
	if err != nil {
		return asked{fmt.Errorf("report: %w", err)}
	}
	if err := SortConfigs(c.Rows, o.SortBy); err != nil {
		return asked{err}
	}
	f := o.Format
	if f == HTMLPage {
		return CompareHTML(w, CompareDoc{Title: o.Title, Comparison: c, Runs: in.Results, Plan: in.Plan, Tool: o.Tool})
	}
	if err := CompareReport(w, c, f); err != nil {
		return err
	}
	if len(in.Results) > 0 && f != CSV {
		fmt.Fprintln(w)
		if err := RunTable(w, RunRows(in.Results), f); err != nil {
			return err
		}
	}
	if in.Plan != nil && f != CSV {
		return Plan(w, in.Plan, f)
	}
	return nil
}

// pageTitle is the HTML page's title: the one given, else what is reported.
func pageTitle(given string, sw *analysis.Result, runs []*result.Run) string {
	switch {
	case given != "":
		return given
	case sw != nil:
		return fmt.Sprintf("%s sweep over %s", sw.Workload, sw.Axis)
	case len(runs) == 1:
		return runs[0].Workload + " run " + runs[0].ID
	}
	return "rightsize report"
}

// fileTables writes the Markdown, CSV or text tables of a sweep, the runs
// (rows, and each run's transaction types when there is no sweep, whose
// document has them by step) and a plan.
func fileTables(w io.Writer, sw *analysis.Result, p *sizing.Report, rows []RunRow, runs []*result.Run, f Format) error {
	wrote := false
	if sw != nil {
		var err error
		if f == CSV {
			err = SweepTable(w, sw, f)
		} else {
			err = SweepDocument(w, Doc{Sweep: sw, Plan: p}, f)
		}
		if err != nil {
			return err
		}
		wrote = true
	}
	if len(rows) > 0 && (sw == nil || f != CSV) {
		if wrote {
			fmt.Fprintln(w)
		}
		if err := RunTable(w, rows, f); err != nil {
			return err
		}
		if sw == nil && f != CSV {
			if err := runTypes(w, runs, f); err != nil {
				return err
			}
		}
		wrote = true
	}
	if p != nil && f != CSV {
		if err := Plan(w, p, f); err != nil {
			return err
		}
		wrote = true
	}
	if !wrote {
		return asked{errors.New("report: nothing to tabulate in these files for this format")}
	}
	return nil
}
