package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// Transaction types (result.Summary.Types): one run's as a table with the
// slowest of the frequently used named above it, a sweep's as each type's
// p95 by step. A workload with one type (its event) gets neither: the
// headline is that type's figures.
//
//	transaction types (frequent: the 80 % of the mix; slowest of them by p95: New-Order):
//	  transaction  count  share %  avg ms  p95 ms  p99 ms  errors
//	  New-Order *   4521     45.0   12.10   30.20   41.00       0
//	  Payment *     4330     43.1    4.20    9.80   14.10       0
//	  Delivery       402      4.0   40.20   80.10   95.00       0

// typesTitle names the types table and the slowest of the frequently used.
func typesTitle(slowest string) string {
	t := fmt.Sprintf("transaction types (* frequent: the most used that make up %d %% of the mix)", result.FrequentPct)
	if slowest != "" {
		t += "; the slowest of the frequently used by p95: " + slowest
	}
	return t
}

// typesTable is a run's (or an instance's) transaction types, most used
// first, the frequent marked with *; ok is false with fewer than two.
func typesTable(types []result.Type, slowest string) (table, bool) {
	if len(types) < 2 {
		return table{}, false
	}
	t := table{title: typesTitle(slowest), head: []string{"transaction", "count", "share %", "avg ms", "p95 ms", "p99 ms", "errors"}}
	for _, ty := range types {
		name := ty.Name
		if ty.Frequent {
			name += " *"
		}
		t.rows = append(t.rows, []string{name, fmt.Sprint(ty.Count), fmt.Sprintf("%.1f", ty.SharePct),
			fmt.Sprintf("%.3f", ty.AvgMs), fmt.Sprintf("%.3f", ty.P95Ms), fmt.Sprintf("%.3f", ty.P99Ms), fmt.Sprint(ty.Errors)})
	}
	return t, true
}

// typesLines write a run's transaction types in its text summary.
func typesLines(ew *errWriter, s result.Summary) {
	t, ok := typesTable(s.Types, s.SlowestFrequent)
	if !ok {
		return
	}
	ew.printf("\n%s:\n", t.title)
	t.write(ew, Text, true)
}

