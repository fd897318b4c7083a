package report_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// searchedConfig is a configuration whose sweep is a capacity search with
// answer a over its probes: each step a rate offered, the throughput it
// carried and its p99.
func searchedConfig(name string, a *result.Search, steps ...[3]float64) analysis.Candidate {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw-" + name, Workload: "oltp_read_only", Axis: "rate", Config: name, Search: a, HostIsServer: true}
	var runs []*result.Run
	for _, s := range steps {
		label := fmt.Sprintf("rate %g/s", s[0])
		sw.Steps = append(sw.Steps, result.SweepStep{Label: label, X: s[0], Offered: s[0], Throughput: s[1], AvgMs: s[2] / 4, P95Ms: s[2] / 2, P99Ms: s[2],
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 40, System: 10, Idle: 50}}})
		runs = append(runs, &result.Run{ID: name + label, Label: name + " " + label, Workload: sw.Workload, Config: name,
			Options: map[string]any{"sweep_step": label}, Load: result.Load{Mode: "open", WarmupS: 1, DurationS: 10}})
	}
	return analysis.Candidate{Name: name, Sweep: analysis.Analyze(sw, analysis.OptionsOf(sw)), Runs: runs}
}

// allForms is c written in every format a comparison has: text, Markdown,
// CSV and the HTML page.
func allForms(t *testing.T, c analysis.ConfigComparison) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, f := range map[string]report.Format{"text": report.Text, "md": report.Markdown, "csv": report.CSV} {
		var b bytes.Buffer
		if err := report.CompareReport(&b, c, f); err != nil {
			t.Fatal(err)
		}
		out[name] = b.String()
	}
	out["html"] = compareHTML(t, c)
	return out
}

// noInfinity fails where a rendering prints a figure that is not one.
func noInfinity(t *testing.T, forms map[string]string) {
	t.Helper()
	for name, s := range forms {
		for _, bad := range []string{"NaN", "Inf", "∞"} {
			if i := strings.Index(s, bad); i >= 0 {
				t.Errorf("%s prints %q: %q", name, bad, s[max(0, i-120):min(len(s), i+40)])
			}
		}
	}
}

// Issue 47 (5): PostgreSQL never met p99 <= 20 ms while MariaDB did at
// 127/s. The comparison at each one's capacity says that PostgreSQL never
// met the objective and what it did at its best step (the throughput it
// carried and its p99 there), ranks it after the one that met it, and
// prints no infinite or NaN figure in any format.
func TestCompareCapacityOneNeverMet(t *testing.T) {
	obj := func(outcome string, x, next float64) *result.Search {
		return &result.Search{Axis: "rate", SLOMs: 20, Percentile: "p99", Outcome: outcome, X: x, Next: next}
	}
	pg := searchedConfig("pg15", obj("never_met", 0, 0), [3]float64{3200, 1520, 900}, [3]float64{1600, 1510, 64}, [3]float64{2400, 1515, 300})
	maria := searchedConfig("mariadb10.11", obj("found", 127, 254), [3]float64{1700, 1611, 2000}, [3]float64{127, 127, 15}, [3]float64{254, 250, 80})
	c, err := analysis.CompareConfigs([]analysis.Candidate{pg, maria}, "")
	if err != nil {
		t.Fatal(err)
	}
	h := report.CompareHeadline(c)
	if !strings.HasPrefix(h[0], "mariadb10.11: 127/s at each one's capacity (p99 <= 20 ms)") {
		t.Errorf("headline %q: want MariaDB's capacity first", h[0])
	}
	if !strings.Contains(h[0], "pg15 never met p99 <= 20 ms") || !strings.Contains(h[0], "1,510/s at p99 64 ms (rate 1600/s)") {
		t.Errorf("headline %q: want PostgreSQL said never to meet the objective, with its best step", h[0])
	}
	if len(c.Rows) != 2 || c.Rows[0].Config != "mariadb10.11" || c.Rows[1].Config != "pg15" || c.Rows[1].NeverMet == "" {
		t.Fatalf("rows %+v: want MariaDB first, then pg15 marked never met", c.Rows)
	}
	forms := allForms(t, c)
	noInfinity(t, forms)
	if !strings.Contains(forms["text"], "never met") || !strings.Contains(forms["text"], "1,510") || !strings.Contains(forms["text"], "64.000") {
		t.Errorf("text table:\n%s\nwant pg15's row to say it never met the objective, with its best step's figures", forms["text"])
	}
	if !strings.Contains(forms["csv"], "pg15,2,rate 1600/s,1600,1510.00,,16.000,64.000") || !strings.Contains(forms["csv"], "never met p99 <= 20 ms") {
		t.Errorf("csv:\n%s", forms["csv"])
	}
	// Neither met it: no winner, each one's best step.
	pg2 := searchedConfig("pg16", obj("never_met", 0, 0), [3]float64{800, 700, 40})
	c, err = analysis.CompareConfigs([]analysis.Candidate{pg, pg2}, "")
	if err != nil {
		t.Fatal(err)
	}
	h = report.CompareHeadline(c)
	if want := "No configuration met p99 <= 20 ms; each one's best step: pg15 1,510/s at p99 64 ms (rate 1600/s), pg16 700/s at p99 40 ms (rate 800/s)."; h[0] != want {
		t.Errorf("headline %q", h[0])
	}
	noInfinity(t, allForms(t, c))
}

