package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/rightsize/rightsize/internal/result"
)

// ErrNotComparable is wrapped by CompareConfigs's refusals: sweeps of
// different workloads or axes, an --at step that is not common to all.
var ErrNotComparable = errors.New("the sweeps cannot be compared")

// Candidate is one configuration of a comparison: its sweep, as analysed, and
// the results of its steps (any of them may be missing: a sweep file read
// without its steps' results).
type Candidate struct {
	Name  string
	Sweep *Result
	Runs  []*result.Run
	// Repeats are the sweeps this configuration was measured by when it
	// was swept more than once (CompareConfigs gathers sweeps of one name
	// and the same options): then Sweep is their mean, step by step,
	// analysed anew, and Runs are the first repeat's results. Nil for a
	// configuration swept once.
	Repeats []Candidate
}

// ConfigOf is the configuration a sweep measured: its Config (sweep
// --config, by default the label, else the target's host), else (a sweep
// file written before configurations were recorded) the configuration or
// the label its steps' results share (a step's result is labelled "LABEL
// STEP", e.g. "HCI threads 8"), else the sweep's id. This is the one place
// that rule is written.
func ConfigOf(sw *result.Sweep, runs []*result.Run) string {
	if sw.Config != "" {
		return sw.Config
	}
	if c := commonConfig(runs); c != "" {
		return c
	}
	if l := commonLabel(sw, runs); l != "" {
		return l
	}
	return sw.ID
}

// commonConfig is the configuration every run names; "" when they have
// none or differ.
func commonConfig(runs []*result.Run) string {
	c := ""
	for i, r := range runs {
		if i > 0 && r.Config != c {
			return ""
		}
		c = r.Config
	}
	return c
}

// commonLabel is the label every step result of the sweep carries before
// its step's own label; "" when they have none or differ.
func commonLabel(sw *result.Sweep, runs []*result.Run) string {
	steps := map[string]bool{}
	for _, st := range sw.Steps {
		steps[st.Label] = true
	}
	label := ""
	for i, r := range runs {
		l := r.Label
		if step, _ := r.Options["sweep_step"].(string); step != "" {
			l = strings.TrimSuffix(l, step)
		} else {
			for s := range steps {
				if strings.HasSuffix(l, " "+s) {
					l = strings.TrimSuffix(l, s)
				}
			}
		}
		l = strings.TrimSpace(l)
		if i > 0 && l != label {
			return ""
		}
		label = l
	}
	return label
}

// ConfigRow is one configuration at the compared step.
type ConfigRow struct {
	Config string
	// Rank is 1 for the highest throughput at the step, 2 for the next...
	Rank int
	// Step is the compared step as this configuration labelled it.
	Step                     string
	X                        float64
	Throughput, AvgMs, P99Ms float64
	// Host is the host's figures at the step (nil: not sampled).
	Host *result.Host
	// RatioToBest is Throughput over the best configuration's (1 for the
	// best; NaN when the best did none).
	RatioToBest float64
	// Knee is the configuration's knee (PrimaryKnee); Found false: none in
	// its range, Knee.Reason says why.
	Knee  Knee
	Found bool
	// KneeStep is the knee's step label, KneeThroughput and KneeP99Ms
	// the figures there.
	KneeStep                  string
	KneeThroughput, KneeP99Ms float64
	// Repeats is how many sweeps of the configuration measured the step
	// (1: swept once); with two or more, the figures above are their
	// means and ThroughputLow..ThroughputHigh is the Student t 95 %
	// confidence interval of the mean throughput (NaN with one).
	Repeats                       int
	ThroughputLow, ThroughputHigh float64
	// Types are the transaction types at the step and SlowestFrequent the
	// slowest of the frequently used (result.SweepStep's; none for a
	// workload of one type).
	Types           []result.Type
	SlowestFrequent string
	// NeverMet is the objective a capacity search never met ("p99 <= 20
	// ms"; "" otherwise). Such a row ranks after every one that met its
	// objective, has no ratio to the best, and its Step and figures are
	// its best step's: the one nearest the objective (the least latency
	// on the objective's percentile, then the most throughput).
	NeverMet string
}