// typeCells are the CSV columns of rows' transaction types, when some row
// has two or more: the slowest of the frequently used, then each type's
// share, p95 and p99 (types in the order the rows first list them); a cell
// is empty where a row lacks the type. None when no row has two types.
func typeCells(types [][]result.Type, slowest []string) (head []string, cells [][]string) {
	var names []string
	for _, ts := range types {
		if len(ts) < 2 {
			continue
		}
		for _, t := range ts {
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	cells = make([][]string, len(types))
	if len(names) == 0 {
		return nil, cells
	}
	head = []string{"slowest frequent"}
	for _, n := range names {
		head = append(head, n+" share %", n+" p95 ms", n+" p99 ms")
	}
	for i, ts := range types {
		row := []string{slowest[i]}
		if len(ts) < 2 {
			row[0] = ""
		}
		for _, n := range names {
			j := slices.IndexFunc(ts, func(t result.Type) bool { return t.Name == n })
			if j < 0 || len(ts) < 2 {
				row = append(row, "", "", "")
				continue
			}
			row = append(row, fmt.Sprintf("%.1f", ts[j].SharePct), fmt.Sprintf("%.3f", ts[j].P95Ms), fmt.Sprintf("%.3f", ts[j].P99Ms))
		}
		cells[i] = row
	}
	return head, cells
}

// runTypes writes each run's transaction types table (typesTable), titled
// with the run's name when there are several; nothing for runs of one type.
func runTypes(w io.Writer, runs []*result.Run, f Format) error {
	ew := &errWriter{w: w}
	for _, r := range runs {
		t, ok := typesTable(r.Summary.Types, r.Summary.SlowestFrequent)
		if !ok {
			continue
		}
		title := upper(t.title)
		if len(runs) > 1 {
			title = runName(r) + ": " + t.title
		}
		if f == Markdown {
			ew.printf("\n%s:\n\n", title)
		} else {
			ew.printf("\n%s:\n", title)
		}
		t.write(ew, f, true)
	}
	return ew.err
}

// typeSteps is a sweep's transaction types by step: each type's share of
// the mix (over the steps) and its p95 in each step, the step's slowest of
// the frequently used marked with *; ok is false when no step has two
// types or more. Types are in the order of the steps' use of them.
func typeSteps(sw *analysis.Result) (table, bool) {
	var names []string
	count := map[string]int64{}
	var total int64
	for _, st := range sw.Steps {
		for _, ty := range st.Types {
			if _, ok := count[ty.Name]; !ok {
				names = append(names, ty.Name)
			}
			count[ty.Name] += ty.Count
			total += ty.Count
		}
	}
	if len(names) < 2 {
		return table{}, false
	}
	t := table{title: "p95 response time (ms) of each transaction type by step; * the step's slowest of the frequently used",
		head: []string{"transaction", "share %"}}
	for i := range sw.Steps {
		t.head = append(t.head, stepName(sw, i))
	}
	for _, n := range names {
		row := []string{n, fmt.Sprintf("%.1f", 100*float64(count[n])/float64(max(total, 1)))}
		for _, st := range sw.Steps {
			cell := "-"
			for _, ty := range st.Types {
				if ty.Name == n && ty.Count > 0 {
					cell = fmt.Sprintf("%.3f", ty.P95Ms)
					if n == st.SlowestFrequent {
						cell += " *"
					}
				}
			}
			row = append(row, cell)
		}
		t.rows = append(t.rows, row)
	}
	return t, true
}

// typesCompareTable is the configurations' transaction types at the
// compared step: each type's p95, the configuration's slowest of the
// frequently used marked with *; false when no configuration has two
// types there.
func typesCompareTable(c analysis.ConfigComparison) (table, bool) {
	var names []string
	for _, r := range c.Rows {
		if len(r.Types) < 2 {
			continue
		}
		for _, t := range r.Types {
			if !slices.Contains(names, t.Name) {
				names = append(names, t.Name)
			}
		}
	}
	if len(names) == 0 {
		return table{}, false
	}
	t := table{title: fmt.Sprintf("Transaction types at %s: p95 ms; * the configuration's slowest of the frequently used", c.At),
		head: append([]string{"configuration"}, names...)}
	for _, r := range c.Rows {
		row := []string{r.Config}
		for _, n := range names {
			cell := "-"
			if j := slices.IndexFunc(r.Types, func(ty result.Type) bool { return ty.Name == n }); j >= 0 && r.Types[j].Count > 0 {
				cell = fmt.Sprintf("%.3f", r.Types[j].P95Ms)
				if n == r.SlowestFrequent {
					cell += " *"
				}
			}
			row = append(row, cell)
		}
		t.rows = append(t.rows, row)
	}
	return t, true
}

// stepName is a step's column head: its label, else its axis value.
func stepName(sw *analysis.Result, i int) string {
	if l := strings.TrimSpace(sw.Steps[i].Label); l != "" {
		return l
	}
	return axisLabel(sw, i)
}

// SweepTypes writes a sweep's transaction types by step (typeSteps) and
// its server's waits and top statements by step (waitSteps,
// statementSteps) as text or Markdown; nothing for a sweep with none.
func SweepTypes(w io.Writer, sw *analysis.Result, f Format) error {
	ew := &errWriter{w: w}
	sweepTypes(ew, sw, f)
	return ew.err
}

func sweepTypes(w *errWriter, sw *analysis.Result, f Format) {
	if sw.Search != nil {
		sweepTable(w, searchTable(sw.Search), f)
	}
	for _, mk := range []func(*analysis.Result) (table, bool){typeSteps, waitSteps, statementSteps} {
		if t, ok := mk(sw); ok {
			sweepTable(w, t, f)
		}
	}
}

// sweepTable writes one of a sweep's tables with its title.
func sweepTable(w *errWriter, t table, f Format) {
	if f == Markdown {
		w.printf("\n%s:\n\n", upper(t.title))
	} else {
		w.printf("\n%s:\n", t.title)
	}
	t.write(w, f, true)
}
