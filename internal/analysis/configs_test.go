package analysis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// configOf is a configuration swept over threads at xs with throughput
// scale*x/(1+0.3(x-1)), its steps' results labelled "label threads X".
func configOf(name, label, axis string, scale float64, xs ...float64) Candidate {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw-" + name, Workload: "oltp_point_select", Axis: axis}
	var runs []*result.Run
	for _, x := range xs {
		step := axis + " " + fmtX(x)
		sw.Steps = append(sw.Steps, result.SweepStep{Label: step, X: x, Throughput: scale * x / (1 + 0.3*(x-1)), AvgMs: x, P99Ms: 3 * x})
		runs = append(runs, &result.Run{ID: name + step, Label: strings.TrimSpace(label + " " + step), Workload: sw.Workload,
			Options: map[string]any{"sweep_step": step, "table-size": 10000}, Load: result.Load{WarmupS: 1, DurationS: 3}})
	}
	return Candidate{Name: name, Sweep: Analyze(sw, OptionsOf(sw)), Runs: runs}
}

func fmtX(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func TestConfigOf(t *testing.T) {
	c := configOf("x", "HCI", "threads", 100, 1, 2, 4)
	if got := ConfigOf(c.Sweep.Sweep, c.Runs); got != "HCI" {
		t.Errorf("ConfigOf = %q, want the steps' common label HCI", got)
	}
	if got := ConfigOf(c.Sweep.Sweep, nil); got != "sw-x" {
		t.Errorf("without results: %q, want the sweep's id", got)
	}
	c.Runs[1].Label = "other threads 2"
	if got := ConfigOf(c.Sweep.Sweep, c.Runs); got != "sw-x" {
		t.Errorf("labels differ: %q, want the sweep's id", got)
	}
	c = configOf("y", "", "threads", 100, 1, 2)
	if got := ConfigOf(c.Sweep.Sweep, c.Runs); got != "sw-y" {
		t.Errorf("no label: %q, want the sweep's id", got)
	}
	for _, r := range c.Runs {
		r.Config = "12 vCPU"
	}
	if got := ConfigOf(c.Sweep.Sweep, c.Runs); got != "12 vCPU" {
		t.Errorf("results of one configuration: %q, want it", got)
	}
	c.Sweep.Config = "24 vCPU"
	if got := ConfigOf(c.Sweep.Sweep, c.Runs); got != "24 vCPU" {
		t.Errorf("sweep --config: %q, want the sweep's configuration first", got)
	}
}

// At a step (here the last one every configuration swept: the default
// before capacities were compared, and still when not every configuration
// has one), rows are ranked by throughput there, with the ratio to the
// best.
func TestCompareConfigsDefaultAtAndRanking(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2, 4, 8, 16)
	b := configOf("B", "B", "threads", 150, 1, 2, 4, 8)
	c := configOf("C", "C", "threads", 120, 2, 4, 8, 16)
	cmp, err := CompareConfigs([]Candidate{a, b, c}, "8")
	if err != nil {
		t.Fatal(err)
	}
	if cmp.AtX != 8 || cmp.At != "threads 8" {
		t.Errorf("at %q (%g), want the last common step threads 8", cmp.At, cmp.AtX)
	}
	if got := cmp.Common; len(got) != 3 || got[0] != 2 || got[2] != 8 {
		t.Errorf("common steps %v, want 2 4 8", got)
	}
	var order []string
	for i, r := range cmp.Rows {
		order = append(order, r.Config)
		if r.Rank != i+1 {
			t.Errorf("row %d has rank %d", i, r.Rank)
		}
	}
	if strings.Join(order, ",") != "B,C,A" {
		t.Errorf("ranked %v, want B,C,A (most throughput first)", order)
	}
	if r := cmp.Rows[2]; math.Abs(r.RatioToBest-100.0/150) > 1e-9 || cmp.Rows[0].RatioToBest != 1 {
		t.Errorf("ratios %g %g, want 1 and 0.667", cmp.Rows[0].RatioToBest, r.RatioToBest)
	}
	if len(cmp.Notes) != 0 {
		t.Errorf("same options, but notes %q", cmp.Notes)
	}
}

