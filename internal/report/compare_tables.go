package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// A comparison's tables beyond the configuration table, as the seed
// studies tabulate their comparisons; each is there only where it applies:
//
//   - over instances, by instance count per configuration: the aggregate
//     throughput, its share per instance, avg and p99, and how evenly the
//     instances were served (the scaled-instances study's table);
//   - the workload's own headline figures at the compared step, one row per
//     configuration, with its limit checks (TPC-C's tpmC, NOPM, efficiency
//     and response-time limits: the device table of the TPC-C study);
//   - for figures set side by side (fileio's read mixes), each
//     configuration's pattern table: read mixes as columns, per volume,
//     per VM and per GB as rows (the storage study's table);
//   - each configuration's transaction types and what its database's
//     sessions did (wait classes, top wait, commits, server CPU) there.
//
// The tables know no workload: they read the results' generic figures.

// compareTables are the comparison's further tables, titled, in the order
// above.
func compareTables(c analysis.ConfigComparison) []table {
	var out []table
	if t, ok := instanceTable(c); ok {
		out = append(out, t)
	}
	if t, ok := figuresTable(c); ok {
		out = append(out, t)
	}
	if t, ok := typesCompareTable(c); ok {
		out = append(out, t)
	}
	if t, ok := waitsCompareTable(c); ok {
		out = append(out, t)
	}
	for _, row := range c.Rows {
		cf := c.ConfigNamed(row.Config)
		if acrossSteps(cf.Runs) {
			t := acrossTable(cf.Runs)
			if !strings.HasPrefix(t.title, cf.Name) { // "t1 o32 b4k" names its own table
				t.title = strings.TrimSuffix(cf.Name+": "+t.title, ": ")
			}
			out = append(out, t)
		}
	}
	return out
}

// instanceTable is the table by instance count (analysis.InstanceRows);
// false for another axis.
func instanceTable(c analysis.ConfigComparison) (table, bool) {
	rows := analysis.InstanceRows(c)
	if len(rows) == 0 {
		return table{}, false
	}
	t := table{title: "By instance count: the aggregate, per instance and how evenly the instances were served",
		head: []string{"configuration", "instances", "aggregate/s", "per instance/s", "avg ms", "p99 ms", "lowest/s", "highest/s", "spread (CoV %)"}}
	for _, r := range rows {
		line := []string{r.Config, trimFloat(r.Instances), groupedOr(r.Throughput, "-"), groupedOr(r.PerInstance, "-"), fixed(r.AvgMs, 3, "-"), fixed(r.P99Ms, 3, "-")}
		if f := r.Fairness; f != nil {
			line = append(line, Grouped(f.Min), Grouped(f.Max), fmt.Sprintf("%.1f", f.CoVPct))
		} else {
			line = append(line, "-", "-", "-")
		}
		t.rows = append(t.rows, line)
	}
	return t, true
}

// figuresTable is the workload's headline figures at the compared step,
// one row per configuration (in the rows' order), one column per figure
// in the order the results list them, and the limit checks; false when no
// configuration's result there has such figures (or they are meant to be
// set side by side: acrossTable).
func figuresTable(c analysis.ConfigComparison) (table, bool) {
	names := make([]string, len(c.Rows))
	runs := make([]*result.Run, len(c.Rows))
	for i, row := range c.Rows {
		names[i], runs[i] = row.Config, c.ConfigNamed(row.Config).RunAt(row.Step)
	}
	return figureRows(fmt.Sprintf("The workload's figures at %s", c.At), "configuration", names, runs)
}

// figureRows is a table of runs' headline figures, one row per run named
// by names (a nil run: "-" throughout), one column per figure in the order
// the runs list them, and their limit checks; false when no run has such
// figures (or they are meant to be set side by side: acrossTable).
func figureRows(title, first string, names []string, runs []*result.Run) (table, bool) {
	var figs []string
	label := map[string]string{}
	checks := false
	have := make([]*result.Run, len(runs))
	for i, r := range runs {
		if r == nil || r.Figures == nil || r.Figures.Column != "" || len(r.Figures.Headline) == 0 {
			continue
		}
		have[i] = r
		for _, f := range r.Figures.Headline {
			if !slices.Contains(figs, f.Name) {
				figs = append(figs, f.Name)
				label[f.Name] = figureLabel(f)
			}
		}
		checks = checks || len(r.Figures.Checks) > 0
	}
	if len(figs) == 0 {
		return table{}, false
	}
	t := table{title: title, head: []string{first}}
	for _, n := range figs {
		t.head = append(t.head, label[n])
	}
	if checks {
		t.head = append(t.head, "limit checks")
	}
	for i, name := range names {
		line := []string{name}
		r := have[i]
		for _, n := range figs {
			cell := "-"
			if r != nil {
				if f, ok := r.Figures.Find(n); ok && !math.IsNaN(f.Value) && !math.IsInf(f.Value, 0) {
					cell = number(f.Value, f.Decimals)
				}
			}
			line = append(line, cell)
		}
		if checks {
			cell := "-"
			if r != nil && len(r.Figures.Checks) > 0 {
				cell = strings.TrimPrefix(checksLine(r.Figures.Checks), "limit checks: ")
			}
			line = append(line, cell)
		}
		t.rows = append(t.rows, line)
	}
	return t, true
}

// tableView is a titled table for the HTML page.
type tableView struct {
	Title string
	Head  []string
	Rows  [][]string
	// TextLast: the last column is text (left, wrapped), not a number.
	TextLast bool
}

func tableViews(ts []table) []tableView {
	out := make([]tableView, len(ts))
	for i, t := range ts {
		out[i] = tableView{Title: t.title, Head: t.head, Rows: t.rows, TextLast: t.textLast}
	}
	return out
}

// tablesHTML is the template of compareTables in HTML: each table titled,
// in a scrolling box, its first column left.
const tablesHTML = `{{range .Tables}}<h2>{{.Title}}</h2>
<div class="scroll"><table class="figures"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}`
