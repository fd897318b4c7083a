package report

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// What the HTML report's layout needs beyond the figures: targets short
// enough for a table cell, and parameters shown once for several runs.

// ShortTarget shortens a target for a table cell: a URL to host:port/db
// (no scheme, user or query), an SQLite target to its file's name, a long
// file path to its last element. The report puts the full text in the
// cell's title (shown on hover). A row's "N × target, …" keeps its count.
func ShortTarget(t string) string {
	if i := strings.Index(t, " × "); i > 0 && strings.HasSuffix(t, ", …") {
		head := t[:i+len(" × ")]
		return head + shortOne(strings.TrimSuffix(t[len(head):], ", …")) + ", …"
	}
	return shortOne(t)
}

func shortOne(t string) string {
	if rest, ok := strings.CutPrefix(t, "sqlite:"); ok {
		rest = strings.TrimPrefix(rest, "file:")
		if i := strings.IndexByte(rest, '?'); i >= 0 {
			rest = rest[:i]
		}
		return "sqlite:" + path.Base(rest)
	}
	if u, err := url.Parse(t); err == nil && u.Host != "" {
		s := u.Host
		if db := strings.Trim(u.Path, "/"); db != "" {
			s += "/" + db
		}
		return s
	}
	if len(t) > 40 && strings.Contains(t, "/") {
		return "…/" + path.Base(t)
	}
	return t
}

// paramView is the parameters section: what all runs share, once, and a
// table of what differs between them, one row per run.
type paramView struct {
	Shared params
	Keys   []string   // the differing parameters' names, the table's columns
	Rows   []paramRow // one per run, when there are several
}

type paramRow struct {
	Name  string
	Cells []string // one per key ("" where the run has none)
	Notes []string // its notes that not every run has
}

// field is one parameter of a run; an option's key is "option NAME".
type field struct{ key, value string }

const optionPrefix = "option "

// paramsOnce lays out the parameters of runs (a sweep's steps, or runs
// compared): a parameter (an option, a target, the load) with the same
// value in every run is listed once, under Shared; one that differs is a
// column of the table, its value per run; the same for notes. One run's
// parameters are all shared.
func paramsOnce(runs []*result.Run) paramView {
	var v paramView
	if len(runs) == 0 {
		return v
	}
	all := make([][]field, len(runs))
	for i, r := range runs {
		all[i] = fieldsOf(r)
	}
	count := map[field]int{}
	notes := map[string]int{}
	for i, r := range runs {
		seen := map[field]bool{}
		for _, f := range all[i] {
			if !seen[f] {
				seen[f] = true
				count[f]++
			}
		}
		for _, n := range uniq(runNotes(r)) {
			notes[n]++
		}
	}
	shared := func(f field) bool { return count[f] == len(runs) }
	if len(runs) == 1 {
		v.Shared.Name = runName(runs[0])
	} else {
		v.Shared.Name = fmt.Sprintf("Shared by all %d runs", len(runs))
	}
	v.Shared.Entries = joinOptions(all[0], shared)
	for _, n := range uniq(runNotes(runs[0])) {
		if notes[n] == len(runs) {
			v.Shared.Notes = append(v.Shared.Notes, n)
		}
	}
	if len(runs) == 1 {
		return v
	}
	col := map[string]int{}
	for _, fs := range all {
		for _, f := range fs {
			if _, ok := col[f.key]; !ok && !shared(f) {
				col[f.key] = len(v.Keys)
				v.Keys = append(v.Keys, f.key)
			}
		}
	}
	for i, r := range runs {
		row := paramRow{Name: runName(r), Cells: make([]string, len(v.Keys))}
		for _, f := range all[i] {
			if c, ok := col[f.key]; ok {
				row.Cells[c] = f.value
			}
		}
		for _, n := range uniq(runNotes(r)) {
			if notes[n] < len(runs) {
				row.Notes = append(row.Notes, n)
			}
		}
		v.Rows = append(v.Rows, row)
	}
	for i, k := range v.Keys {
		v.Keys[i] = strings.TrimPrefix(k, optionPrefix)
	}
	return v
}

// joinOptions lists the fields that keep says, the options joined into one
// "options" entry (k=v, sorted) where the first of them was.
func joinOptions(fs []field, keep func(field) bool) [][2]string {
	var out [][2]string
	var opts []string
	at := -1
	for _, f := range fs {
		if !keep(f) {
			continue
		}
		if k, ok := strings.CutPrefix(f.key, optionPrefix); ok {
			if at < 0 {
				at = len(out)
				out = append(out, [2]string{"options", ""})
			}
			opts = append(opts, k+"="+f.value)
			continue
		}
		out = append(out, [2]string{f.key, f.value})
	}
	if at >= 0 {
		out[at][1] = strings.Join(opts, " ")
	}
	return out
}

func runName(r *result.Run) string {
	if r.Label != "" {
		return r.Label
	}
	return r.ID
}

func runNotes(r *result.Run) []string {
	var ns []string
	for _, in := range r.Instances {
		ns = append(ns, in.Notes...)
	}
	return ns
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// fieldsOf lists how a run was made: workload, options, load and targets
// (results never hold passwords), in the order the report shows them.
func fieldsOf(r *result.Run) []field {
	var fs []field
	add := func(k, v string) { fs = append(fs, field{k, v}) }
	add("run", r.ID)
	if r.Config != "" {
		add("configuration", r.Config)
	}
	add("workload", r.Workload)
	add("tool", r.Tool.Name+" "+r.Tool.Version)
	l := r.Load
	load := fmt.Sprintf("%s loop, %d threads", l.Mode, l.Threads)
	if l.Rate > 0 {
		load += fmt.Sprintf(", %g/s (%s)", l.Rate, l.Arrival)
	}
	add("load", load)
	add("window", fmt.Sprintf("warm-up %g s, measured %g s, interval %g s", l.WarmupS, l.DurationS, l.IntervalS))
	for i, in := range r.Instances {
		t := in.Target
		if in.ServerVersion != "" || in.ServerProduct != "" {
			t += " (" + in.Server() + ")"
		}
		add(fmt.Sprintf("target #%d", i+1), t)
	}
	if g := machineText(r.Machine); g != "" {
		add("generator", g)
	}
	keys := make([]string, 0, len(r.Options))
	for k := range r.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(optionPrefix+k, fmt.Sprint(r.Options[k]))
	}
	if r.Partial {
		add("partial", r.PartialReason)
	}
	return fs
}
