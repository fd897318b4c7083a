package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// rateSweep is an open loop at 1x..5x of 100/s: sustained to 2x, while the
// marginal method finds its bend at 3x.
func rateSweep() *analysis.Result {
	h := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 50}}
	sw := &result.Sweep{ID: "s", Workload: "oltp_read_write", Axis: "rate", BaselineRate: 100, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "1x", X: 1, Offered: 100, Throughput: 100, P99Ms: 2, Host: h},
		{Label: "2x", X: 2, Offered: 200, Throughput: 199, P99Ms: 3, Host: h},
		{Label: "3x", X: 3, Offered: 300, Throughput: 280, P99Ms: 40, Host: h},
		{Label: "4x", X: 4, Offered: 400, Throughput: 290, P99Ms: 2000, Host: h},
		{Label: "5x", X: 5, Offered: 500, Throughput: 292, P99Ms: 3000, Host: h},
	}}
	return analysis.Analyze(sw, analysis.OptionsOf(sw))
}

// TestOneKneeEverywhere: the headline, the verdict, the text and Markdown
// reports and the HTML page's chart name the same knee by the same method
// (the chart rang the first method in the analysis's list, another one).
func TestOneKneeEverywhere(t *testing.T) {
	sw := rateSweep()
	var marginal analysis.Knee
	for _, k := range sw.Knees {
		if k.Method == "marginal" {
			marginal = k
		}
	}
	if marginal.Index < 0 || marginal.X == 2 {
		t.Fatalf("the test needs the marginal method elsewhere than the sustained knee: %+v", marginal)
	}
	head := strings.Join(Headline(Doc{Sweep: sw}), " ")
	if !strings.Contains(head, "Knee: 2x (sustained method)") {
		t.Errorf("headline: %s", head)
	}
	if v := strings.Join(SweepSentences(sw), " "); !strings.Contains(v, "The knee is at 2x (sustained method)") {
		t.Errorf("verdict: %s", v)
	}
	svg, err := throughputChart(sw)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, "knee (sustained): 2") || strings.Contains(svg, "knee (marginal)") {
		t.Errorf("the chart rings another knee than the headline's (2x, sustained)")
	}
	var page bytes.Buffer
	if err := HTML(&page, Doc{Title: "t", Sweep: sw}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "knee (sustained): 2") || strings.Contains(page.String(), "knee (marginal)") {
		t.Errorf("the HTML page rings another knee than the headline's")
	}
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := SweepReport(&b, sw, f); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "2x (sustained method)") {
			t.Errorf("format %d lacks the sustained knee at 2x:\n%s", f, b.String())
		}
	}
}

// TestNoKneeNamedPastTheLimit: every step behind its schedule, the
// headline, verdict and chart name no knee, and say why.
func TestNoKneeNamedPastTheLimit(t *testing.T) {
	h := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 97}}
	sw := &result.Sweep{ID: "s", Workload: "oltp_read_write", Axis: "rate", BaselineRate: 400, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "1x", X: 1, Offered: 400, Throughput: 300, P99Ms: 4000, Host: h, Dropped: 10},
		{Label: "2x", X: 2, Offered: 800, Throughput: 360, P99Ms: 11300, Host: h, Dropped: 100},
		{Label: "3x", X: 3, Offered: 1200, Throughput: 340, P99Ms: 15000, Host: h, Dropped: 200},
		{Label: "4x", X: 4, Offered: 1600, Throughput: 330, P99Ms: 17000, Host: h, Dropped: 300},
	}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	head := strings.Join(Headline(Doc{Sweep: r}), " ")
	if strings.Contains(head, "Knee:") || !strings.Contains(head, "No knee: no step kept up: the system was past its limit at the first step (1x: 300/s done of 400/s offered") {
		t.Errorf("headline: %s", head)
	}
	v := strings.Join(SweepSentences(r), " ")
	if strings.Contains(v, "The knee is at") || !strings.Contains(v, "no VM is planned from this sweep") || !strings.Contains(v, "At the first step: CPU-bound") {
		t.Errorf("verdict: %s", v)
	}
	svg, err := throughputChart(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(svg, "knee (") {
		t.Errorf("the chart rings a knee")
	}
}