func TestCompareConfigsAt(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2, 4)
	b := configOf("B", "B", "threads", 150, 1, 2, 4)
	for _, at := range []string{"threads 2", "THREADS 2", "2", " 2 "} {
		cmp, err := CompareConfigs([]Candidate{a, b}, at)
		if err != nil || cmp.AtX != 2 || cmp.At != "threads 2" {
			t.Errorf("--at %q: %q (%g), %v; want threads 2", at, cmp.At, cmp.AtX, err)
		}
	}
	_, err := CompareConfigs([]Candidate{a, b}, "threads 3")
	if !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), `"threads 1", "threads 2", "threads 4"`) {
		t.Errorf("--at threads 3: %v; want a refusal listing the common steps", err)
	}
}

// The refusals: different workloads, different axes, no common step.
func TestCompareConfigsRefuses(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2, 4)
	other := configOf("B", "B", "threads", 100, 1, 2, 4)
	other.Sweep.Workload = "tpcc"
	rate := configOf("R", "R", "rate", 100, 1, 2, 4)
	apart := configOf("D", "D", "threads", 100, 8, 16)
	for _, tc := range []struct {
		name string
		with Candidate
		want string
	}{
		{"workloads", other, "different workloads (A: oltp_point_select, B: tpcc)"},
		{"axes", rate, "different axes (A: threads, R: rate)"},
		{"no common step", apart, "no threads step is common"},
	} {
		_, err := CompareConfigs([]Candidate{a, tc.with}, "")
		if !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a refusal saying %q", tc.name, err, tc.want)
		}
	}
}

// Options that differ are noted (not refused), each with every
// configuration's value; the step's own option is not one of them.
func TestCompareConfigsNotesOptions(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2)
	b := configOf("B", "B", "threads", 100, 1, 2)
	b.Runs[0].Options["table-size"] = 500
	b.Runs[0].Load.DurationS = 10
	cmp, err := CompareConfigs([]Candidate{a, b}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Notes) != 1 || !strings.Contains(cmp.Notes[0], "table-size (A 10000, B 500); time (A 3s, B 10s)") || strings.Contains(cmp.Notes[0], "sweep_step") {
		t.Errorf("notes %q", cmp.Notes)
	}
}

// Two sweeps of one configuration name run with different options are
// told apart by their ids.
func TestCompareConfigsSameName(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2)
	b := configOf("B", "B", "threads", 120, 1, 2)
	b.Name = "A"
	for _, r := range b.Runs {
		r.Options["table-size"] = 500
	}
	cmp, err := CompareConfigs([]Candidate{a, b}, "")
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Rows[0].Config != "A (sw-B)" || cmp.Rows[1].Config != "A (sw-A)" || len(cmp.Notes) != 2 {
		t.Errorf("rows %q %q notes %q", cmp.Rows[0].Config, cmp.Rows[1].Config, cmp.Notes)
	}
}