// At a step, a configuration that completed nothing there (a zero
// baseline) is no "+∞ %" lead: it is said to have completed none, and no
// figure of its row is NaN.
func TestCompareAtStepZeroNext(t *testing.T) {
	a := configSwept("A", "sw-a", "oltp_read_only", "threads", []float64{1, 2, 4}, func(x float64) float64 { return 100 * x }, nil)
	b := configSwept("B", "sw-b", "oltp_read_only", "threads", []float64{1, 2, 4}, func(x float64) float64 { return 0 }, nil)
	for i := range b.Sweep.Steps { // no event, so no response time either
		b.Sweep.Steps[i].AvgMs, b.Sweep.Steps[i].P95Ms, b.Sweep.Steps[i].P99Ms = 0, 0, 0
	}
	c, err := analysis.CompareConfigs([]analysis.Candidate{a, b}, "threads 4")
	if err != nil {
		t.Fatal(err)
	}
	h := report.CompareHeadline(c)
	if !strings.Contains(h[0], "A: 400/s at threads 4") || !strings.Contains(h[0], "B completed none") {
		t.Errorf("headline %q", h[0])
	}
	noInfinity(t, allForms(t, c))
	// A step one configuration lacks (repeats that did not all reach it)
	// leaves NaN figures in its row: they are printed as none.
	c.Rows[1].AvgMs, c.Rows[1].P99Ms, c.Rows[1].Throughput = math.NaN(), math.NaN(), math.NaN()
	noInfinity(t, allForms(t, c))
}

// history compare against a baseline that completed nothing (0/s, no
// response times): no change in percent can be taken, and the table
// prints none and a note says why, never an infinite or NaN figure.
func TestWriteComparisonZeroBaseline(t *testing.T) {
	mk := func(id string, rate float64) *result.Run {
		r := &result.Run{ID: id, Workload: "oltp_read_only", Summary: result.Summary{Throughput: rate, DurationS: 3}}
		if rate > 0 {
			r.Summary.Latency = result.Latency{AvgMs: 1, P50Ms: 1, P95Ms: 2, P99Ms: 3, P999Ms: 4, MaxMs: 5}
		}
		for range 3 {
			iv := result.Interval{Phase: "measure", DurationS: 1, Rate: rate, Events: int64(rate)}
			if rate > 0 {
				iv.Latency = r.Summary.Latency
			}
			r.Intervals = append(r.Intervals, iv)
		}
		return r
	}
	c := analysis.Compare([]*result.Run{mk("base", 0)}, []*result.Run{mk("cand", 1000)}, 200, 1)
	var b bytes.Buffer
	if err := report.WriteComparison(&b, c); err != nil {
		t.Fatal(err)
	}
	noInfinity(t, map[string]string{"history compare": b.String()})
	if !strings.Contains(b.String(), "note: the baseline's throughput is 0/s: no change in percent can be taken from it (the candidate's: 1000.00/s)") {
		t.Errorf("comparison:\n%s\nwant a note on the zero baseline", b.String())
	}
}