// TestStalledStepSaidSo: a fileio read mix in which the generator stalled
// is named in the headline and the verdict of a sweep of the workload's
// own steps (it was reported as an ordinary step).
func TestStalledStepSaidSo(t *testing.T) {
	sw := &result.Sweep{ID: "s", Workload: "fileio", Axis: "read", OwnSteps: true, HostIsServer: true, Steps: []result.SweepStep{
		{Label: "100", X: 100, Throughput: 9000, ClientCPUUs: 4.6},
		{Label: "90", X: 90, Throughput: 800, ClientCPUUs: 199},
		{Label: "70", X: 70, Throughput: 8000, ClientCPUUs: 4.5},
	}}
	r := analysis.Analyze(sw, analysis.OptionsOf(sw))
	sw.Steps[1].Throughput = 90000 // the most, but the generator's figure
	r = analysis.Analyze(sw, analysis.OptionsOf(sw))
	if head := strings.Join(Headline(Doc{Sweep: r}), " "); !strings.Contains(head, "The load generator stalled at 90") || !strings.Contains(head, "Most throughput: 9000/s at 100") {
		t.Errorf("headline: %s", head)
	}
	var b bytes.Buffer
	if err := SweepReport(&b, r, Text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "The load generator stalled at 90 (the generator used 199 µs of CPU per event, 43x the sweep's median of 4.6 µs") {
		t.Errorf("report:\n%s", b.String())
	}
}

// TestStepsCountRetriesAndDeadlocks: a step whose throughput collapsed
// under deadlocks (retried, so no errors) shows them in every form of the
// steps table; it showed "errors 0" alone.
func TestStepsCountRetriesAndDeadlocks(t *testing.T) {
	sw := analysis.Analyze(&result.Sweep{ID: "s", Workload: "oltp_read_write", Axis: "threads", Steps: []result.SweepStep{
		{Label: "threads 8", X: 8, Throughput: 1072},
		{Label: "threads 16", X: 16, Throughput: 3.3, Retries: 41, Deadlocks: 33},
	}}, analysis.Options{})
	for _, f := range []Format{Text, Markdown, CSV} {
		var b bytes.Buffer
		if err := SweepTable(&b, sw, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "retries") || !strings.Contains(out, "deadlocks") {
			t.Errorf("format %d: no retries or deadlocks column:\n%s", f, out)
		}
		line := lineWith(out, "threads 16")
		if !strings.Contains(line, "41") || !strings.Contains(line, "33") {
			t.Errorf("format %d: the step's line lacks its 41 retries and 33 deadlocks: %q", f, line)
		}
	}
	if v := strings.Join(SweepSentences(sw), " "); !strings.Contains(v, "at threads 16 (33 deadlocks, 41 retries, 0 errors)") {
		t.Errorf("verdict: %s", v)
	}
	// One retry in 10,720 events is no conflict worth a sentence.
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	few := analysis.Analyze(&result.Sweep{Axis: "threads", Steps: []result.SweepStep{
		{Label: "threads 8", X: 8, Throughput: 1072, Retries: 1, From: at, To: at.Add(10 * time.Second)}}}, analysis.Options{})
	if v := strings.Join(SweepSentences(few), " "); strings.Contains(v, "Conflicts") {
		t.Errorf("one retry in 10,720 events named: %s", v)
	}
	var page bytes.Buffer
	if err := HTML(&page, Doc{Title: "t", Sweep: sw}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<th>retries</th><th>deadlocks</th>") || !strings.Contains(page.String(), "<td>0</td><td>41</td><td>33</td>") {
		t.Errorf("the HTML steps table lacks the retries and deadlocks")
	}
	// The table made from the runs (printed after a sweep) counts them too.
	r := &result.Run{Label: "threads 16", Summary: result.Summary{Throughput: 3.3, Retries: 41,
		RetriesByClass: map[string]int64{"deadlock": 30, "serialization": 11}, ErrorsByClass: map[string]int64{"deadlock": 3}, Errors: 3}}
	var b bytes.Buffer
	if err := Steps(&b, []*result.Run{r}); err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(lineWith(b.String(), "threads 16")); len(f) < 9 || f[6] != "3" || f[7] != "41" || f[8] != "33" {
		t.Errorf("run's row %q: want errors 3, retries 41, deadlocks 33\n%s", f, b.String())
	}
}

func lineWith(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