// Sweeps of one configuration name and the same options are repeats of
// it: one row of their means with the interval of the mean throughput, a
// mean curve, and the lead over the next configuration with a bootstrap
// interval where both were repeated.
func TestCompareConfigsRepeats(t *testing.T) {
	var cs []Candidate
	for i, scale := range []float64{100, 104, 96} {
		a := configOf("A", "A", "threads", scale, 1, 2, 4)
		a.Sweep.ID = fmt.Sprintf("sw-A%d", i)
		cs = append(cs, a)
	}
	for i, scale := range []float64{121, 118, 121} {
		b := configOf("B", "B", "threads", scale, 1, 2, 4)
		b.Sweep.ID = fmt.Sprintf("sw-B%d", i)
		cs = append(cs, b)
	}
	cmp, err := CompareConfigs(cs, "4") // at a step: repeats' means there
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Rows) != 2 || len(cmp.Configs) != 2 {
		t.Fatalf("%d rows, %d configurations; want the repeats gathered into 2", len(cmp.Rows), len(cmp.Configs))
	}
	at4 := func(scale float64) float64 { return scale * 4 / (1 + 0.3*3) }
	b, a := cmp.Rows[0], cmp.Rows[1]
	if b.Config != "B" || b.Repeats != 3 || math.Abs(b.Throughput-at4(120)) > 1e-9 {
		t.Errorf("best row %s, %d repeats, %g/s; want B, 3, the mean %g", b.Config, b.Repeats, b.Throughput, at4(120))
	}
	if !(a.ThroughputLow < a.Throughput && a.Throughput < a.ThroughputHigh) || a.ThroughputLow < at4(80) || a.ThroughputHigh > at4(120) {
		t.Errorf("A's interval %g..%g around %g", a.ThroughputLow, a.ThroughputHigh, a.Throughput)
	}
	if got := cmp.Configs[0].Sweep.Steps[2].Throughput; math.Abs(got-at4(100)) > 1e-9 {
		t.Errorf("A's mean curve at 4: %g, want %g", got, at4(100))
	}
	l := cmp.Lead
	if math.Abs(l.Pct-20) > 1e-9 || !(l.LowPct > 10 && l.LowPct < 20 && l.HighPct > 20 && l.HighPct < 30) || l.BestN != 3 || l.NextN != 3 {
		t.Errorf("lead %+v, want +20 %% with an interval about it, above 0", l)
	}
	if len(cmp.Notes) != 2 || !strings.Contains(cmp.Notes[0], `"A" was swept 3 times`) {
		t.Errorf("notes %q", cmp.Notes)
	}
	// Swept once each: no interval.
	one, err := CompareConfigs([]Candidate{cs[0], cs[3]}, "4")
	if err != nil {
		t.Fatal(err)
	}
	if one.Rows[0].Repeats != 1 || !math.IsNaN(one.Rows[0].ThroughputLow) || !math.IsNaN(one.Lead.LowPct) || math.IsNaN(one.Lead.Pct) {
		t.Errorf("one sweep each: row %+v lead %+v; want no intervals, a lead", one.Rows[0], one.Lead)
	}
}

// A compared step at or after one the load generator limited is noted,
// naming the configuration and the step.
func TestCompareConfigsNotesGeneratorLimit(t *testing.T) {
	a := configOf("A", "A", "threads", 100, 1, 2, 4)
	b := configOf("B", "B", "threads", 120, 1, 2, 4)
	sw := *b.Sweep.Sweep
	sw.Steps = append([]result.SweepStep(nil), sw.Steps...)
	sw.Steps[1].StartLagP99Ms = 50
	b.Sweep = Analyze(&sw, OptionsOf(&sw))
	cmp, err := CompareConfigs([]Candidate{a, b}, "4")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Notes) != 1 || !strings.Contains(cmp.Notes[0], "The load generator limited B from threads 2 on (") || !strings.Contains(cmp.Notes[0], "at threads 4") {
		t.Errorf("notes %q", cmp.Notes)
	}
	if cmp, _ := CompareConfigs([]Candidate{a, b}, "1"); len(cmp.Notes) != 0 {
		t.Errorf("at threads 1: notes %q", cmp.Notes)
	}
}

// A repeated configuration's host CPU at a step is the repeats' mean, in
// a copy: the first repeat's sweep keeps its own.
func TestCompareConfigsRepeatsMeanHostCPU(t *testing.T) {
	var cs []Candidate
	for i, busy := range []float64{40, 60} {
		c := configOf("A", "A", "threads", 100, 1, 2)
		sw := *c.Sweep.Sweep
		sw.ID = fmt.Sprintf("sw-A%d", i)
		sw.Steps = append([]result.SweepStep(nil), sw.Steps...)
		for j := range sw.Steps {
			sw.Steps[j].Host = &result.Host{CPUs: 2, RunQueue: int64(busy), CPU: result.CPUPct{User: busy, System: busy / 4, Idle: 100 - 1.25*busy}}
		}
		c.Sweep = Analyze(&sw, OptionsOf(&sw))
		cs = append(cs, c)
	}
	cmp, err := CompareConfigs(cs, "")
	if err != nil {
		t.Fatal(err)
	}
	h := cmp.Rows[0].Host
	if h == nil || h.CPU.User != 50 || h.CPU.System != 12.5 || h.RunQueue != 40 {
		t.Errorf("host %+v, want the mean CPU (user 50, system 12.5) and the first's run queue", h)
	}
	if cs[0].Sweep.Steps[1].Host.CPU.User != 40 {
		t.Errorf("the first repeat's host changed: %+v", cs[0].Sweep.Steps[1].Host)
	}
}

