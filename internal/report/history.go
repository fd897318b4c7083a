package report

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/result"
)

// Listing is the run catalog as history list shows it: its runs (newest
// first) and sweeps, each row fitted to ListWidth columns unless Wide.
type Listing struct {
	// Catalog is the catalog's location (no password); Filter what the
	// runs were chosen by, " with workload x and label "y"" ("" for all).
	Catalog, Filter string
	Runs            []ListedRun
	Sweeps          []ListedSweep
	// Wide writes every field whole, with the start, average and p95.
	Wide bool
}

// ListedRun is a run's row: its key (as the fitted list names it: its id
// where that names it alone, else "ID…TAIL"; whole when Wide), the study
// that ran it ("" for none) and its label less the study's id, and its
// catalog entry's headline.
type ListedRun struct {
	Key, Study, Label               string
	Workload, Config, SweepStep     string
	Started                         time.Time
	Targets, Servers                []string
	Throughput, AvgMs, P95Ms, P99Ms float64
	Errors                          int64
	Partial                         bool
}

// ListedSweep is a sweep's row: its key, workload, axis and steps, with
// the study that ran it, its configuration and its runs' servers.
type ListedSweep struct {
	Key, Workload, Axis, Study, Config string
	Servers                            []string
	Steps                              int
}

// ListWidth is the width history list fits its rows to (without --wide):
// a terminal's, about.
const ListWidth = 120

// keyWidth is the least a key is elided to: a run id (23 characters), "…"
// and the end of its label.
const keyWidth = 32

// WriteListing writes the catalog's runs and sweeps, each row fitted to
// ListWidth columns: a run's key, label, configuration (none where it is
// the default, the target's host and port), target (host, port and
// database) and server, throughput, p99 and errors; a sweep's
// configuration and servers. Where rows have different targets or
// servers, each keeps its host and port and its server's name whole
// enough to be told apart, before the rows fit. Runs and sweeps a study made are grouped
// under a line naming it. Long fields are elided ("…"), but for workloads
// and a study's labels. Wide writes every field whole, with the start,
// average and p95.
func WriteListing(w io.Writer, l Listing) error {
	ew := &errWriter{w: w}
	ew.printf("catalog %s\n", l.Catalog)
	if len(l.Runs) == 0 && len(l.Sweeps) == 0 {
		ew.printf("no runs or sweeps recorded%s\n", l.Filter)
		return ew.err
	}
	if len(l.Runs) > 0 {
		runTable(l.Runs, l.Wide).write(ew, l.Wide)
	}
	if len(l.Sweeps) > 0 {
		t := listTable{head: []string{"SWEEP KEY", "WORKLOAD", "CONFIG", "SERVER", "AXIS", "STEPS"},
			fit: []int{keyWidth, 0, 8, 8, 8, 0}}
		for _, s := range l.Sweeps {
			t.rows = append(t.rows, []string{s.Key, s.Workload, s.Config, Distinct(s.Servers), s.Axis, fmt.Sprint(s.Steps)})
			t.groups = append(t.groups, s.Study)
		}
		t.write(ew, l.Wide)
	}
	if !l.Wide {
		ew.printf("\nKEY: a run's id where it names the run alone, else its id…the end of its key (a sweep's step); either names it.\n")
		if slices.ContainsFunc(l.Runs, defaultConfig) {
			ew.printf("CONFIG: none written where it is the default, the target's host and port.\n")
		}
		ew.printf("history show KEY: a run's or a sweep's whole record (a sweep's with its runs); history list --wide: every field whole.\n")
	}
	return ew.err
}

