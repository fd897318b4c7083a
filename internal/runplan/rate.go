package runplan

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Rate is an open-loop rate as given: events per second ("50", "12.5") or a
// multiple of the baseline rate ("2x", "1.5x"). The zero Rate is the closed
// loop. ParseRate is the one place that reads "Nx"; PerSecond the one place
// that multiplies it.
type Rate struct {
	perSec, multiple float64
	text             string
}

// ParseRate reads a rate: a number of events per second from 0, or a
// multiple above 0 written Nx.
func ParseRate(v string) (Rate, error) {
	v = strings.TrimSpace(v)
	num, mult := strings.CutSuffix(strings.ToLower(v), "x")
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return Rate{}, fmt.Errorf("%q is not a rate (events per second such as 50, or a multiple of --baseline-rate such as 2x)", v)
	}
	if mult && n == 0 {
		return Rate{}, fmt.Errorf("%q: a multiple must be above 0", v)
	}
	r := Rate{text: v}
	if mult {
		r.multiple = n
	} else {
		r.perSec = n
	}
	return r, nil
}

// IsMultiple reports whether the rate is a multiple of the baseline.
func (r Rate) IsMultiple() bool { return r.multiple > 0 }

// Multiple is N of Nx (0 for a rate per second).
func (r Rate) Multiple() float64 { return r.multiple }

// IsZero reports the closed loop: no rate.
func (r Rate) IsZero() bool { return r.multiple == 0 && r.perSec == 0 }

// PerSecond is the rate in events per second, a multiple resolved against
// baseline (events per second per instance).
func (r Rate) PerSecond(baseline float64) float64 {
	if r.multiple > 0 {
		return r.multiple * baseline
	}
	return r.perSec
}

// axisValue is the rate's value on a sweep's axis: N of Nx, or the rate.
func (r Rate) axisValue() float64 { return r.multiple + r.perSec }

// String is the rate as given ("0" for none).
func (r Rate) String() string {
	if r.text == "" {
		return "0"
	}
	return r.text
}

// Baseline is --baseline-rate: events per second per instance that a
// multiple multiplies, or Auto: measured first.
type Baseline struct {
	PerSec float64
	Auto   bool
	// fromWorkload tells that PerSec is the workload's own (a file's
	// baseline_rate), not a flag: a rate per second then leaves it unused
	// without a complaint.
	fromWorkload bool
}

// ParseBaseline reads a positive number of events per second, or auto.
func ParseBaseline(v string) (Baseline, error) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "auto") {
		return Baseline{Auto: true}, nil
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 || math.IsInf(n, 0) || math.IsNaN(n) {
		return Baseline{}, fmt.Errorf("%q is not a baseline (a positive number of events per second, or auto)", v)
	}
	return Baseline{PerSec: n}, nil
}

// IsZero reports that no baseline was given.
func (b Baseline) IsZero() bool { return b == Baseline{} }

// String is the baseline as --baseline-rate takes it.
func (b Baseline) String() string {
	if b.Auto {
		return "auto"
	}
	return strconv.FormatFloat(b.PerSec, 'g', -1, 64)
}
