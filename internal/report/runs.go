package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// RunRow is one run in the comparison table: the shape of the seed's device
// tables (device × TPS × average response time) and its scaled-VM tables.
type RunRow struct {
	Label, Workload, Target string
	Throughput              float64
	Unit                    string // "tps", "IOPS", "/s"
	AvgMs, P95Ms, P99Ms     float64
	Errors                  int64
	Instances               int
	ID                      string
	// Types and Slowest are the run's transaction types and the slowest of
	// the frequently used (CSV: typeCells).
	Types   []result.Type
	Slowest string
}

// RunRows turns results into comparison rows. A run with several instances
// names them all as its target (e.g. "4 × postgres://db1/sbtest_1, …"). A
// run whose workload names a primary figure (fileio's IOPS) shows it in
// place of the throughput, its name as the unit.
func RunRows(runs []*result.Run) []RunRow {
	rows := make([]RunRow, 0, len(runs))
	for _, r := range runs {
		row := RunRow{Label: r.Label, Workload: r.Workload, Throughput: r.Summary.Throughput, AvgMs: r.Summary.Latency.AvgMs,
			P95Ms: r.Summary.Latency.P95Ms, P99Ms: r.Summary.Latency.P99Ms, Errors: r.Summary.Errors, Instances: len(r.Instances), ID: r.ID,
			Types: r.Summary.Types, Slowest: r.Summary.SlowestFrequent}
		var primary result.Figure
		ok := false
		if f := r.Figures; f != nil && f.Primary != "" {
			primary, ok = f.Find(f.Primary)
		}
		switch {
		case ok:
			row.Unit, row.Throughput = primary.Name, primary.Value
		case r.Event == "transaction":
			row.Unit = "tps"
		default:
			row.Unit = r.Event + "/s"
		}
		if row.Label == "" {
			row.Label = r.ID
		}
		if len(r.Instances) > 0 {
			row.Target = r.Instances[0].Target
			if len(r.Instances) > 1 {
				row.Target = fmt.Sprintf("%d × %s, …", len(r.Instances), r.Instances[0].Target)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// SortColumns are the columns RunTable can sort by.
var SortColumns = []string{"label", "target", "throughput", "avg", "p95", "p99", "errors"}

// SortRuns orders rows by a column: names ascending, figures descending for
// throughput and ascending for response times and errors (best first).
func SortRuns(rows []RunRow, by string) error {
	var less func(a, b RunRow) bool
	switch by {
	case "", "none":
		return nil
	case "label":
		less = func(a, b RunRow) bool { return a.Label < b.Label }
	case "target":
		less = func(a, b RunRow) bool { return a.Target < b.Target }
	case "throughput":
		less = func(a, b RunRow) bool { return a.Throughput > b.Throughput }
	case "avg":
		less = func(a, b RunRow) bool { return a.AvgMs < b.AvgMs }
	case "p95":
		less = func(a, b RunRow) bool { return a.P95Ms < b.P95Ms }
	case "p99":
		less = func(a, b RunRow) bool { return a.P99Ms < b.P99Ms }
	case "errors":
		less = func(a, b RunRow) bool { return a.Errors < b.Errors }
	default:
		return fmt.Errorf("sort %q: want one of %s", by, strings.Join(SortColumns, ", "))
	}
	sort.SliceStable(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
	return nil
}

// CSV is a third table format (comma-separated values).
const CSV Format = 3

var runHeader = []string{"label", "workload", "target", "throughput", "unit", "avg ms", "p95 ms", "p99 ms", "errors", "instances"}

func (r RunRow) cells() []string {
	return []string{r.Label, r.Workload, r.Target, fmt.Sprintf("%.2f", r.Throughput), r.Unit, fmt.Sprintf("%.3f", r.AvgMs),
		fmt.Sprintf("%.3f", r.P95Ms), fmt.Sprintf("%.3f", r.P99Ms), fmt.Sprint(r.Errors), fmt.Sprint(r.Instances)}
}

// RunTable writes the comparison table across runs, one row per run, as
// text, Markdown or CSV.
func RunTable(w io.Writer, rows []RunRow, f Format) error {
	if f == CSV {
		cw := csv.NewWriter(w)
		types := make([][]result.Type, len(rows))
		slowest := make([]string, len(rows))
		for i, r := range rows {
			types[i], slowest[i] = r.Types, r.Slowest
		}
		head, cells := typeCells(types, slowest)
		if err := cw.Write(append(slices.Clone(runHeader), head...)); err != nil {
			return err
		}
		for i, r := range rows {
			if err := cw.Write(append(r.cells(), cells[i]...)); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	ew := &errWriter{w: w}
	t := table{head: runHeader}
	for _, r := range rows {
		t.rows = append(t.rows, r.cells())
	}
	t.write(ew, f, true)
	return ew.err
}

// StepCSV writes a sweep's or a command's steps as CSV, with the host's
// CPU columns (the same figures as StepTable).
func StepCSV(w io.Writer, rows []StepRow) error {
	cw := csv.NewWriter(w)
	head := []string{"step", "throughput", "offered", "late", "dropped", "avg ms", "p95 ms", "p99 ms", "errors", "retries", "deadlocks", "cpu user %", "cpu sys %", "iowait %", "steal %", "run queue"}
	extra := stepColumnsOf(rows)
	for _, c := range extra {
		head = append(head, c.head)
	}
	types := make([][]result.Type, len(rows))
	slowest := make([]string, len(rows))
	for i, r := range rows {
		types[i], slowest[i] = r.Types, r.Slowest
	}
	thead, tcells := typeCells(types, slowest)
	shead, scells := serverCells(rows)
	_ = cw.Write(append(append(head, thead...), shead...))
	for i, r := range rows {
		line := []string{r.Label, fmt.Sprintf("%.2f", r.Throughput), "", "", "", fmt.Sprintf("%.3f", r.AvgMs), fmt.Sprintf("%.3f", r.P95Ms),
			fmt.Sprintf("%.3f", r.P99Ms)}
		line = append(line, r.counts()...)
		line = append(line, "", "", "", "", "")
		if r.Open {
			line[2], line[3], line[4] = fmt.Sprintf("%.2f", r.Offered), fmt.Sprint(r.Late), fmt.Sprint(r.Dropped)
		}
		if h := r.Host; h != nil {
			line[11], line[12], line[13], line[14], line[15] = fmt.Sprintf("%.1f", h.CPU.User), fmt.Sprintf("%.1f", h.CPU.System),
				fmt.Sprintf("%.1f", h.CPU.Iowait), fmt.Sprintf("%.1f", h.CPU.Steal), fmt.Sprint(h.RunQueue)
		}
		_ = cw.Write(append(append(append(line, stepCells(r, extra, "%.2f", "")...), tcells[i]...), scells[i]...))
	}
	cw.Flush()
	return cw.Error()
}
