package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/rightsize/rightsize/internal/result"
)

// Format is how a table is written.
type Format int

const (
	Text     Format = iota // aligned columns for a terminal
	Markdown               // a GitHub-flavoured Markdown table
)

// HTMLPage is the self-contained HTML report (HTML), as a format name.
const HTMLPage Format = 4

// formatNames are the names --format takes, by format.
var formatNames = map[Format][]string{Text: {"text"}, Markdown: {"markdown", "md"}, JSON: {"json"}, CSV: {"csv"}, HTMLPage: {"html"}}

// ParseFormat reads a --format value, allowing only the given formats; the
// error lists their names.
func ParseFormat(name string, allowed ...Format) (Format, error) {
	var names []string
	for _, f := range allowed {
		for _, n := range formatNames[f] {
			if strings.EqualFold(name, n) {
				return f, nil
			}
		}
		names = append(names, formatNames[f][0])
	}
	return 0, fmt.Errorf("format %q: want %s", name, strings.Join(names, ", "))
}

// StepRow is one step of a sweep or of a command's steps: its headline
// figures and the host's, as the seed studies tabulate them.
type StepRow struct {
	Label               string
	Throughput          float64
	AvgMs, P95Ms, P99Ms float64
	// Errors counts the failed events, Retries the failed attempts of
	// events that were re-run, Deadlocks the deadlocks among both (a
	// throughput that collapsed under them shows errors 0 otherwise).
	Errors, Retries, Deadlocks int64
	Host                       *result.Host
	// Open: the step ran at a rate; Offered is its intended starts per
	// second, Late and Dropped its starts that began late or never.
	Open          bool
	Offered       float64
	Late, Dropped int64
	// Fairness is between the step's instances (nil for one).
	Fairness *result.Fairness
	// Types and Slowest are the step's transaction types and the slowest
	// of the frequently used (CSV: typeCells).
	Types   []result.Type
	Slowest string
	// Server is the database's own view of the step (CSV: serverCells).
	Server *result.ServerStats
}

// StepRowOf is a sweep step's row.
func StepRowOf(st result.SweepStep) StepRow {
	return StepRow{Label: st.Label, Throughput: st.Throughput, AvgMs: st.AvgMs, P95Ms: st.P95Ms, P99Ms: st.P99Ms,
		Errors: st.Errors, Retries: st.Retries, Deadlocks: st.Deadlocks,
		Host: st.Host, Open: st.Offered > 0, Offered: st.Offered, Late: st.Late, Dropped: st.Dropped, Fairness: st.Fairness,
		Types: st.Types, Slowest: st.SlowestFrequent, Server: st.ServerStats}
}

// openRows reports whether any row ran at a rate (the table then has the
// offered, late and dropped columns).
func openRows(rows []StepRow) bool {
	for _, r := range rows {
		if r.Open {
			return true
		}
	}
	return false
}

// openCells are a row's offered, late and dropped cells ("-" in the
// closed loop).
func openCells(r StepRow) []string {
	if !r.Open {
		return []string{"-", "-", "-"}
	}
	return []string{fmt.Sprintf("%.2f", r.Offered), fmt.Sprint(r.Late), fmt.Sprint(r.Dropped)}
}

// Steps writes the side-by-side table of a command's steps (fileio's read
// mixes, a sweep's steps): for runs whose workload figures are meant to be
// set side by side (result.Figures.Column, the seed studies' storage
// layout) one row per figure and one column per step; for others one row
// per step.
func Steps(w io.Writer, runs []*result.Run) error {
	return StepsAs(w, runs, Text)
}

// StepsAs is Steps in the given format.
func StepsAs(w io.Writer, runs []*result.Run, f Format) error {
	if len(runs) == 0 {
		return nil
	}
	if acrossSteps(runs) {
		ew := &errWriter{w: w}
		across(ew, runs, f)
		return ew.err
	}
	rows := make([]StepRow, len(runs))
	for i, r := range runs {
		s := r.Summary
		rows[i] = StepRow{Label: stepLabel(r, r.Label), Throughput: s.Throughput, AvgMs: s.Latency.AvgMs, P95Ms: s.Latency.P95Ms,
			P99Ms: s.Latency.P99Ms, Errors: s.Errors, Retries: s.Retries, Deadlocks: s.Deadlocks(), Host: r.Host,
			Open: r.Load.Mode == "open", Offered: s.Offered, Late: s.Late, Dropped: s.Dropped, Fairness: r.Fairness,
			Types: s.Types, Slowest: s.SlowestFrequent, Server: r.ServerStats}
	}
	return StepTable(w, rows, f)
}

