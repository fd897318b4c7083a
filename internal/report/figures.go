package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// A workload's own figures (result.Figures) are rendered here without
// knowing the workload: the headline on the title's line (or, for figures
// meant to be set side by side, as a table with one row per figure), then
// the workload's tables, the details' line, the checks' line and the notes:
//
//	TPC-C, 10 warehouse(s), 100 terminal(s), think scale 1: tpmC 1210, NOPM 1198, all transactions 2690/min, efficiency 94.1%, ceiling 1286 tpmC
//	   transaction  count  mix %  ...
//	rolled back New-Orders 1.02%, remote order lines 0.99%, ...
//	limit checks: 8 of 9 met; not met: delivery p90 5100.00 ms (limit 5000 ms)
//	note: Delivery runs inline ...

// figures writes the run's own figures in its summary; nothing without any.
func figures(ew *errWriter, r *result.Run) {
	f := r.Figures
	if f == nil {
		return
	}
	switch line := figureLine(f.Headline); {
	case f.Column != "":
		ew.printf("\n")
		across(ew, []*result.Run{r}, Text)
	case f.Title != "" && line != "":
		ew.printf("\n%s: %s\n", f.Title, line)
	case f.Title != "" || line != "":
		ew.printf("\n%s%s\n", f.Title, line)
	}
	for _, t := range f.Tables {
		if t.Title != "" {
			ew.printf("%s:\n", t.Title)
		}
		table{head: t.Columns, rows: t.Rows}.write(ew, Text, true)
	}
	if len(f.Details) > 0 {
		ew.printf("%s\n", figureLine(f.Details))
	}
	if len(f.Checks) > 0 {
		ew.printf("%s\n", checksLine(f.Checks))
	}
	for _, n := range f.Notes {
		ew.printf("note: %s\n", n)
	}
}

// unitAfter is how a unit follows a number or a name: "%" and "/min" stick
// to it, words are a space apart.
func unitAfter(unit string) string {
	if unit == "" || strings.HasPrefix(unit, "%") || strings.HasPrefix(unit, "/") {
		return unit
	}
	return " " + unit
}

// figureText is "name value unit": "tpmC 1210", "efficiency 94.1%",
// "read p99 0.250 ms".
func figureText(f result.Figure) string {
	return f.Name + " " + number(f.Value, f.Decimals) + unitAfter(f.Unit)
}

// figureLabel is a figure's row label in a table: "read p99 ms", "IOPS".
func figureLabel(f result.Figure) string { return f.Name + unitAfter(f.Unit) }

// figureLine joins figures with commas.
func figureLine(fs []result.Figure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = figureText(f)
	}
	return strings.Join(parts, ", ")
}

// checksLine counts the checks met and names the others with their limits:
//
//	limit checks: 7 of 9 met; not met: payment mix 42.75% (minimum 43%), delivery p90 5100.00 ms (limit 5000 ms)
func checksLine(cs []result.Check) string {
	var failed []string
	for _, c := range cs {
		if c.OK {
			continue
		}
		bound := "limit"
		if c.Min {
			bound = "minimum"
		}
		failed = append(failed, fmt.Sprintf("%s %s%s (%s %s%s)", c.Name, number(c.Got, c.Decimals), unitAfter(c.Unit),
			bound, strconv.FormatFloat(c.Limit, 'f', -1, 64), unitAfter(c.Unit)))
	}
	line := fmt.Sprintf("limit checks: %d of %d met", len(cs)-len(failed), len(cs))
	if len(failed) > 0 {
		line += "; not met: " + strings.Join(failed, ", ")
	}
	return line
}

// acrossSteps tells whether runs' figures are to be set side by side: every
// run has figures that name their column.
func acrossSteps(runs []*result.Run) bool {
	for _, r := range runs {
		if r.Figures == nil || r.Figures.Column == "" {
			return false
		}
	}
	return len(runs) > 0
}

// across writes runs' headline figures side by side, the first run's title
// above: one column per run (its figures' Column), one row per figure in
// the order the runs list them, then the host's figures. It is the seed
// studies' storage table:
//
//	t1 o32 b16k, random, direct I/O, engine io_uring, one volume:
//	   metric  100% read  70% read
//	     IOPS      14756      8919
//	     ...
func across(ew *errWriter, runs []*result.Run, f Format) {
	t := acrossTable(runs)
	if t.title != "" {
		ew.printf("\n%s:\n", t.title)
	} else {
		ew.printf("\n")
	}
	t.write(ew, f, true)
}