// Lead is how far the best configuration is ahead of the next at the
// compared step, with the percentile bootstrap 95 % confidence interval of
// that lead over their repeated sweeps (as history compare computes it for
// repeated runs); LowPct and HighPct are NaN unless both were swept at
// least twice.
type Lead struct {
	Pct, LowPct, HighPct float64
	BestN, NextN         int
}

// ConfigComparison is several configurations swept over the same axis,
// compared at one step (At): the rows ranked by throughput, best first.
type ConfigComparison struct {
	Workload, Axis string
	// At is the compared step's label, AtX its axis value.
	At  string
	AtX float64
	// Common are the axis values every configuration swept, rising.
	Common  []float64
	Rows    []ConfigRow
	Configs []Candidate
	// Lead is the best configuration's lead over the next (two rows or
	// more; NaN when either never met its objective).
	Lead Lead
	// Objective is the latency objective of the capacity searches the
	// configurations were compared at ("p99 <= 20 ms"; "" when compared
	// at a step, or at knees).
	Objective string
	// Notes qualify the comparison: options that differ, names made
	// unique, repeats averaged.
	Notes []string
}

// CompareConfigs compares configurations swept over the same workload and
// axis at step at: a step label ("threads 8", "rate 2x"), an axis value
// ("8", "2x", "2"), or "" for the last step all configurations share. It
// refuses (ErrNotComparable) sweeps of different workloads or axes, and a
// step not every configuration has. Configurations that carry the same
// name are told apart by their sweep's id. cs are not changed.
func CompareConfigs(cs []Candidate, at string) (ConfigComparison, error) {
	var c ConfigComparison
	if len(cs) == 0 {
		return c, fmt.Errorf("%w: no sweeps", ErrNotComparable)
	}
	if err := sameKind(cs); err != nil {
		return c, err
	}
	c.Workload, c.Axis = cs[0].Sweep.Workload, cs[0].Sweep.Axis
	c.Configs = uniqueNames(gatherRepeats(cs, &c.Notes), &c.Notes)
	c.Common = commonSteps(c.Configs)
	if capacityMode(c.Configs, at) {
		if err := compareCapacities(&c); err != nil {
			return c, err
		}
		c.Notes = append(c.Notes, optionNotes(c.Configs)...)
		return c, nil
	}
	if at == "" && !ownStepsOf(c.Configs) && len(c.Common) > 0 && slices.ContainsFunc(c.Configs, func(cf Candidate) bool { _, ok := capacityOf(cf.Sweep); return ok }) {
		c.Notes = append(c.Notes, "Not every configuration has a capacity (a searched one, or a knee in its range): they are compared at the last step they share, which may be past some of their knees.")
	}
	if len(c.Common) == 0 {
		return c, fmt.Errorf("%w: no %s step is common to all of them", ErrNotComparable, c.Axis)
	}
	x, err := stepAt(c.Configs[0].Sweep, c.Common, at)
	if err != nil {
		return c, err
	}
	c.AtX = x
	for _, cf := range c.Configs {
		st := stepOf(cf.Sweep, x)
		if c.At == "" {
			c.At = st.Label
		}
		row := ConfigRow{Config: cf.Name, Step: st.Label, X: x, Throughput: st.Throughput, AvgMs: st.AvgMs, P99Ms: st.P99Ms, Host: st.Host,
			Repeats: 1, ThroughputLow: math.NaN(), ThroughputHigh: math.NaN(), Types: st.Types, SlowestFrequent: st.SlowestFrequent}
		if tp := repeatThroughputs(cf, x); len(tp) > 1 {
			row.Repeats = len(tp)
			row.ThroughputLow, row.ThroughputHigh = meanCI(tp)
		}
		row.kneeOf(cf)
		c.Rows = append(c.Rows, row)
	}
	c.rank(func(name string) []float64 { return repeatThroughputs(c.ConfigNamed(name), x) })
	for _, cf := range c.Configs {
		if l := cf.Sweep.Limited; len(l) > 0 && x >= cf.Sweep.Steps[l[0].Index].X {
			c.Notes = append(c.Notes, fmt.Sprintf("The load generator limited %s from %s on (%s): at %s its figures measure the client as much as the system under test; compare at an earlier step (--at).",
				cf.Name, l[0].Label, l[0].Reason, c.At))
		}
		for _, l := range cf.Sweep.Stalled {
			c.Notes = append(c.Notes, fmt.Sprintf("The load generator stalled in %s's step %s (%s): its figures there are the generator's, not the system's, and its knee is sought without it; run it again.",
				cf.Name, l.Label, l.Reason))
		}
	}
	c.Notes = append(c.Notes, optionNotes(c.Configs)...)
	return c, nil
}

