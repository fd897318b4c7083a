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
	Errors              int64
	Host                *result.Host
}

// Steps writes the side-by-side table of a command's steps (fileio's read
// mixes, a sweep's steps): for storage runs the seed studies' layout, one
// row per metric and one column per step; for others one row per step.
func Steps(w io.Writer, runs []*result.Run) error {
	return StepsAs(w, runs, Text)
}

// StepsAs is Steps in the given format.
func StepsAs(w io.Writer, runs []*result.Run, f Format) error {
	if len(runs) == 0 {
		return nil
	}
	storage := true
	for _, r := range runs {
		storage = storage && r.FileIO != nil
	}
	if !storage {
		rows := make([]StepRow, len(runs))
		for i, r := range runs {
			s := r.Summary
			rows[i] = StepRow{Label: r.Label, Throughput: s.Throughput, AvgMs: s.Latency.AvgMs, P95Ms: s.Latency.P95Ms,
				P99Ms: s.Latency.P99Ms, Errors: s.Errors, Host: r.Host}
		}
		return StepTable(w, rows, f)
	}
	ew := &errWriter{w: w}
	f0 := runs[0].FileIO
	scope := "one volume"
	if n := len(runs[0].Instances); n > 1 {
		scope = fmt.Sprintf("%d volumes added up (per VM and per GB: per volume)", n)
	}
	ew.printf("\n%s, %s, %s, engine %s, %s:\n", f0.Pattern, randomWord(f0.Random), directWord(f0.Direct), f0.Engine, scope)
	t := table{head: []string{"metric"}}
	for _, r := range runs {
		t.head = append(t.head, fmt.Sprintf("%d%% read", r.FileIO.ReadPct))
	}
	row := func(name string, val func(r *result.Run) (float64, bool), format string) {
		line, any := []string{name}, false
		for _, r := range runs {
			if v, ok := val(r); ok {
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
	ioFig := func(get func(f *result.FileIO) (float64, bool)) func(r *result.Run) (float64, bool) {
		return func(r *result.Run) (float64, bool) { return get(r.FileIO) }
	}
	has := func(n int64) bool { return n > 0 }
	row("IOPS", ioFig(func(f *result.FileIO) (float64, bool) { return f.Total.IOPS, true }), "%.0f")
	row("MB/s", ioFig(func(f *result.FileIO) (float64, bool) { return f.Total.MBps, true }), "%.1f")
	row("MiB/s", ioFig(func(f *result.FileIO) (float64, bool) { return f.Total.MiBps, true }), "%.1f")
	row("read avg ms", ioFig(func(f *result.FileIO) (float64, bool) { return f.Read.Latency.AvgMs, has(f.Read.Count) }), "%.3f")
	row("read p99 ms", ioFig(func(f *result.FileIO) (float64, bool) { return f.Read.Latency.P99Ms, has(f.Read.Count) }), "%.3f")
	row("write avg ms", ioFig(func(f *result.FileIO) (float64, bool) { return f.Write.Latency.AvgMs, has(f.Write.Count) }), "%.3f")
	row("write p99 ms", ioFig(func(f *result.FileIO) (float64, bool) { return f.Write.Latency.P99Ms, has(f.Write.Count) }), "%.3f")
	derived := func(get func(d *result.Derived) float64) func(r *result.Run) (float64, bool) {
		return func(r *result.Run) (float64, bool) {
			d := r.FileIO.Derived
			if d == nil || get(d) == 0 {
				return 0, false
			}
			return get(d), true
		}
	}
	row("IOPS per VM", derived(func(d *result.Derived) float64 { return d.IOPSPerVM }), "%.0f")
	row("MB/s per VM", derived(func(d *result.Derived) float64 { return d.MBpsPerVM }), "%.1f")
	row("IOPS per GB", derived(func(d *result.Derived) float64 { return d.IOPSPerGB }), "%.1f")
	row("CPU µs per I/O", ioFig(func(f *result.FileIO) (float64, bool) { return f.CPUPerIOUs, f.CPUPerIOUs > 0 }), "%.1f")
	host := func(get func(h *result.Host) (float64, bool)) func(r *result.Run) (float64, bool) {
		return func(r *result.Run) (float64, bool) {
			if r.Host == nil {
				return 0, false
			}
			return get(r.Host)
		}
	}
	row("host CPU busy %", host(func(h *result.Host) (float64, bool) { return h.CPU.User + h.CPU.System, true }), "%.0f")
	row("host iowait %", host(func(h *result.Host) (float64, bool) { return h.CPU.Iowait, true }), "%.0f")
	row("host steal %", host(func(h *result.Host) (float64, bool) { return h.CPU.Steal, h.CPU.Steal > 0 }), "%.0f")
	row("busiest disk util %", host(func(h *result.Host) (float64, bool) {
		best, ok := 0.0, false
		for _, d := range h.Disks {
			best, ok = max(best, d.UtilPct), true
		}
		return best, ok
	}), "%.0f")
	t.write(ew, f, true)
	return ew.err
}

// StepTable writes one row per step: throughput, response times, errors and
// the host's CPU user/system/iowait/steal and run queue.
func StepTable(w io.Writer, rows []StepRow, f Format) error {
	if f == CSV {
		return StepCSV(w, rows)
	}
	ew := &errWriter{w: w}
	if f == Text {
		ew.printf("\nsteps:\n")
	}
	t := table{head: []string{"step", "throughput/s", "avg ms", "p95 ms", "p99 ms", "errors", "cpu usr%", "sys%", "iowait%", "steal%", "run queue"}}
	for _, r := range rows {
		line := []string{r.Label, fmt.Sprintf("%.2f", r.Throughput), fmt.Sprintf("%.3f", r.AvgMs), fmt.Sprintf("%.3f", r.P95Ms),
			fmt.Sprintf("%.3f", r.P99Ms), fmt.Sprint(r.Errors)}
		if h := r.Host; h != nil {
			line = append(line, fmt.Sprintf("%.0f", h.CPU.User), fmt.Sprintf("%.0f", h.CPU.System), fmt.Sprintf("%.0f", h.CPU.Iowait),
				fmt.Sprintf("%.0f", h.CPU.Steal), fmt.Sprint(h.RunQueue))
		} else {
			line = append(line, "-", "-", "-", "-", "-")
		}
		t.rows = append(t.rows, line)
	}
	t.write(ew, f, false)
	return ew.err
}

// table is a header and rows of cells, written aligned or as Markdown.
type table struct {
	head []string
	rows [][]string
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

func randomWord(random bool) string {
	if random {
		return "random"
	}
	return "sequential"
}

func directWord(direct bool) string {
	if direct {
		return "direct I/O"
	}
	return "buffered I/O"
}
