// Package hypervisor reads what a VM's host saw of it, exported from the
// hypervisor (esxtop's batch output) or from any monitoring system (a
// generic time, metric, value CSV), and averages it over a run's window.
// The guest's own CPU figures cannot show time the hypervisor did not give
// it: a VM waiting for a physical CPU (ready), held so its vCPUs stay in
// step (co-stop) or by a limit looks idle from inside.
//
// Reading is pure: it takes an io.Reader and streams it, keeping only the
// columns asked for, so exports of tens of thousands of columns and hours
// of samples load in seconds; lines and rows are capped (MaxLine,
// MaxSamples), so an input that never ends is refused in bounded memory.
// ReadFile opens an export for rightsize import and says which of its
// errors are the command line's (exit 2).
package hypervisor

import (
	"errors"
	"math"
	"slices"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// ErrFormat wraps a file that is not of the format read.
var ErrFormat = errors.New("not a hypervisor export")

// ErrNoVM is a VM the file has no figures of.
var ErrNoVM = errors.New("VM not in the file")

// ErrVCPUs is a vCPU count given that contradicts the file's.
var ErrVCPUs = errors.New("vCPUs contradict the file")

// Metric is one figure of a sample.
type Metric int

// The figures, in percent: the host's physical CPU utilisation, and the
// VM's used, ready, co-stop, max-limited and wait per vCPU.
const (
	HostCPU Metric = iota
	Used
	Ready
	CoStop
	MaxLimited
	Wait
	nMetrics
)

// metricNames are the generic CSV's names of the metrics.
var metricNames = [nMetrics]string{"host_cpu_pct", "used_pct", "ready_pct", "costop_pct", "max_limited_pct", "wait_pct"}

// Sample is the figures at one time: NaN where the source has none.
type Sample struct {
	At time.Time
	V  [nMetrics]float64
}

// Series is a VM's samples in time order.
type Series struct {
	Source  string // "esxtop", "csv"
	VM      string
	VCPUs   int
	Samples []Sample
}

// Span is the time the samples cover: from the first's start (one sampling
// interval before it) to the last.
func (s *Series) Span() (from, to time.Time) {
	if len(s.Samples) == 0 {
		return time.Time{}, time.Time{}
	}
	return s.Samples[0].At.Add(-s.step()), s.Samples[len(s.Samples)-1].At
}

// step is the sampling interval: the median gap between samples (esxtop's
// -d, 5 s by default); 0 with one sample.
func (s *Series) step() time.Duration {
	if len(s.Samples) < 2 {
		return 0
	}
	gaps := make([]time.Duration, len(s.Samples)-1)
	for i := range gaps {
		gaps[i] = s.Samples[i+1].At.Sub(s.Samples[i].At)
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// Window averages the samples that describe [from, to]: those whose
// interval's middle (half a sampling interval before their time, as a
// sample is the mean of the interval it ends) falls in it. nil when none
// does.
func (s *Series) Window(from, to time.Time) *result.Hypervisor {
	half := s.step() / 2
	var sum [nMetrics]float64
	var n [nMetrics]int
	count := 0
	for _, x := range s.Samples {
		mid := x.At.Add(-half)
		if mid.Before(from) || mid.After(to) {
			continue
		}
		count++
		for m, v := range x.V {
			if !math.IsNaN(v) {
				sum[m] += v
				n[m]++
			}
		}
	}
	if count == 0 {
		return nil
	}
	mean := func(m Metric) *float64 {
		if n[m] == 0 {
			return nil
		}
		v := sum[m] / float64(n[m])
		return &v
	}
	return &result.Hypervisor{Source: s.Source, VM: s.VM, VCPUs: s.VCPUs, Samples: count,
		HostCPUPct: mean(HostCPU), UsedPct: mean(Used), ReadyPct: mean(Ready), CoStopPct: mean(CoStop), MaxLimitedPct: mean(MaxLimited), WaitPct: mean(Wait)}
}

func nan() [nMetrics]float64 {
	var v [nMetrics]float64
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}