// TestCompareConfigsNotesAStall: a configuration's step in which the
// generator stalled is named in the comparison's notes.
func TestCompareConfigsNotesAStall(t *testing.T) {
	mk := func(name string, cpu ...float64) Candidate {
		sw := &result.Sweep{Workload: "fileio", Axis: "read", OwnSteps: true, Config: name}
		for i, c := range cpu {
			x := float64(100 - 10*i)
			sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprint(x), X: x, Throughput: 1000, ClientCPUUs: c})
		}
		return Candidate{Name: name, Sweep: Analyze(sw, OptionsOf(sw))}
	}
	c, err := CompareConfigs([]Candidate{mk("b16k", 4.6, 199, 4.6), mk("b4k", 4.6, 4.7, 4.5)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Join(c.Notes, "\n"); !strings.Contains(n, "The load generator stalled in b16k's step 90 (the generator used 199 µs of CPU per event") || strings.Contains(n, "b4k's") {
		t.Errorf("notes:\n%s", n)
	}
}

// searched is a configuration whose sweep is a capacity search with
// answer a at steps xs (throughput tp(x)).
func searched(name string, a *result.Search, tp func(x float64) float64, xs ...float64) Candidate {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw-" + name, Workload: "oltp_read_only", Axis: "rate", Search: a}
	for _, x := range xs {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: "rate " + fmtX(x) + "/s", X: x, Offered: x, Throughput: tp(x), AvgMs: 1, P99Ms: 5})
	}
	return Candidate{Name: name, Sweep: Analyze(sw, OptionsOf(sw))}
}

