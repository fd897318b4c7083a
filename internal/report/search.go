package report

import (
	"fmt"
	"image/color"
	"math"

	"github.com/rightsize/rightsize/internal/report/svgchart"
	"github.com/rightsize/rightsize/internal/result"
)

// ProbeLine words a probe as the console shows it: "met (p99 3.1 ms,
// 400/s done of 400/s)", or why not.
func ProbeLine(pct string, sloMs float64, p result.SearchProbe) string {
	s := fmt.Sprintf("met the objective (%s %s of %g ms; %s/s done", pct, Ms(p.LatencyMs), sloMs, Grouped(p.Throughput))
	if !p.Met {
		s = fmt.Sprintf("missed: %s (%s/s done", p.Why, Grouped(p.Throughput))
	}
	if p.Offered > 0 {
		s += " of " + Grouped(p.Offered) + "/s offered"
	}
	s += ")"
	if p.Near {
		s += "; near the boundary: run again"
	}
	if p.Generator != "" {
		s += "; the load generator limited it: " + p.Generator
	}
	return s
}

// SearchLine words a search's answer: "capacity at p99 <= 20 ms: 1,840/s
// (rate 1840/s met it, 1940/s did not: within 5.4%)", or that there is
// none, and why the search stopped.
func SearchLine(a *result.Search) string {
	obj := fmt.Sprintf("%s <= %g ms", a.Percentile, a.SLOMs)
	unit := func(x float64) string {
		if a.Axis == "threads" {
			return fmt.Sprintf("%g virtual users", x)
		}
		return Grouped(x) + "/s offered"
	}
	switch a.Outcome {
	case "found":
		return fmt.Sprintf("capacity at %s: %s/s ± %.1f%% (%s met it, %s did not; %d probes; stopped: %s)",
			obj, Grouped(a.Capacity), 100*a.PrecisionReached, unit(a.X), unit(a.Next), len(a.Probes), a.Stopped)
	case "always_met":
		return fmt.Sprintf("capacity at %s: above %s/s (%s still met it; %d probes; stopped: %s): not found",
			obj, Grouped(a.Capacity), unit(a.X), len(a.Probes), a.Stopped)
	case "never_met":
		return fmt.Sprintf("no capacity at %s: not even the lightest probe met it (%d probes; stopped: %s)", obj, len(a.Probes), a.Stopped)
	}
	return fmt.Sprintf("no capacity at %s: %s (%d probes)", obj, a.Stopped, len(a.Probes))
}

// searchTable is a search's probes in the order they ran: the load, what
// was done, the searched percentile, and the verdict.
func searchTable(a *result.Search) table {
	t := table{title: fmt.Sprintf("the search's probes, in the order they ran (objective: %s <= %g ms)", a.Percentile, a.SLOMs),
		head: []string{"probe", "load", "done/s", a.Percentile, "verdict"}, textLast: true}
	for i, p := range a.Probes {
		load := fmt.Sprintf("%g threads", p.X)
		if a.Axis == "rate" {
			load = Grouped(p.X) + "/s"
		}
		verdict := "met"
		if !p.Met {
			verdict = "missed: " + p.Why
		}
		if p.Near {
			verdict += " (near the boundary)"
		}
		if p.Generator != "" {
			verdict += " (the generator limited it: " + p.Generator + ")"
		}
		t.rows = append(t.rows, []string{fmt.Sprint(i + 1), load, Grouped(p.Throughput), Ms(p.LatencyMs), verdict})
	}
	return t
}

// searchChart is a search's probes: the load probed against the searched
// percentile (log scale: a probe past the capacity can be a hundred times
// slower), the objective as a line, the probes that missed it apart from
// those that met it, and the answer ringed.
func searchChart(a *result.Search) (string, error) {
	if a == nil || len(a.Probes) == 0 {
		return "", nil
	}
	x := "virtual users per instance"
	if a.Axis == "rate" {
		x = "rate offered per instance (events/s)"
	}
	p := newPlot("Capacity search: each probe's "+a.Percentile, x, a.Percentile+" response time (ms)")
	var met, missed []svgchart.XY
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pr := range a.Probes {
		pt := svgchart.XY{X: pr.X, Y: math.Max(pr.LatencyMs, 0.001)}
		if pr.Met {
			met = append(met, pt)
		} else {
			missed = append(missed, pt)
		}
		lo, hi = math.Min(lo, pr.X), math.Max(hi, pr.X)
	}
	for _, s := range []struct {
		xys   []svgchart.XY
		name  string
		shape svgchart.Shape
		col   color.Color
	}{{met, "met the objective", svgchart.Circle, colAvg}, {missed, "missed it", svgchart.Cross, colP99}} {
		if len(s.xys) == 0 {
			continue
		}
		sc := svgchart.Points{XYs: s.xys, Glyph: svgchart.Glyph{Shape: s.shape, Color: s.col, Radius: 4}}
		p.Add(sc)
		p.AddLegend(s.name, sc)
	}
	slo := svgchart.Line{XYs: []svgchart.XY{{X: lo, Y: a.SLOMs}, {X: hi, Y: a.SLOMs}}, Color: colSys, Dashes: []float64{4, 3}}
	p.Add(slo)
	p.AddLegend(fmt.Sprintf("objective: %s %g ms", a.Percentile, a.SLOMs), slo)
	if a.X > 0 {
		for _, pr := range a.Probes {
			if pr.X == a.X && pr.Met {
				m := svgchart.Points{XYs: []svgchart.XY{{X: pr.X, Y: math.Max(pr.LatencyMs, 0.001)}}, Glyph: svgchart.Glyph{Shape: svgchart.Ring, Color: colSys, Radius: 8}}
				p.Add(m)
				p.AddLegend(fmt.Sprintf("the answer: %g", a.X), m)
				break
			}
		}
	}
	// Room above the slowest probe and below the fastest (and the
	// objective), on the log scale.
	ylo, yhi := a.SLOMs, a.SLOMs
	for _, pr := range a.Probes {
		v := math.Max(pr.LatencyMs, 0.001)
		ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
	}
	p.Y.Min, p.Y.Max = ylo/1.5, yhi*1.5
	pad := (hi - lo) * 0.05
	if pad == 0 {
		pad = lo * 0.1
	}
	p.X.Min, p.X.Max = math.Max(0, lo-pad), hi+pad
	p.Y.Log, p.Y.Ticker = true, logTicks{}
	return svgOf(chartH, p)
}
