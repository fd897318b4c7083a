package hypervisor

import (
	"errors"
	"fmt"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// ErrNoOverlap is a series whose samples fall in no window of the run or
// sweep it is imported into.
var ErrNoOverlap = errors.New("no overlap")

// IntoRun sets the series' figures over the run's measured window beside
// its host figures (Host.Hypervisor), and returns them. A series that does
// not meet the window is ErrNoOverlap; a run with no host figures is an
// error, and r is left as it was.
func (s *Series) IntoRun(r *result.Run) (*result.Hypervisor, error) {
	from, to := r.Window()
	h := s.Window(from, to)
	if h == nil {
		return nil, s.noOverlap(from, to)
	}
	if r.Host == nil {
		return nil, errors.New("the run has no host figures to set the hypervisor's beside")
	}
	r.Host.Hypervisor = h
	return h, nil
}

// Aligned is what IntoSweep did: how many of the sweep's steps it aligned
// the samples to, and the labels of those with no sample in their window
// (None) and of those with no host figures to set them beside (NoHost).
type Aligned struct {
	Steps, Aligned int
	None, NoHost   []string
}

// IntoSweep sets the series' figures over each step's window beside the
// step's host figures (an earlier import's are replaced, or removed where
// the samples do not reach). A step's window is the sweep's, else (files
// written before the sweep recorded it) window's, read from the step's
// result. A series that meets no step is ErrNoOverlap.
func (s *Series) IntoSweep(sw *result.Sweep, window func(result.SweepStep) (from, to time.Time, err error)) (Aligned, error) {
	a := Aligned{Steps: len(sw.Steps)}
	var first, last time.Time
	for i := range sw.Steps {
		st := &sw.Steps[i]
		from, to := st.From, st.To
		if from.IsZero() {
			var err error
			if from, to, err = window(*st); err != nil {
				return a, fmt.Errorf("step %s has no window in the sweep file: %w", st.Label, err)
			}
		}
		if first.IsZero() {
			first = from
		}
		last = to
		if st.Host == nil {
			a.NoHost = append(a.NoHost, st.Label) // nothing to set the view beside
			continue
		}
		h := s.Window(from, to)
		st.Host.Hypervisor = h // an earlier import's figures go too
		if h == nil {
			a.None = append(a.None, st.Label)
			continue
		}
		a.Aligned++
	}
	if a.Aligned == 0 {
		return a, s.noOverlap(first, last)
	}
	return a, nil
}

// noOverlap says that the samples and the run's window [from, to] do not
// meet.
func (s *Series) noOverlap(from, to time.Time) error {
	sf, st := s.Span()
	return fmt.Errorf("%w: the file's samples run from %s to %s UTC, the run's window from %s to %s UTC: not the same time (is the host's clock in step with the generator's, and the export of this run?)",
		ErrNoOverlap, sf.UTC().Format(time.DateTime), st.UTC().Format(time.DateTime), from.UTC().Format(time.DateTime), to.UTC().Format(time.DateTime))
}
