package report

import (
	"math"
	"strconv"

	"github.com/rightsize/rightsize/internal/report/svgchart"
)

// The tick format every chart shares: steps of 1, 2 or 5 times a power of
// ten, about five of them per axis, labelled by tickLabel.

// niceTicks marks a linear axis at 1-2-5 steps, with an unlabelled minor
// tick between two labelled ones.
type niceTicks struct{}

var _ svgchart.Ticker = niceTicks{}

func (niceTicks) Ticks(min, max float64) []svgchart.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return []svgchart.Tick{{Value: min, Label: tickLabel(min, 0)}}
	}
	step := niceStep((max - min) / 5)
	var ts []svgchart.Tick
	first := math.Ceil(min/step-1e-9) * step
	for k := 0; ; k++ {
		v := first + float64(k)*step
		if v > max+step*1e-9 || k > 100 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ts = append(ts, svgchart.Tick{Value: v, Label: tickLabel(v, step)})
		if m := v + step/2; m <= max {
			ts = append(ts, svgchart.Tick{Value: m})
		}
	}
	if first-step/2 >= min {
		ts = append([]svgchart.Tick{{Value: first - step/2}}, ts...)
	}
	return ts
}

// niceStep is the 1-2-5 step nearest above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// logTicks marks a logarithmic axis at 1, 2 and 5 times each power of ten
// (only the powers of ten once the axis spans more than three decades),
// labelled like every other axis, with unlabelled minor ticks at the other
// integer multiples.
type logTicks struct{}

var _ svgchart.Ticker = logTicks{}

func (logTicks) Ticks(min, max float64) []svgchart.Tick {
	if min <= 0 || !(max > min) {
		return niceTicks{}.Ticks(min, max)
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	wide := hi-lo > 3
	var ts []svgchart.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, e)
		for m := 1.0; m < 10; m++ {
			v := m * p
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			t := svgchart.Tick{Value: v}
			if m == 1 || (!wide && (m == 2 || m == 5)) {
				t.Label = tickLabel(v, p)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// tickLabel writes v with as many decimals as step needs (none for a
// step of 1 or more), thousands separated by commas below 10,000, and as
// k and M above (12k, 2.5M).
func tickLabel(v, step float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trimZeros(strconv.FormatFloat(v/1e9, 'f', decimals(step/1e9), 64)) + "G"
	case a >= 1e6:
		return trimZeros(strconv.FormatFloat(v/1e6, 'f', decimals(step/1e6), 64)) + "M"
	case a >= 1e4:
		return trimZeros(strconv.FormatFloat(v/1e3, 'f', decimals(step/1e3), 64)) + "k"
	}
	s := trimZeros(strconv.FormatFloat(v, 'f', decimals(step), 64))
	if a >= 1000 {
		s = thousands(s)
	}
	return s
}

// decimals is how many decimals a step needs: 0 for 1 and more, 1 for
// 0.1..0.5 (0.25 would need 2; 1-2-5 steps never give it), and so on.
func decimals(step float64) int {
	if step <= 0 || step >= 1 || math.IsNaN(step) {
		return 0
	}
	return min(int(math.Ceil(-math.Log10(step)-1e-9)), 9)
}