// runTable is the runs' table: fitted (a target's host, port and
// database) or wide (every field whole, and the start, avg and p95). The
// fitted table never elides a workload's name (they are short), nor a
// label that names a step: a sweep's, or a study's (the study's line above
// it names the study, so the label is the step's alone).
func runTable(runs []ListedRun, wide bool) listTable {
	t := listTable{head: []string{"KEY", "WORKLOAD", "LABEL", "CONFIG", "TARGET", "SERVER", "THROUGHPUT", "P99 ms", "ERRORS", "NOTE"},
		fit: []int{keyWidth, 0, 8, 8, 8, 8, 0, 0, 0, 8}}
	if wide {
		t.head = []string{"KEY", "STARTED (UTC)", "WORKLOAD", "LABEL", "CONFIG", "TARGET", "SERVER", "THROUGHPUT", "AVG ms", "P95 ms", "P99 ms", "ERRORS", "NOTE"}
		t.fit = make([]int, len(t.head))
	}
	for _, e := range runs {
		t.groups = append(t.groups, e.Study)
		if wide {
			t.rows = append(t.rows, []string{e.Key, e.Started.Format("2006-01-02 15:04:05"), e.Workload, e.Label, e.Config, firstOf(e.Targets), Distinct(e.Servers),
				num2(e.Throughput) + "/s", num2(e.AvgMs), num2(e.P95Ms), num2(e.P99Ms), fmt.Sprint(e.Errors), runNote(e, true)})
			continue
		}
		if e.Study != "" || e.SweepStep != "" { // a label that names a step is kept whole
			t.fit[2] = max(t.fit[2], runes(e.Label))
		}
		target, config := "-", e.Config
		if len(e.Targets) > 0 {
			target = ShortTarget(firstOf(e.Targets))
		}
		if defaultConfig(e) {
			config = "" // the target says it
		}
		t.rows = append(t.rows, []string{e.Key, e.Workload, e.Label, config, target, Distinct(e.Servers),
			num2(e.Throughput) + "/s", num2(e.P99Ms), fmt.Sprint(e.Errors), runNote(e, false)})
	}
	return t
}

// defaultConfig reports whether a run's configuration is the default a
// run without --config or a label is named by: its first target's host
// and port.
func defaultConfig(e ListedRun) bool {
	if len(e.Targets) == 0 || e.Config == "" {
		return false
	}
	u, err := url.Parse(e.Targets[0])
	return err == nil && u.Host != "" && u.Host == e.Config
}