// By default, configurations that all have a capacity are ranked by it,
// not at a step they share (searched ones probe rates of their own): each
// row at its own capacity step; a search that never met its objective
// ranks last with a note, as does one that met it to its last probe.
func TestCompareConfigsAtCapacity(t *testing.T) {
	obj := func(outcome string, x, next float64) *result.Search {
		return &result.Search{Axis: "rate", SLOMs: 20, Percentile: "p99", Outcome: outcome, X: x, Next: next}
	}
	same := func(x float64) float64 { return x }
	a := searched("PostgreSQL", obj("found", 400, 420), same, 100, 200, 400, 420, 800)
	b := searched("MariaDB", obj("found", 600, 630), same, 150, 300, 600, 630, 1200)
	never := searched("tiny", obj("never_met", 0, 0), same, 50, 25)
	above := searched("huge", obj("always_met", 1600, 0), same, 400, 800, 1600)
	cmp, err := CompareConfigs([]Candidate{a, b, never, above}, "")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range cmp.Rows {
		order = append(order, fmt.Sprintf("%s %g %s", r.Config, r.Throughput, r.Step))
	}
	if got := strings.Join(order, ", "); got != "huge 1600 rate 1600/s, MariaDB 600 rate 600/s, PostgreSQL 400 rate 400/s, tiny 50 rate 50/s" {
		t.Errorf("rows %s", got)
	}
	// The one that never met its objective ranks last at its step nearest
	// it (equal p99: the most throughput), with no ratio to the best.
	if r := cmp.Rows[3]; r.NeverMet != "p99 <= 20 ms" || !math.IsNaN(r.RatioToBest) || cmp.Rows[2].NeverMet != "" {
		t.Errorf("last row %+v: want never met p99 <= 20 ms, no ratio", r)
	}
	if cmp.At != "each one's capacity (p99 <= 20 ms)" || len(cmp.Common) != 0 {
		t.Errorf("at %q, common %v", cmp.At, cmp.Common)
	}
	notes := strings.Join(cmp.Notes, "\n")
	if !strings.Contains(notes, "tiny's capacity: never met p99 <= 20 ms; its row is its step nearest the objective (rate 50/s)") || !strings.Contains(notes, "huge's capacity: searched at p99 <= 20 ms, still met at the last probe: at least this") {
		t.Errorf("notes %q", cmp.Notes)
	}
	// A fixed sweep's knee is its capacity: configOf's curves have one.
	k1, k2 := configOf("A", "A", "threads", 100, 1, 2, 4, 8, 16), configOf("B", "B", "threads", 150, 1, 2, 4, 8)
	cmp, err = CompareConfigs([]Candidate{k1, k2}, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cmp.Rows {
		if !r.Found || r.Step != r.KneeStep || r.Throughput != r.KneeThroughput {
			t.Errorf("row %s at %s (%g/s), knee %s (%g/s): want it at its knee", r.Config, r.Step, r.Throughput, r.KneeStep, r.KneeThroughput)
		}
	}
	// --at a step still compares there; --at capacity insists.
	if cmp, err := CompareConfigs([]Candidate{k1, k2}, "4"); err != nil || cmp.At != "threads 4" {
		t.Errorf("--at 4: %q, %v", cmp.At, err)
	}
	if _, err := CompareConfigs([]Candidate{k1, configOf("flat", "flat", "threads", 100, 1, 2)}, AtCapacity); err == nil || !strings.Contains(err.Error(), "flat has no capacity") {
		t.Errorf("--at capacity without one: %v", err)
	}
}

// Repeats whose own spread is wider than the lead are said not to settle
// the ranking, and no interval reaches below what can be: a throughput
// under 0, a lead under -100 %.
func TestCompareConfigsRepeatsDisagree(t *testing.T) {
	var cs []Candidate
	for i, x := range []float64{136, 1029} { // one configuration's repeats, far apart
		c := searched("MariaDB", &result.Search{Axis: "rate", SLOMs: 20, Percentile: "p99", Outcome: "found", X: x, Next: 2 * x}, func(r float64) float64 { return r }, x, 2*x)
		c.Sweep.ID, c.Runs = fmt.Sprintf("sw-M%d", i), nil
		cs = append(cs, c)
	}
	for i, x := range []float64{400, 410} {
		c := searched("PostgreSQL", &result.Search{Axis: "rate", SLOMs: 20, Percentile: "p99", Outcome: "found", X: x, Next: 2 * x}, func(r float64) float64 { return r }, x, 2*x)
		c.Sweep.ID = fmt.Sprintf("sw-P%d", i)
		cs = append(cs, c)
	}
	cmp, err := CompareConfigs(cs, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cmp.Rows {
		if r.ThroughputLow < 0 {
			t.Errorf("%s's interval starts at %g/s: below 0", r.Config, r.ThroughputLow)
		}
	}
	if l := cmp.Lead; l.LowPct < -100 {
		t.Errorf("lead interval from %g %%", l.LowPct)
	}
	if !strings.Contains(strings.Join(cmp.Notes, "\n"), "MariaDB's own repeats span 136/s to 1029/s, more than the") {
		t.Errorf("notes %q: want the repeats' spread against the lead", cmp.Notes)
	}
	if !strings.Contains(strings.Join(cmp.Notes, "\n"), `"PostgreSQL" was swept 2 times with the same options: its capacity is the mean of each sweep's own`) {
		t.Errorf("notes %q: want the repeats' capacities averaged, said so", cmp.Notes)
	}
}

// Repeats of a configuration whose first sweep never met its objective and
// whose second did: it met it, at the second's capacity step, its capacity
// the mean of the two (0/s for the first), said in a note; no figure of
// its row is NaN.
func TestCompareConfigsRepeatsOneNeverMet(t *testing.T) {
	obj := func(outcome string, x float64) *result.Search {
		return &result.Search{Axis: "rate", SLOMs: 20, Percentile: "p99", Outcome: outcome, X: x, Next: 2 * x}
	}
	same := func(x float64) float64 { return x }
	var cs []Candidate
	for i, o := range []*result.Search{obj("never_met", 0), obj("found", 200)} {
		c := searched("MariaDB", o, same, 100, 200, 400)
		c.Sweep.ID = fmt.Sprintf("sw-M%d", i)
		cs = append(cs, c)
	}
	cs = append(cs, searched("PostgreSQL", obj("found", 400), same, 100, 200, 400))
	cmp, err := CompareConfigs(cs, "")
	if err != nil {
		t.Fatal(err)
	}
	r := cmp.Rows[1]
	if r.Config != "MariaDB" || r.NeverMet != "" || r.Step != "rate 200/s" || r.Throughput != 100 || r.Repeats != 2 || math.IsNaN(r.P99Ms) || math.IsNaN(r.AvgMs) {
		t.Errorf("row %+v: want MariaDB at rate 200/s, a capacity of 100/s over 2 sweeps", r)
	}
	if !strings.Contains(strings.Join(cmp.Notes, "\n"), "MariaDB met its objective in 1 of its 2 sweeps") {
		t.Errorf("notes %q", cmp.Notes)
	}
}
