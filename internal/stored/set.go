package stored

import (
	"context"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
)

// Set is what several arguments named, each measurement once: report's
// input.
type Set struct {
	// Runs are the results named on their own and the steps of the sweeps;
	// Results those named on their own only.
	Runs, Results []*result.Run
	Sweeps        []Sweep
	// Plan is the last plan named.
	Plan *sizing.Report
	// Files are the paths of every file read (steps' results too), which
	// report -o may not write over.
	Files []string
	verb  string
	seen  Seen
}

// LoadAll loads every argument (Load), refusing (ErrUsage) a sweep or run
// that two arguments name: the same measurement named twice would count as
// two (one sweep as two repeats of its configuration).
func (d *Door) LoadAll(ctx context.Context, args []string) (Set, error) {
	s := Set{verb: d.Verb}
	for _, a := range args {
		f, err := d.Load(ctx, a)
		s.Files = append(s.Files, f.Files...)
		if err != nil {
			return s, err
		}
		if err := s.Add(f); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Add adds what one argument named; a sweep or run already added (by
// another argument, or by this one) is refused.
func (s *Set) Add(f Found) error {
	for _, sw := range f.Sweeps {
		if err := s.once(f.Arg, "sweep", sw.ID, sw.ID+" "+sw.Workload); err != nil {
			return err
		}
		for _, r := range sw.Runs {
			if err := s.once(f.Arg, "run", r.ID, RunKey(r)); err != nil {
				return err
			}
		}
		s.Sweeps = append(s.Sweeps, sw)
		s.Runs = append(s.Runs, sw.Runs...)
	}
	for _, r := range f.Runs {
		if err := s.once(f.Arg, "run", r.ID, RunKey(r)); err != nil {
			return err
		}
		s.Runs, s.Results = append(s.Runs, r), append(s.Results, r)
	}
	if f.Plan != nil {
		s.Plan = f.Plan
	}
	return nil
}

func (s *Set) once(arg, what, id, key string) error {
	return s.seen.Once(s.verb, arg, what, id, key, "it would count twice")
}

// RunKey tells runs apart: the steps of a sweep share its id, and the
// shards of a run have ids of their own.
func RunKey(r *result.Run) string { return r.ID + " " + r.Workload + " " + r.Label }

// Seen is the argument that brought each sweep and run (by "what key"),
// for the commands that refuse the same measurement named twice (report,
// history compare).
type Seen map[string]string

// Once records that arg brought the sweep or run (what) of id, told apart
// by key, refusing (ErrUsage, naming both arguments, with why) one that an
// argument brought already: by the same file, a copy, its key or a label.
// Files of no id are not told apart.
func (s *Seen) Once(verb, arg, what, id, key, why string) error {
	if id == "" {
		return nil
	}
	if *s == nil {
		*s = Seen{}
	}
	k := what + " " + key
	prev, ok := (*s)[k]
	if !ok {
		(*s)[k] = arg
		return nil
	}
	return usagef("%s: %s and %s are the same %s (id %s): %s; name each measurement once", verb, quoteArg(prev), quoteArg(arg), what, id, why)
}

// quoteArg is an argument as messages name it: quoted when it is empty or
// has spaces.
func quoteArg(a string) string {
	if a == "" || strings.ContainsAny(a, " \t") {
		return strconv.Quote(a)
	}
	return a
}

// Configs are the sweeps analysed and named (Sweep.Config), in order.
func (s Set) Configs() []analysis.Candidate {
	var cs []analysis.Candidate
	for _, sw := range s.Sweeps {
		cs = append(cs, sw.Config())
	}
	return cs
}

// FirstSweep is the first sweep analysed (as Configs analyses it), or nil
// when there is none.
func (s Set) FirstSweep() *analysis.Result {
	if len(s.Sweeps) == 0 {
		return nil
	}
	return s.Sweeps[0].Analysed()
}