// runNote is a run's note in the list: partial, and (step) the step of a
// sweep it was (the fitted list's label says so already).
func runNote(e ListedRun, step bool) string {
	var note []string
	if e.Partial {
		note = append(note, "partial")
	}
	if step && e.SweepStep != "" {
		note = append(note, "sweep step "+e.SweepStep)
	}
	return strings.Join(note, ", ")
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

// Distinct is a run's servers, each once ("-" when none is known).
func Distinct(servers []string) string {
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

// num2 writes a figure to two decimals, "-" when it is not a number.
func num2(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "-"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// listTable is a table of history list: a header, rows, each row's group
// (the study that made it, "" for none: a line names it where it changes)
// and the least width each column may be elided to (0: never).
type listTable struct {
	head   []string
	rows   [][]string
	groups []string
	fit    []int
}

// write writes the table after a blank line, without the columns no row
// fills (but the key's), and unless wide fitted to ListWidth.
func (t listTable) write(w io.Writer, wide bool) {
	t = t.withoutEmpty()
	// A catalog written before results were decoded printable may hold a
	// label with an escape sequence: shown visibly, before any cell is cut.
	for _, r := range t.rows {
		for c := range r {
			r[c] = result.Printable(r[c])
		}
	}
	for i, g := range t.groups {
		t.groups[i] = result.Printable(g)
	}
	if !wide {
		t.shrink(ListWidth)
	}
	widths := make([]int, len(t.head))
	for c := range widths {
		widths[c] = runes(t.head[c])
		for _, r := range t.rows {
			widths[c] = max(widths[c], runes(r[c]))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for c, s := range cells {
			b.WriteString(s)
			if c < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-runes(s)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintln(w)
	line(t.head)
	group := ""
	for i, r := range t.rows {
		if g := t.groups[i]; g != group {
			if g != "" {
				fmt.Fprintf(w, "study %s:\n", g)
			} else {
				fmt.Fprintln(w, "no study:")
			}
			group = g
		}
		line(r)
	}
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// withoutEmpty drops the columns no row fills (but the first).
func (t listTable) withoutEmpty() listTable {
	out := listTable{rows: make([][]string, len(t.rows)), groups: t.groups}
	for c, h := range t.head {
		if c > 0 && !slices.ContainsFunc(t.rows, func(r []string) bool { return r[c] != "" }) {
			continue
		}
		out.head = append(out.head, h)
		out.fit = append(out.fit, t.fit[c])
		for i, r := range t.rows {
			out.rows[i] = append(out.rows[i], r[c])
		}
	}
	return out
}

// shrink elides the table's cells so that its rows are at most width wide
// (two spaces between columns): each column that may be elided is cut to
// the largest common width that fits, and not below its least width (the
// key, the first column, in its middle, keeping its head and tail, and
// only when the others down to their least are not enough; a label in its
// middle, keeping the step it ends with; others at their end).
func (t *listTable) shrink(width int) {
	natural := make([]int, len(t.head))
	for c := range natural {
		natural[c] = runes(t.head[c])
		for _, r := range t.rows {
			natural[c] = max(natural[c], runes(r[c]))
		}
	}
	fit := slices.Clone(t.fit)
	for c := range fit {
		if fit[c] > 0 && (t.head[c] == "TARGET" || t.head[c] == "SERVER") {
			fit[c] = max(fit[c], t.apart(c))
		}
	}
	least := slices.Clone(fit)
	least[0] = max(least[0], natural[0]) // the key kept whole first
	level, fits := fitLevel(natural, least, width)
	if !fits {
		level, _ = fitLevel(natural, fit, width)
		least = fit
	}
	for c := range natural {
		if least[c] == 0 {
			continue
		}
		n := min(natural[c], max(least[c], level))
		t.head[c] = elide(t.head[c], n, 0)
		for _, r := range t.rows {
			r[c] = t.cut(c, r[c], n)
		}
	}
}

// cut elides cell s of column c to n characters: a key in its middle,
// keeping its head and the end of its label; a label in its middle,
// keeping the step it ends with; a server its product's name, keeping
// its version ("Postgr… 15.20"); others at their end.
func (t listTable) cut(c int, s string, n int) string {
	switch {
	case c == 0:
		return elide(s, n, (n-1)/4)
	case t.head[c] == "LABEL":
		return elide(s, n, (n-1)/2)
	case t.head[c] == "SERVER":
		if i := strings.LastIndexByte(s, ' '); i > 0 && runes(s) > n && n-runes(s[i:]) >= 3 {
			return elide(s, n, runes(s[i:]))
		}
	}
	return elide(s, n, 0)
}

// serverWidth is the most a server's name is kept whole at where servers
// differ ("PostgreSQL 15.20" is 16): a longer one keeps its version.
const serverWidth = 20

// apart is the least width of column c (TARGET or SERVER) at which rows
// that differ there still differ once cut, so that two servers are never
// cut to one name: where they differ, a target keeps its host and port
// whole ("127.0.0.1:5432…") and a server its name whole (up to
// serverWidth; a longer one its version); 0 when every row has the same.
// Told apart comes before fitting ListWidth.
func (t listTable) apart(c int) int {
	var vals []string
	for _, r := range t.rows {
		if !slices.Contains(vals, r[c]) {
			vals = append(vals, r[c])
		}
	}
	if len(vals) < 2 {
		return 0
	}
	least := 0
	for _, v := range vals {
		w := runes(v)
		switch t.head[c] {
		case "TARGET": // host:port, and "…" for the database
			if i := strings.IndexByte(v, '/'); i > 0 {
				w = min(w, i+1)
			}
		case "SERVER": // whole, unless long: then "…" and the version
			if i := strings.LastIndexByte(v, ' '); i > 0 && w > serverWidth {
				w = max(serverWidth, runes(v[i:])+3)
			}
		}
		least = max(least, w)
	}
	for n := least; ; n++ {
		seen := map[string]bool{}
		for _, v := range vals {
			seen[t.cut(c, v, n)] = true
		}
		if len(seen) == len(vals) {
			return n
		}
	}
}

// fitLevel is the largest width the columns that may be elided (least > 0)
// can share, each cut to it but not below its least, for rows at most
// width wide; false when even the least widths are too wide.
func fitLevel(natural, least []int, width int) (int, bool) {
	for level := slices.Max(natural); level >= 0; level-- {
		total := 2 * (len(natural) - 1)
		for c, n := range natural {
			if least[c] > 0 {
				n = min(n, max(least[c], level))
			}
			total += n
		}
		if total <= width {
			return level, true
		}
	}
	return 0, false
}

// elide shortens s to n characters with "…": its end cut, or with tail
// > 0 its middle, keeping its last tail characters.
func elide(s string, n, tail int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n-1-tail]) + "…" + string(rs[len(rs)-tail:])
}