// kneeOf sets the row's knee: cf's (PrimaryKnee) and its step's figures.
func (row *ConfigRow) kneeOf(cf Candidate) {
	k, ok := PrimaryKnee(cf.Sweep)
	row.Knee, row.Found = k, ok
	if ok {
		ks := cf.Sweep.Steps[k.Index]
		row.KneeStep, row.KneeThroughput, row.KneeP99Ms = ks.Label, ks.Throughput, ks.P99Ms
	}
}

// rank orders the rows by throughput, best first, sets their ranks and
// ratios, and the lead of the best over the next from each
// configuration's repeated figures (values). No interval reaches below
// what can be: a throughput under 0, a lead under -100 %. Where the
// repeats of the best or the next spread wider than the lead claimed, a
// note says the ranking is not settled.
func (c *ConfigComparison) rank(values func(name string) []float64) {
	slices.SortStableFunc(c.Rows, func(a, b ConfigRow) int {
		// Rows that met their objective first, then the most throughput;
		// a throughput that is not a number last.
		never := func(r ConfigRow) int {
			if r.NeverMet != "" {
				return 1
			}
			return 0
		}
		return cmp.Or(cmp.Compare(never(a), never(b)), cmp.Compare(b.Throughput, a.Throughput))
	})
	for i := range c.Rows {
		r := &c.Rows[i]
		r.Rank = i + 1
		r.RatioToBest = math.NaN()
		if best := c.Rows[0]; best.Throughput > 0 && best.NeverMet == "" && r.NeverMet == "" && !math.IsNaN(r.Throughput) {
			r.RatioToBest = r.Throughput / best.Throughput
		}
		if !math.IsNaN(r.ThroughputLow) {
			r.ThroughputLow = math.Max(r.ThroughputLow, 0)
		}
	}
	if len(c.Rows) < 2 {
		return
	}
	best, next := c.Rows[0], c.Rows[1]
	if best.NeverMet != "" || next.NeverMet != "" {
		// One that never met its objective has no capacity to lead or
		// trail by.
		c.Lead = Lead{Pct: math.NaN(), LowPct: math.NaN(), HighPct: math.NaN(), BestN: best.Repeats, NextN: next.Repeats}
		return
	}
	l := Lead{Pct: rel(next.Throughput, best.Throughput), LowPct: math.NaN(), HighPct: math.NaN(), BestN: best.Repeats, NextN: next.Repeats}
	samples := func(vs []float64) []sample {
		var s []sample
		for _, v := range vs {
			s = append(s, sample{v, 1})
		}
		return s
	}
	bv, nv := values(best.Config), values(next.Config)
	l.LowPct, l.HighPct = changeCI(samples(nv), samples(bv), DefaultRounds, rand.NewPCG(1, 0x9e3779b97f4a7c15))
	if !math.IsNaN(l.LowPct) {
		l.LowPct = math.Max(l.LowPct, -100)
	}
	c.Lead = l
	gap := best.Throughput - next.Throughput
	for _, r := range []struct {
		name string
		vs   []float64
	}{{best.Config, bv}, {next.Config, nv}} {
		if len(r.vs) < 2 {
			continue
		}
		lo, hi := slices.Min(r.vs), slices.Max(r.vs)
		if hi-lo > gap {
			c.Notes = append(c.Notes, fmt.Sprintf("%s's own repeats span %.4g/s to %.4g/s, more than the %.4g/s between %s and %s: the ranking of the two is not settled; run more repeats, or longer steps.",
				r.name, lo, hi, gap, best.Config, next.Config))
		}
	}
}

