package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rightsize/rightsize/internal/result"
)

// Sides is what a comparison's baseline and candidate ran: each aspect's
// values on either side, and what differs between them.
type Sides struct {
	rows [][3]string // aspect, baseline, candidate
	// same lists the options both sides ran alike, as name=value.
	same []string
	// Differs names the aspects that differ ("servers (A vs B)"); Unfair
	// is the part of it --fail-if-slower will not judge across: workloads,
	// options and load.
	Differs, Unfair []string
}

// CompareSides describes the runs of both sides. A side of several runs (a
// label) shows every distinct value, joined by " | ".
func CompareSides(base, cand []*result.Run) Sides {
	var s Sides
	aspect := func(name, plural string, fair bool, of func(*result.Run) string) {
		b, c := valuesOf(base, of), valuesOf(cand, of)
		s.rows = append(s.rows, [3]string{name, b, c})
		if b != c {
			s.Differs = append(s.Differs, fmt.Sprintf("%s (%s vs %s)", plural, b, c))
			if !fair {
				s.Unfair = append(s.Unfair, s.Differs[len(s.Differs)-1])
			}
		}
	}
	aspect("workload", "workloads", false, func(r *result.Run) string { return r.Workload })
	aspect("target", "targets", true, func(r *result.Run) string {
		var ts []string
		for _, in := range r.Instances {
			ts = append(ts, in.Target)
		}
		return strings.Join(ts, " + ")
	})
	aspect("server", "servers", true, func(r *result.Run) string {
		var ss []string
		for _, in := range r.Instances {
			ss = append(ss, in.Server())
		}
		return Distinct(ss)
	})
	aspect("load", "load", false, loadOf)
	var keys []string
	for _, r := range append(slices.Clone(base), cand...) {
		keys = append(keys, slices.Collect(maps.Keys(r.Options))...)
	}
	slices.Sort(keys)
	var differing []string
	for _, k := range slices.Compact(keys) {
		if k == "sweep_step" { // which step of a sweep a run was, not how it ran
			continue
		}
		of := func(r *result.Run) string {
			if v, ok := r.Options[k]; ok {
				return optionValue(v)
			}
			return "(unset)"
		}
		b, c := valuesOf(base, of), valuesOf(cand, of)
		if b == c {
			s.same = append(s.same, k+"="+b)
			continue
		}
		s.rows = append(s.rows, [3]string{"option " + k, b, c})
		differing = append(differing, fmt.Sprintf("%s: %s vs %s", k, b, c))
	}
	if len(differing) > 0 {
		d := fmt.Sprintf("options (%s)", strings.Join(differing, "; "))
		s.Differs, s.Unfair = append(s.Differs, d), append(s.Unfair, d)
	}
	return s
}

// optionValue prints an option's value as it was given (JSON numbers are
// float64s: 1000000, not 1e+06).
func optionValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// valuesOf is of's distinct values over runs, in their order, joined by " | ".
func valuesOf(runs []*result.Run, of func(*result.Run) string) string {
	var vs []string
	for _, r := range runs {
		if v := of(r); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, " | ")
}

// loadOf is how a run offered load: the loop, its threads (per instance),
// the open loop's rate and arrivals, the think time.
func loadOf(r *result.Run) string {
	l := r.Load
	s := fmt.Sprintf("closed loop, %d threads", l.Threads)
	if l.Mode == "open" {
		s = fmt.Sprintf("open loop at %g/s (%s), up to %d in flight", l.Rate, l.Arrival, l.Threads)
	}
	if l.ThinkS > 0 {
		s += fmt.Sprintf(", think %gs %s", l.ThinkS, l.ThinkDist)
	}
	return s
}

// Write prints the sides as a table, then the options alike on both.
func (s Sides) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\t%s\t%s\n", "BASELINE", "CANDIDATE")
	for _, r := range s.rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r[0], r[1], r[2])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.same) > 0 {
		fmt.Fprintf(w, "options (both): %s\n", strings.Join(s.same, " "))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// Differently words a difference of sides (one of Sides.Differs): "on
// different servers (...)", "different options (...)".
func Differently(d string) string {
	if strings.HasPrefix(d, "servers") || strings.HasPrefix(d, "targets") {
		return "on different " + d
	}
	if strings.HasPrefix(d, "load") {
		return "a different " + d
	}
	return "different " + d
}

// DescribeRun names a run on a side of a comparison: its workload, label
// and start.
func DescribeRun(r *result.Run) string {
	s := r.Workload
	if r.Label != "" {
		s += fmt.Sprintf(" %q", r.Label)
	}
	return s + ", " + r.Started.UTC().Format("2006-01-02 15:04 UTC")
}