// acrossTable is across's table, titled with the first run's figures'
// title.
func acrossTable(runs []*result.Run) table {
	t := table{title: runs[0].Figures.Title, head: []string{"metric"}}
	for _, r := range runs {
		t.head = append(t.head, r.Figures.Column)
	}
	// The rows in the runs' order: a figure one run lacks comes where the
	// others place it (before the next figure of theirs), and a run that
	// lacks it or has no value for it (NaN: it does not apply) shows "-".
	// A row no run has a value for is left out.
	var names []string
	label := map[string]string{}
	for _, r := range runs {
		hl := r.Figures.Headline
		for i, fig := range hl {
			if slices.Contains(names, fig.Name) {
				continue
			}
			at := len(names)
			for _, next := range hl[i+1:] {
				if k := slices.Index(names, next.Name); k >= 0 {
					at = k
					break
				}
			}
			names = slices.Insert(names, at, fig.Name)
			label[fig.Name] = figureLabel(fig)
		}
	}
	for _, name := range names {
		line, any := []string{label[name]}, false
		for _, r := range runs {
			cell := "-"
			if fig, ok := r.Figures.Find(name); ok && !math.IsNaN(fig.Value) && !math.IsInf(fig.Value, 0) {
				cell, any = number(fig.Value, fig.Decimals), true
			}
			line = append(line, cell)
		}
		if any {
			t.rows = append(t.rows, line)
		}
	}
	row := func(name string, val func(h *result.Host) (float64, bool), format string) {
		line, any := []string{name}, false
		for _, r := range runs {
			if r.Host == nil {
				line = append(line, "-")
				continue
			}
			if v, ok := val(r.Host); ok {
				line = append(line, fmt.Sprintf(format, v))
				any = true
			} else {
				line = append(line, "-")
			}
		}
		if any {
			t.rows = append(t.rows, line)
		}
	}
	row("host CPU busy %", func(h *result.Host) (float64, bool) { return h.CPU.User + h.CPU.System, true }, "%.0f")
	row("host iowait %", func(h *result.Host) (float64, bool) { return h.CPU.Iowait, true }, "%.0f")
	row("host steal %", func(h *result.Host) (float64, bool) { return h.CPU.Steal, h.CPU.Steal > 0 }, "%.0f")
	row("busiest disk util %", func(h *result.Host) (float64, bool) {
		best, ok := 0.0, false
		for _, d := range h.Disks {
			best, ok = max(best, d.UtilPct), true
		}
		return best, ok
	}, "%.0f")
	return t
}

// figureBlock is a workload's figures on the HTML page: a title (the
// headline figures in a line), tables, lines (details, limit checks) and
// notes.
type figureBlock struct {
	Title  string
	Tables []tableView
	Lines  []string
	Notes  []string
}

// runFigures are the report's runs' own figures for the HTML page: set
// side by side when they are meant to be (fileio's read mixes: one table,
// a column per run); a single run's whole (its headline, tables, details,
// checks and notes, as the text summary writes them); several runs' (a
// sweep's steps) headline figures and checks, one row per run.
func runFigures(runs []*result.Run) []figureBlock {
	if acrossSteps(runs) {
		t := acrossTable(runs)
		title := t.title
		t.title = ""
		return []figureBlock{{Title: title, Tables: tableViews([]table{t})}}
	}
	if len(runs) == 1 {
		f := runs[0].Figures
		if f == nil || len(f.Headline)+len(f.Tables) == 0 {
			return nil
		}
		b := figureBlock{Title: strings.TrimPrefix(f.Title+": "+figureLine(f.Headline), ": "), Notes: f.Notes}
		for _, t := range f.Tables {
			b.Tables = append(b.Tables, tableView{Title: t.Title, Head: t.Columns, Rows: t.Rows})
		}
		if len(f.Details) > 0 {
			b.Lines = append(b.Lines, figureLine(f.Details))
		}
		if len(f.Checks) > 0 {
			b.Lines = append(b.Lines, checksLine(f.Checks))
		}
		return []figureBlock{b}
	}
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = stepLabel(r, runName(r))
	}
	if t, ok := figureRows("", "run", names, runs); ok {
		return []figureBlock{{Tables: tableViews([]table{t})}}
	}
	return nil
}