// repeatThroughputs are the throughputs at axis value x of each repeat of
// cf that has the step; nil for a configuration swept once.
func repeatThroughputs(cf Candidate, x float64) []float64 {
	var out []float64
	for _, r := range cf.Repeats {
		if st := stepOf(r.Sweep, x); !math.IsNaN(st.Throughput) {
			out = append(out, st.Throughput)
		}
	}
	return out
}

// meanCI is the Student t 95 % confidence interval of the mean of xs (two
// or more values).
func meanCI(xs []float64) (lo, hi float64) {
	m, sd := stat.MeanStdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	half := t * sd / math.Sqrt(float64(len(xs)))
	return m - half, m + half
}

// gatherRepeats makes one configuration of the sweeps that share a name
// and their options (optionsKey): repeated sweeps of one configuration,
// whose mean it compares (meanSweep). Sweeps of one name run with other
// options stay apart (uniqueNames tells them apart). The order is that of
// each configuration's first sweep.
func gatherRepeats(cs []Candidate, notes *[]string) []Candidate {
	var out []Candidate
	at := map[string]int{}
	for _, cf := range cs {
		key := cf.Name + "\x00" + optionsKey(cf)
		i, ok := at[key]
		if !ok {
			at[key] = len(out)
			out = append(out, cf)
			continue
		}
		if out[i].Repeats == nil {
			out[i].Repeats = []Candidate{out[i]}
		}
		out[i].Repeats = append(out[i].Repeats, cf)
	}
	for i, cf := range out {
		if len(cf.Repeats) > 1 {
			out[i].Sweep = meanSweep(cf.Repeats)
			out[i].Runs = cf.Repeats[0].Runs
			*notes = append(*notes, fmt.Sprintf("%q was swept %d times with the same options: its figures are the sweeps' means, step by step, and its knee that of the mean curve", cf.Name, len(cf.Repeats)))
		}
	}
	return out
}

// AtCapacity is the --at that compares each configuration at its capacity:
// its capacity search's answer, else its sweep's knee (PrimaryKnee). It is
// the default when every configuration has one.
const AtCapacity = "capacity"

// capacityMode reports whether configurations cs are compared at their
// capacities: asked (at is AtCapacity), or by default (at "") when every
// one has a capacity and their steps vary the load.
func capacityMode(cs []Candidate, at string) bool {
	if strings.EqualFold(strings.TrimSpace(at), AtCapacity) {
		return true
	}
	if at != "" || ownStepsOf(cs) {
		return false
	}
	for _, cf := range cs {
		if _, ok := capacityOf(cf.Sweep); !ok {
			return false
		}
	}
	return true
}

// ownStepsOf reports configurations whose steps vary the work, not the
// load (no knee, no capacity).
func ownStepsOf(cs []Candidate) bool {
	return slices.ContainsFunc(cs, func(cf Candidate) bool { return cf.Sweep.OwnSteps })
}

// capacity is a configuration's capacity: the step it is at (an index into
// the sweep's steps; -1 for a search that never met its objective, whose
// capacity is 0), and how it was found.
type capacity struct {
	index int
	// above: a search that still met its objective at its last probe: the
	// capacity is at least the step's.
	above bool
	how   string
}

// capacityOf is sw's capacity: its search's answer, else its knee; false
// when it has neither.
func capacityOf(sw *Result) (capacity, bool) {
	if a := sw.Search; a != nil {
		switch a.Outcome {
		case "never_met":
			return capacity{index: -1, how: fmt.Sprintf("never met %s <= %g ms", a.Percentile, a.SLOMs)}, true
		case "found", "always_met":
			if i := slices.IndexFunc(sw.Steps, func(st result.SweepStep) bool { return st.X == a.X }); i >= 0 {
				c := capacity{index: i, above: a.Outcome == "always_met", how: fmt.Sprintf("searched at %s <= %g ms", a.Percentile, a.SLOMs)}
				if c.above {
					c.how += ", still met at the last probe: at least this"
				}
				return c, true
			}
		}
	}
	if k, ok := PrimaryKnee(sw); ok {
		return capacity{index: k.Index, how: "its knee (" + k.Method + " method)"}, true
	}
	return capacity{}, false
}