// stepLabel names a run in a table of steps: a sweep's step by its own
// label (its sweep_step option, without the sweep's --label), else
// fallback.
func stepLabel(r *result.Run, fallback string) string {
	if step, ok := r.Options["sweep_step"].(string); ok && step != "" {
		return step
	}
	return fallback
}

// StepTable writes one row per step: throughput (and, when a step ran at a
// rate, the offered rate and the late and dropped starts), response times,
// errors, retries and deadlocks, and the host's CPU user/system/iowait/steal and run queue; then,
// where some step has them, the slowest and fastest instance's throughput
// and the instances' coefficient of variation, the CPU pressure, the most
// throttled cgroup's share of periods, and the hypervisor's host CPU, ready
// and co-stop (stepColumns).
func StepTable(w io.Writer, rows []StepRow, f Format) error {
	if f == CSV {
		return StepCSV(w, rows)
	}
	ew := &errWriter{w: w}
	if f == Text {
		ew.printf("\nsteps:\n")
	}
	open := openRows(rows)
	t := table{head: []string{"step", "throughput/s"}}
	if open {
		t.head = append(t.head, "offered/s", "late", "dropped")
	}
	t.head = append(t.head, "avg ms", "p95 ms", "p99 ms", "errors", "retries", "deadlocks", "cpu usr%", "sys%", "iowait%", "steal%", "run queue")
	extra := stepColumnsOf(rows)
	for _, c := range extra {
		t.head = append(t.head, c.head)
	}
	for _, r := range rows {
		line := []string{r.Label, fmt.Sprintf("%.2f", r.Throughput)}
		if open {
			line = append(line, openCells(r)...)
		}
		line = append(line, fmt.Sprintf("%.3f", r.AvgMs), fmt.Sprintf("%.3f", r.P95Ms), fmt.Sprintf("%.3f", r.P99Ms))
		line = append(line, r.counts()...)
		if h := r.Host; h != nil {
			line = append(line, fmt.Sprintf("%.0f", h.CPU.User), fmt.Sprintf("%.0f", h.CPU.System), fmt.Sprintf("%.0f", h.CPU.Iowait),
				fmt.Sprintf("%.0f", h.CPU.Steal), fmt.Sprint(h.RunQueue))
		} else {
			line = append(line, "-", "-", "-", "-", "-")
		}
		line = append(line, stepCells(r, extra, "%.1f", "-")...)
		t.rows = append(t.rows, line)
	}
	t.write(ew, f, false)
	return ew.err
}

// counts are a row's errors, retries and deadlocks cells.
func (r StepRow) counts() []string {
	return []string{fmt.Sprint(r.Errors), fmt.Sprint(r.Retries), fmt.Sprint(r.Deadlocks)}
}

// table is a header and rows of cells, written aligned or as Markdown;
// title, when set, is what the table is of (its caller writes it).
type table struct {
	title string
	head  []string
	rows  [][]string
	// textLast: the last column is text (a statement), aligned left in HTML.
	textLast bool
}

// write renders the table; firstLeft aligns the first column left (names)
// where the rest are numbers aligned right.
func (t table) write(ew *errWriter, f Format, firstLeft bool) {
	if f == Markdown {
		esc := func(cells []string) string {
			out := make([]string, len(cells))
			for i, c := range cells {
				out[i] = strings.ReplaceAll(c, "|", `\|`)
			}
			return "| " + strings.Join(out, " | ") + " |\n"
		}
		ew.printf("%s", esc(t.head))
		align := make([]string, len(t.head))
		for i := range align {
			align[i] = "---:"
			if i == 0 && firstLeft {
				align[i] = ":---"
			}
		}
		ew.printf("|%s|\n", strings.Join(align, "|"))
		for _, r := range t.rows {
			ew.printf("%s", esc(r))
		}
		return
	}
	tw := tabwriter.NewWriter(ew, 2, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range append([][]string{t.head}, t.rows...) {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil && ew.err == nil {
		ew.err = err
	}
}
