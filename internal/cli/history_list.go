package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/history"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// listWidth is the width history list fits its rows to (without --wide): a
// terminal's, about.
const listWidth = 120

// studyLabel is how a study labels its steps' runs: "<study id>/<step>",
// and "<study id>/<step> <axis step>" for a sweep's (study id: a run id or
// --study-id, letters, digits, '-' and '_').
var studyLabel = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9_-]{0,63})/(.+)$`)

// studyOf splits a run's label into the study that ran it and the rest (its
// step); "" and the label when no study did.
func studyOf(label string) (study, rest string) {
	if m := studyLabel.FindStringSubmatch(label); m != nil {
		return m[1], m[2]
	}
	return "", label
}

// sweepInfo is what history list and show say of a sweep beyond its
// entry: the study that ran it, its configuration and its runs' servers.
type sweepInfo struct {
	study, config, servers string
}

// sweepInfoOf gathers a sweep's study, configuration and servers: the
// configuration from the sweep, the others from its runs in the catalog.
func sweepInfoOf(ctx context.Context, cat *history.Catalog, s history.SweepEntry) (sweepInfo, error) {
	sw, _, err := cat.GetSweep(ctx, s.Key)
	if err != nil {
		return sweepInfo{}, err
	}
	runs, err := sweepRuns(ctx, cat, sw)
	if err != nil {
		return sweepInfo{}, err
	}
	info := sweepInfo{config: sw.Config}
	var servers []string
	for _, e := range runs {
		if st, _ := studyOf(e.Label); st != "" && info.study == "" {
			info.study = st
		}
		if info.config == "" {
			info.config = e.Config
		}
		servers = append(servers, e.Servers...)
	}
	info.servers = distinct(servers)
	return info, nil
}

// describe is the line history show writes under a sweep's key.
func (i sweepInfo) describe() string {
	s := "configuration " + orDash(i.config) + ", server " + orDash(i.servers)
	if i.study != "" {
		s = "study " + i.study + ", " + s
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listCatalog writes the catalog's runs (newest first) and sweeps, each row
// fitted to listWidth columns: a run's key (its id when that names it
// alone), label, configuration, target (host, port and database) and
// server, throughput, p99 and errors; a sweep's configuration and servers.
// Runs and sweeps a study made are grouped under a line naming it (their
// labels then the step's alone). Long fields are elided ("…"), but for
// workloads and a study's labels; a key is elided to "ID…TAIL", which
// still names it (shortKey, resolveKey). Wide writes every field whole,
// with the start, average and p95.
func listCatalog(ctx context.Context, w io.Writer, cat *history.Catalog, f history.Filter, wide bool) error {
	runs, err := cat.List(ctx, f)
	if err != nil {
		return err
	}
	var sweeps []history.SweepEntry
	if f.Label == "" && f.Config == "" {
		if sweeps, err = cat.ListSweeps(ctx, f); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "catalog %s\n", cat)
	if len(runs) == 0 && len(sweeps) == 0 {
		fmt.Fprintf(w, "no runs or sweeps recorded%s\n", filterText(f))
		return nil
	}
	if len(runs) > 0 {
		t, err := runTable(ctx, cat, runs, wide)
		if err != nil {
			return err
		}
		t.write(w, wide)
	}
	if len(sweeps) > 0 {
		t := listTable{head: []string{"SWEEP KEY", "WORKLOAD", "CONFIG", "SERVER", "AXIS", "STEPS"},
			fit: []int{keyWidth, 0, 8, 8, 8, 0}}
		for _, s := range sweeps {
			info, err := sweepInfoOf(ctx, cat, s)
			if err != nil {
				return err
			}
			t.rows = append(t.rows, []string{s.Key, s.Workload, info.config, info.servers, s.Axis, fmt.Sprint(s.Steps)})
			t.groups = append(t.groups, info.study)
		}
		t.write(w, wide)
	}
	if !wide {
		fmt.Fprintf(w, "\nKEY: a run's id where it names the run alone, else its id…the end of its key (a sweep's step); either names it.\n")
		fmt.Fprintf(w, "history show KEY: a run's or a sweep's whole record (a sweep's with its runs); history list --wide: every field whole.\n")
	}
	return nil
}

// runTable is the runs' table: fitted (a target's host, port and
// database) or wide (every field whole, and the start, avg and p95). The
// fitted table never elides a workload's name (they are short), nor a
// label that names a step: a sweep's, or a study's (the study's line above
// it names the study, so the label is the step's alone).
func runTable(ctx context.Context, cat *history.Catalog, runs []history.Entry, wide bool) (listTable, error) {
	t := listTable{head: []string{"KEY", "WORKLOAD", "LABEL", "CONFIG", "TARGET", "SERVER", "THROUGHPUT", "P99 ms", "ERRORS", "NOTE"},
		fit: []int{keyWidth, 0, 8, 8, 8, 8, 0, 0, 0, 8}}
	var keys []history.Ref
	if wide {
		t.head = []string{"KEY", "STARTED (UTC)", "WORKLOAD", "LABEL", "CONFIG", "TARGET", "SERVER", "THROUGHPUT", "AVG ms", "P95 ms", "P99 ms", "ERRORS", "NOTE"}
		t.fit = make([]int, len(t.head))
	} else {
		var err error
		if keys, err = catalogKeys(ctx, cat); err != nil {
			return t, err
		}
	}
	for _, e := range runs {
		study, label := studyOf(e.Label)
		t.groups = append(t.groups, study)
		if wide {
			t.rows = append(t.rows, []string{e.Key, e.Started.Format("2006-01-02 15:04:05"), e.Workload, label, e.Config, firstOf(e.Targets), distinct(e.Servers),
				num2(e.Throughput) + "/s", num2(e.AvgMs), num2(e.P95Ms), num2(e.P99Ms), fmt.Sprint(e.Errors), runNote(e, true)})
			continue
		}
		if study != "" || e.SweepStep != "" { // a label that names a step is kept whole
			t.fit[2] = max(t.fit[2], runes(label))
		}
		key, err := shortKey(ctx, cat, e, keys)
		if err != nil {
			return t, err
		}
		target := "-"
		if len(e.Targets) > 0 {
			target = report.ShortTarget(firstOf(e.Targets))
		}
		t.rows = append(t.rows, []string{key, e.Workload, label, e.Config, target, distinct(e.Servers),
			num2(e.Throughput) + "/s", num2(e.P99Ms), fmt.Sprint(e.Errors), runNote(e, false)})
	}
	return t, nil
}

// runNote is a run's note in the list: partial, and (step) the step of a
// sweep it was (the fitted list's label says so already).
func runNote(e history.Entry, step bool) string {
	var note []string
	if e.Partial {
		note = append(note, "partial")
	}
	if step && e.SweepStep != "" {
		note = append(note, "sweep step "+e.SweepStep)
	}
	return strings.Join(note, ", ")
}

// shortKey is what names a run in the fitted list: its id when that prefix
// names it alone in the catalog; else (the steps of a sweep share its id)
// its id, "…" and the shortest end of its key that, with the id, names it
// alone among keys (every key of the catalog), at least its sweep step's
// ("20250301T120000Z-5eeeee…rate3x"), as resolveKey reads it; else its
// whole key.
func shortKey(ctx context.Context, cat *history.Catalog, e history.Entry, keys []history.Ref) (string, error) {
	if e.ID == "" || e.ID == e.Key {
		return e.Key, nil
	}
	ref, err := cat.Resolve(ctx, e.ID)
	switch {
	case err == nil && ref.Key == e.Key:
		return e.ID, nil
	case err != nil && !errors.Is(err, history.ErrAmbiguous):
		return "", err
	case !strings.HasPrefix(e.Key, e.ID):
		return e.Key, nil
	}
	rest := e.Key[len(e.ID):] // the tail is cut from it
	n := 1
	if step := result.FileSafe(e.SweepStep); step != "" && strings.HasSuffix(rest, step) {
		n = len(step)
	}
	for ; n < len(rest)-1; n++ { // "…" stands for at least 2 characters
		if len(elidedMatches(keys, e.ID, rest[len(rest)-n:])) == 1 {
			return e.ID + "…" + rest[len(rest)-n:], nil
		}
	}
	return e.Key, nil
}

// catalogKeys are the keys of every run and sweep in the catalog.
func catalogKeys(ctx context.Context, cat *history.Catalog) ([]history.Ref, error) {
	runs, err := cat.List(ctx, history.Filter{})
	if err != nil {
		return nil, err
	}
	sweeps, err := cat.ListSweeps(ctx, history.Filter{})
	if err != nil {
		return nil, err
	}
	refs := make([]history.Ref, 0, len(runs)+len(sweeps))
	for _, e := range runs {
		refs = append(refs, history.Ref{Kind: history.KindRun, Key: e.Key})
	}
	for _, s := range sweeps {
		refs = append(refs, history.Ref{Kind: history.KindSweep, Key: s.Key})
	}
	return refs, nil
}

// elidedMatches are the keys "HEAD…TAIL" names: those that start with
// head and end with tail (apart).
func elidedMatches(keys []history.Ref, head, tail string) []history.Ref {
	var found []history.Ref
	for _, k := range keys {
		if len(k.Key) >= len(head)+len(tail) && strings.HasPrefix(k.Key, head) && strings.HasSuffix(k.Key, tail) {
			found = append(found, k)
		}
	}
	return found
}

// resolveKey finds the run or sweep key names: a key or a unique prefix of
// one (Catalog.Resolve), or a key as history list elides it, "HEAD…TAIL":
// the one key that starts with HEAD and ends with TAIL.
func resolveKey(ctx context.Context, cat *history.Catalog, key string) (history.Ref, error) {
	head, tail, elided := strings.Cut(key, "…")
	if !elided || head == "" {
		return cat.Resolve(ctx, key)
	}
	keys, err := catalogKeys(ctx, cat)
	if err != nil {
		return history.Ref{}, err
	}
	found := elidedMatches(keys, head, tail)
	switch len(found) {
	case 0:
		return history.Ref{}, fmt.Errorf("%w: no key starts with %q and ends with %q", history.ErrNotFound, head, tail)
	case 1:
		return found[0], nil
	}
	return history.Ref{}, fmt.Errorf("%w: %d keys start with %q and end with %q (history list --wide shows them whole)", history.ErrAmbiguous, len(found), head, tail)
}

// keyWidth is the least a key is elided to: a run id (23 characters), "…"
// and the end of its label.
const keyWidth = 32

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
// fills (but the key's), and unless wide fitted to listWidth.
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
		t.shrink(listWidth)
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
	least := slices.Clone(t.fit)
	least[0] = max(least[0], natural[0]) // the key kept whole first
	level, fits := fitLevel(natural, least, width)
	if !fits {
		level, _ = fitLevel(natural, t.fit, width)
		least = t.fit
	}
	for c := range natural {
		if least[c] == 0 {
			continue
		}
		n := min(natural[c], max(least[c], level))
		tail := 0 // the end cut
		switch {
		case c == 0:
			tail = (n - 1) / 4 // a key's head and the end of its label
		case t.head[c] == "LABEL":
			tail = (n - 1) / 2 // a step's label ends with its step
		}
		t.head[c] = elide(t.head[c], n, 0)
		for _, r := range t.rows {
			r[c] = elide(r[c], n, tail)
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