// capacityThroughput is the throughput at sw's capacity (0 when it has
// none or never met its objective).
func capacityThroughput(sw *Result) float64 {
	c, ok := capacityOf(sw)
	if !ok || c.index < 0 {
		return 0
	}
	return sw.Steps[c.index].Throughput
}

// compareCapacities fills c's rows with each configuration at its
// capacity (capacityOf): its throughput there (with repeats, the mean of
// each repeat's own capacity), the step and its response times, ranked;
// a configuration with none is refused.
func compareCapacities(c *ConfigComparison) error {
	for _, cf := range c.Configs {
		capa, ok := capacityOf(cf.Sweep)
		if !ok {
			return fmt.Errorf("%w: %s has no capacity to compare at (no capacity search, and no knee in its range): compare at a step (--at)", ErrNotComparable, cf.Name)
		}
		row := ConfigRow{Config: cf.Name, Step: "-", Repeats: 1, ThroughputLow: math.NaN(), ThroughputHigh: math.NaN(), AvgMs: math.NaN(), P99Ms: math.NaN()}
		at := capa.index
		reps := repeatCapacities(cf)
		if at < 0 {
			// The first repeat never met the objective: the row is at the
			// capacity step of the first that did, if one did.
			for _, r := range cf.Repeats {
				if rc, _ := capacityOf(r.Sweep); rc.index >= 0 {
					x := r.Sweep.Steps[rc.index].X
					at = slices.IndexFunc(cf.Sweep.Steps, func(st result.SweepStep) bool { return st.X == x })
					break
				}
			}
		}
		neverMet := at < 0 && !slices.ContainsFunc(cf.Repeats, func(r Candidate) bool { rc, _ := capacityOf(r.Sweep); return rc.index >= 0 })
		if neverMet {
			a := cf.Sweep.Search
			row.NeverMet = fmt.Sprintf("%s <= %g ms", a.Percentile, a.SLOMs)
			at = nearestObjective(cf.Sweep.Steps, a.Percentile)
		}
		if at >= 0 {
			st := cf.Sweep.Steps[at]
			row.Step, row.X, row.Throughput, row.AvgMs, row.P99Ms, row.Host = st.Label, st.X, st.Throughput, st.AvgMs, st.P99Ms, st.Host
			row.Types, row.SlowestFrequent = st.Types, st.SlowestFrequent
		}
		if len(reps) > 1 {
			row.Repeats = len(reps)
			if !neverMet { // a row that never met shows its best step, not a capacity of 0
				row.Throughput = stat.Mean(reps, nil)
				row.ThroughputLow, row.ThroughputHigh = meanCI(reps)
			}
			if n := len(slices.DeleteFunc(slices.Clone(reps), func(v float64) bool { return v == 0 })); !neverMet && n < len(reps) {
				c.Notes = append(c.Notes, fmt.Sprintf("%s met its objective in %d of its %d sweeps: its capacity is their mean, counting 0/s for the others.", cf.Name, n, len(reps)))
			}
		}
		row.kneeOf(cf)
		c.Rows = append(c.Rows, row)
		if a := cf.Sweep.Search; a != nil && c.Objective == "" {
			c.Objective = fmt.Sprintf("%s <= %g ms", a.Percentile, a.SLOMs)
		}
		switch {
		case neverMet && row.Step != "-":
			c.Notes = append(c.Notes, fmt.Sprintf("%s's capacity: %s; its row is its step nearest the objective (%s), ranked after those that met theirs.", cf.Name, capa.how, row.Step))
		case capa.above || capa.index < 0:
			c.Notes = append(c.Notes, fmt.Sprintf("%s's capacity: %s.", cf.Name, capa.how))
		}
	}
	for i, n := range c.Notes {
		// Repeats are compared by each one's own capacity, not the knee
		// of their mean curve (gatherRepeats' words).
		c.Notes[i] = strings.Replace(n, "its figures are the sweeps' means, step by step, and its knee that of the mean curve", "its capacity is the mean of each sweep's own", 1)
	}
	c.At, c.AtX = "each one's capacity", math.NaN()
	if c.Objective != "" {
		c.At += " (" + c.Objective + ")"
	}
	c.rank(func(name string) []float64 { return repeatCapacities(c.ConfigNamed(name)) })
	return nil
}

// nearestObjective is the index of the step nearest a latency objective on
// percentile ("p95", else p99): the least latency there, then the most
// throughput; -1 without steps. Steps whose figures are not numbers come
// last.
func nearestObjective(steps []result.SweepStep, percentile string) int {
	lat := func(st result.SweepStep) float64 {
		if percentile == "p95" {
			return st.P95Ms
		}
		return st.P99Ms
	}
	best := -1
	for i, st := range steps {
		if math.IsNaN(lat(st)) || math.IsNaN(st.Throughput) {
			continue
		}
		if best < 0 || lat(st) < lat(steps[best]) || (lat(st) == lat(steps[best]) && st.Throughput > steps[best].Throughput) {
			best = i
		}
	}
	return best
}

// repeatCapacities are the capacities of each repeat of cf; nil for a
// configuration swept once.
func repeatCapacities(cf Candidate) []float64 {
	var out []float64
	for _, r := range cf.Repeats {
		out = append(out, capacityThroughput(r.Sweep))
	}
	return out
}

// optionsKey is a configuration's options as text (its first result's,
// as optionNotes compares them); "" when it has no results.
func optionsKey(cf Candidate) string {
	if len(cf.Runs) == 0 {
		return ""
	}
	o := runOptions(cf.Runs[0])
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(o)) {
		fmt.Fprintf(&b, "%s=%s;", k, o[k])
	}
	return b.String()
}

// meanSweep is the repeats' mean sweep, analysed: the first repeat's
// sweep with, at each of its axis values, the mean throughput and response
// times of the repeats that have the step, and the mean of their host CPU
// shares (the host's other figures, run queue and disks, stay the
// first's).
func meanSweep(reps []Candidate) *Result {
	first := reps[0].Sweep
	sw := *first.Sweep
	sw.Steps = slices.Clone(first.Steps)
	for i, st := range sw.Steps {
		var tp, avg, p95, p99 []float64
		var cpu []result.CPUPct
		for _, r := range reps {
			if o := stepOf(r.Sweep, st.X); !math.IsNaN(o.Throughput) {
				tp, avg, p95, p99 = append(tp, o.Throughput), append(avg, o.AvgMs), append(p95, o.P95Ms), append(p99, o.P99Ms)
				if o.Host != nil {
					cpu = append(cpu, o.Host.CPU)
				}
			}
		}
		sw.Steps[i].Throughput, sw.Steps[i].AvgMs = stat.Mean(tp, nil), stat.Mean(avg, nil)
		sw.Steps[i].P95Ms, sw.Steps[i].P99Ms = stat.Mean(p95, nil), stat.Mean(p99, nil)
		if st.Host != nil && len(cpu) > 0 {
			h := *st.Host
			h.CPU = meanCPU(cpu)
			sw.Steps[i].Host = &h
		}
	}
	return Analyze(&sw, OptionsOf(first.Sweep))
}

// meanCPU is the mean of CPU shares, field by field.
func meanCPU(cs []result.CPUPct) result.CPUPct {
	var m result.CPUPct
	for _, c := range cs {
		m.User, m.System, m.Iowait, m.Steal, m.Idle = m.User+c.User, m.System+c.System, m.Iowait+c.Iowait, m.Steal+c.Steal, m.Idle+c.Idle
	}
	n := float64(len(cs))
	return result.CPUPct{User: m.User / n, System: m.System / n, Iowait: m.Iowait / n, Steal: m.Steal / n, Idle: m.Idle / n}
}

// sameKind refuses configurations of different workloads or axes.
func sameKind(cs []Candidate) error {
	first := cs[0]
	for _, cf := range cs[1:] {
		if cf.Sweep.Workload != first.Sweep.Workload {
			return fmt.Errorf("%w: they are of different workloads (%s: %s, %s: %s); compare sweeps of one workload",
				ErrNotComparable, first.Name, first.Sweep.Workload, cf.Name, cf.Sweep.Workload)
		}
		if cf.Sweep.Axis != first.Sweep.Axis {
			return fmt.Errorf("%w: they sweep different axes (%s: %s, %s: %s); compare sweeps over one axis",
				ErrNotComparable, first.Name, first.Sweep.Axis, cf.Name, cf.Sweep.Axis)
		}
	}
	return nil
}

// uniqueNames copies cs, naming a configuration that shares its name with
// another "NAME (SWEEP ID)", and notes it.
func uniqueNames(cs []Candidate, notes *[]string) []Candidate {
	out := slices.Clone(cs)
	count := map[string]int{}
	for _, cf := range cs {
		count[cf.Name]++
	}
	for i, cf := range out {
		if count[cf.Name] > 1 {
			out[i].Name = fmt.Sprintf("%s (%s)", cf.Name, cf.Sweep.ID)
		}
	}
	for name, n := range count {
		if n > 1 {
			*notes = append(*notes, fmt.Sprintf("%d sweeps are of configuration %q: each is shown on its own, named by its sweep's id (give each sweep its own --config to name them)", n, name))
		}
	}
	slices.Sort(*notes)
	return out
}

// commonSteps are the axis values every configuration's sweep has, rising.
func commonSteps(cs []Candidate) []float64 {
	var xs []float64
	for _, st := range cs[0].Sweep.Steps {
		all := true
		for _, cf := range cs[1:] {
			all = all && slices.ContainsFunc(cf.Sweep.Steps, func(o result.SweepStep) bool { return o.X == st.X })
		}
		if all && !slices.Contains(xs, st.X) {
			xs = append(xs, st.X)
		}
	}
	slices.Sort(xs)
	return xs
}

// stepAt resolves --at among the common steps: "" is the last of them.
func stepAt(sw *Result, common []float64, at string) (float64, error) {
	if at == "" {
		return common[len(common)-1], nil
	}
	want := strings.TrimSpace(at)
	x, numErr := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(want, "x"), "/s"), 64)
	for _, v := range common {
		if numErr == nil && v == x {
			return v, nil
		}
		if strings.EqualFold(stepOf(sw, v).Label, want) {
			return v, nil
		}
	}
	var names []string
	for _, v := range common {
		names = append(names, fmt.Sprintf("%q", stepOf(sw, v).Label))
	}
	return 0, fmt.Errorf("%w at %q: the steps every configuration has are %s", ErrNotComparable, at, strings.Join(names, ", "))
}

// stepOf is the sweep's step at axis value x (the first, if several).
func stepOf(sw *Result, x float64) result.SweepStep {
	i := slices.IndexFunc(sw.Steps, func(st result.SweepStep) bool { return st.X == x })
	if i < 0 {
		return result.SweepStep{X: x, Throughput: math.NaN(), AvgMs: math.NaN(), P99Ms: math.NaN()}
	}
	return sw.Steps[i]
}

// PrimaryKnee is the sweep's knee (Result.Knee), the one its headline,
// verdict, chart, comparison and the planner name: from the first of
// KneeMethods that found one, the SLO knee when an objective was given and
// met, else (an open loop) the highest rate sustained, else the
// marginal-gain knee, else Kneedle's. false when there is none; the Knee
// returned then says why in its Reason: the sweep was past its limit from
// its first step (PastLimit), else the marginal method's answer.
func PrimaryKnee(r *Result) (Knee, bool) {
	if r.Knee != nil {
		return *r.Knee, true
	}
	if r.PastLimit != "" {
		return none("marginal", r.PastLimit), false
	}
	for _, k := range r.Knees {
		if k.Method == "marginal" {
			return k, false
		}
	}
	return none("marginal", "no knee method ran (no usable steps, or the steps vary the work)"), false
}

// FirstKnee is the knee of the first of KneeMethods that found one among
// the first n steps; false when none did.
func FirstKnee(knees []Knee, n int) (Knee, bool) {
	for _, m := range KneeMethods {
		for _, k := range knees {
			if k.Method == m && k.Index >= 0 && k.Index < n {
				return k, true
			}
		}
	}
	return Knee{}, false
}

// optionNotes says which workload options and load windows differ between
// the configurations (their first step's result); the step's own option
// (sweep_step) and those the axis sets are not compared.
func optionNotes(cs []Candidate) []string {
	type opts = map[string]string
	of := runOptions
	var have []Candidate
	var all []opts
	for _, cf := range cs {
		if len(cf.Runs) > 0 {
			have = append(have, cf)
			all = append(all, of(cf.Runs[0]))
		}
	}
	keys := map[string]bool{}
	for _, o := range all {
		for k := range o {
			keys[k] = true
		}
	}
	var differ []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		var vals []string
		same := true
		for i, o := range all {
			v, ok := o[k]
			if !ok {
				v = "(unset)"
			}
			vals = append(vals, fmt.Sprintf("%s %s", have[i].Name, v))
			same = same && (i == 0 || v == vals0(all, k))
		}
		if !same {
			differ = append(differ, fmt.Sprintf("%s (%s)", k, strings.Join(vals, ", ")))
		}
	}
	if len(differ) == 0 {
		return nil
	}
	return []string{"The configurations were run with different options: " + strings.Join(differ, "; ") +
		". The comparison shows them side by side anyway; part of a difference may come from these."}
}

// runOptions are a result's workload options and load window as text,
// without the step's own option (sweep_step): what configurations are
// compared by.
func runOptions(r *result.Run) map[string]string {
	o := map[string]string{}
	for k, v := range r.Options {
		if k != "sweep_step" {
			o[k] = fmt.Sprint(v)
		}
	}
	o["warmup"] = fmt.Sprintf("%gs", r.Load.WarmupS)
	o["time"] = fmt.Sprintf("%gs", r.Load.DurationS)
	return o
}

// vals0 is the first configuration's value of option k.
func vals0(all []map[string]string, k string) string {
	if v, ok := all[0][k]; ok {
		return v
	}
	return "(unset)"
}

// RunAt is the configuration's result of the step labelled label (the
// result whose sweep_step option names it, else whose label ends with it);
// nil when that result was not loaded.
func (cf Candidate) RunAt(label string) *result.Run {
	for _, r := range cf.Runs {
		if step, _ := r.Options["sweep_step"].(string); step == label {
			return r
		}
	}
	for _, r := range cf.Runs {
		if _, ok := r.Options["sweep_step"].(string); !ok && (r.Label == label || strings.HasSuffix(r.Label, " "+label)) {
			return r
		}
	}
	return nil
}

// InstanceRow is one configuration at one instance count of an instance
// sweep: the instances' aggregate throughput and its share per instance,
// the response times over all of them, and how evenly they were served.
type InstanceRow struct {
	Config    string
	Instances float64
	// Throughput is the aggregate; PerInstance its mean per instance.
	Throughput, PerInstance float64
	AvgMs, P99Ms            float64
	// Fairness is the spread of the instances' throughputs (nil when the
	// step's result was not loaded or drove one instance).
	Fairness *result.Fairness
}

// InstanceRows are a comparison over instances by instance count, for
// each configuration in the rows' order, at every common step; nil for
// another axis.
func InstanceRows(c ConfigComparison) []InstanceRow {
	if c.Axis != "instances" {
		return nil
	}
	var out []InstanceRow
	for _, row := range c.Rows {
		cf := c.ConfigNamed(row.Config)
		for _, x := range c.Common {
			st := stepOf(cf.Sweep, x)
			ir := InstanceRow{Config: cf.Name, Instances: x, Throughput: st.Throughput, AvgMs: st.AvgMs, P99Ms: st.P99Ms, PerInstance: math.NaN()}
			if x > 0 {
				ir.PerInstance = st.Throughput / x
			}
			if r := cf.RunAt(st.Label); r != nil {
				ir.Fairness = r.Fairness
			}
			out = append(out, ir)
		}
	}
	return out
}

// ConfigNamed is the configuration named name (a row's); one with an
// empty sweep when there is none of that name.
func (c ConfigComparison) ConfigNamed(name string) Candidate {
	i := slices.IndexFunc(c.Configs, func(cf Candidate) bool { return cf.Name == name })
	if i < 0 {
		return Candidate{Name: name, Sweep: &Result{Sweep: &result.Sweep{}}}
	}
	return c.Configs[i]
}
