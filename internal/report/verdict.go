package report

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// SweepSentences is the verdict of an analysed sweep in sentences: where
// the knee is and why (Verdict) among the steps before the first one the
// load generator limited, which steps it limited and why, and the steps
// whose figures need a caution: an open loop that fell behind its
// schedule, a load generator that fell behind its ticks. A sweep of the
// workload's own steps has none. The sentences word the sweep's
// Diagnosis (analysis.Diagnose).
func SweepSentences(r *analysis.Result) []string {
	if r.OwnSteps {
		return generatorSentences(r)
	}
	d := diagnosisOf(r)
	n := r.Usable()
	var out []string
	switch {
	case r.PastLimit != "":
		out = append(out, pastLimitSentences(r, d.Limit)...)
	case n > 0:
		out = Verdict(sentenceAxis(r), r.Points()[:n], r.Knees, d.Limit)
	}
	if v := d.Server; v != nil {
		if s := ServerSentence(v, r.Steps[v.Step].Label); s != "" {
			out = append(out, s)
		}
	}
	out = append(out, generatorSentences(r)...)
	steps := func(at []int, say func(st result.SweepStep) string) string {
		var s []string
		for _, i := range at {
			s = append(s, fmt.Sprintf("%s (%s)", r.Steps[i].Label, say(r.Steps[i])))
		}
		return strings.Join(s, ", ")
	}
	if len(d.Conflicts) > 0 {
		out = append(out, "Conflicts: transactions deadlocked or were re-run at "+steps(d.Conflicts, func(st result.SweepStep) string {
			return fmt.Sprintf("%d deadlocks, %d retries, %d errors", st.Deadlocks, st.Retries, st.Errors)
		})+": there throughput is what got through the conflicts (row locks, hot rows), not what the host could do.")
	}
	if len(d.Overloaded) > 0 {
		out = append(out, "Overloaded: the open loop fell behind its schedule at "+steps(d.Overloaded, func(st result.SweepStep) string {
			return fmt.Sprintf("%d starts dropped", st.Dropped)
		})+": starts due in the window never ran; the system could not take that rate. The throughput there is what it completed, and the response time (from the intended starts) shows the queue that built up.")
	}
	if len(d.Lagged) > 0 {
		out = append(out, "Caution: the load generator fell behind its report ticks at "+steps(d.Lagged, func(st result.SweepStep) string {
			return fmt.Sprintf("worst %.1f s", st.TickerLag.MaxS)
		})+": it was starved of CPU there, so those steps' host figures are smeared and their throughput may understate the database's.")
	}
	if len(d.Held) > 0 {
		out = append(out, heldSentence(r, d.Held))
	}
	if g := d.GuestOnly; g != nil {
		out = append(out, guestOnly(*g))
	}
	return out
}

// heldSentence names the steps a limit the guest's CPU figures do not
// show held back. A database's cgroup alone is its allotment of CPUs (a
// container's limit, --db-cpus): its capacity, which a larger allotment
// raises; the hypervisor's is outside the guest, where vCPUs added inside
// it do not help.
func heldSentence(r *analysis.Result, helds []analysis.Held) string {
	var held []string
	allotment := true
	for _, h := range helds {
		held = append(held, fmt.Sprintf("%s (%s)", r.Steps[h.Step].Label, strings.Join(heldBrief(h), ", ")))
		allotment = allotment && len(h.Hypervisor) == 0 && h.Throttled != nil && h.Throttled.Role == "database"
	}
	if allotment {
		return "Held by the database's CPU allotment (its cgroup's quota), not the host's CPUs: " + strings.Join(held, "; ") +
			". There the allotment was its capacity: a larger one, or a VM of that many vCPUs, raises it."
	}
	return "Held back where the guest's CPU figures do not show it: " + strings.Join(held, "; ") +
		". There the limit was not the guest's CPUs, and adding vCPUs inside the guest will not help."
}

// diagnosisOf is the sweep's Diagnosis, made again for a Result that was
// not made by analysis.Analyze.
func diagnosisOf(r *analysis.Result) *analysis.Diagnosis {
	if r.Diagnosis != nil {
		return r.Diagnosis
	}
	return analysis.Diagnose(r)
}

// sentenceAxis is the axis as a verdict names its steps: "multiple" for
// multiples of a baseline rate ("2x").
func sentenceAxis(r *analysis.Result) string {
	if r.Axis == "rate" && r.BaselineRate > 0 {
		return "multiple"
	}
	return r.Axis
}

// pastLimitSentences say that a sweep has no knee because every step was
// already past the system's limit (Result.PastLimit), with the bottleneck
// at its first step (f).
func pastLimitSentences(r *analysis.Result, f analysis.Finding) []string {
	out := []string{"No knee: " + r.PastLimit + "; the knee is below the range, so no VM is planned from this sweep. Sweep from a lower load to find it."}
	if f.Bottleneck != nil {
		out = append(out, "At the first step: "+Bottleneck(f.Bottleneck)+".")
	}
	return out
}

// generatorSentences say which steps the load generator limited (the
// knee is sought before the first of them) and in which it stalled (each
// left out of the knee).
func generatorSentences(r *analysis.Result) []string {
	var out []string
	n := r.Usable()
	if len(r.Limited) > 0 {
		s := "The load generator, not the system under test, limited " + limitedList(r.Limited) + ": there the figures measure the client"
		switch {
		case r.OwnSteps:
		case n == 0:
			s += ", so no knee can be claimed"
		default:
			s += fmt.Sprintf(", so the knee is sought among the steps before %s only", r.Steps[n].Label)
		}
		out = append(out, s+". Give the generator its own cores, or split the load over generators (run --shard).")
	}
	if len(r.Stalled) > 0 {
		s := "The load generator stalled at " + limitedList(r.Stalled) + ": those steps' figures are the generator's, not the system's"
		if !r.OwnSteps {
			s += ", so the knee is sought without them"
		}
		out = append(out, s+". Run them again.")
	}
	return out
}

func limitedList(ls []analysis.Limited) string {
	var at []string
	for _, l := range ls {
		at = append(at, fmt.Sprintf("%s (%s)", l.Label, l.Reason))
	}
	return strings.Join(at, ", ")
}

// Verdict answers "where is the knee, and why" for a sweep in plain
// sentences: the knee the methods point to (the SLO knee when an objective
// was given and met, else the marginal-gain knee, else Kneedle), whether
// the other methods agree, and what the host figures at the step f names
// say (analysis.Locate). axis names the swept quantity ("threads",
// "instances", "rate").
func Verdict(axis string, ps []analysis.Point, knees []analysis.Knee, f analysis.Finding) []string {
	if len(ps) == 0 {
		return []string{"no steps"}
	}
	main, found := analysis.FirstKnee(knees, len(ps)) // as the Result's Knee
	// A step is named by its label, as the steps table and the knees'
	// reasons name it ("rate 2x"); a point without one by its axis value.
	step := func(i int) string {
		if ps[i].Label != "" {
			return ps[i].Label
		}
		return stepAt(axis, ps[i].X)
	}
	best, at := analysis.MaxThroughput(ps)
	var out []string
	if !found {
		last := len(ps) - 1
		if at >= 0 && at < last {
			// Too few steps for the methods, or no clear bend, yet
			// throughput did not grow past at: it did not scale there.
			out = append(out, fmt.Sprintf("No knee method found one, but throughput peaked at %s (%s/s, p99 %s) and did not grow after it (%s/s at %s): the knee is at or before %s; sweep below it, or in finer steps, to place it.",
				step(at), Num(best), Ms(ps[at].P99Ms), Num(ps[last].Throughput), step(last), step(at)))
		} else {
			out = append(out, fmt.Sprintf("No knee in the range: throughput still scales at %s (%s/s, p99 %s); sweep further to find it.",
				step(last), Num(ps[last].Throughput), Ms(ps[last].P99Ms)))
		}
		if f.Bottleneck != nil {
			text := Bottleneck(f.Bottleneck)
			if at == last || at < 0 {
				text = Room(f.Bottleneck) // still scaling: room, not a limit
			}
			out = append(out, "At the last step: "+text+".")
		}
		return out
	}
	s := fmt.Sprintf("The knee is at %s (%s method): %s/s, p99 %s", step(main.Index), main.Method, Num(ps[main.Index].Throughput), Ms(ps[main.Index].P99Ms))
	switch {
	case at > main.Index:
		s += fmt.Sprintf("; the most throughput, %s/s at %s, is %+.0f%% more for %+.0f%% more load", Num(best), step(at),
			100*(best/ps[main.Index].Throughput-1), 100*(ps[at].X/main.X-1))
	case at >= 0 && at < main.Index:
		s += fmt.Sprintf("; the most throughput, %s/s, came at a lighter load (%s)", Num(best), step(at))
	}
	out = append(out, s+".")
	out = append(out, otherMethods(knees, main, step)...)
	out = append(out, "Why: "+main.Reason+".")
	switch {
	case f.Bottleneck == nil:
	case f.Where == analysis.PastKnee:
		out = append(out, fmt.Sprintf("At %s, where it fell behind, %s.", step(f.Step), Bottleneck(f.Bottleneck)))
	default:
		out = append(out, "At the knee, "+Bottleneck(f.Bottleneck)+".")
	}
	return out
}

// otherMethods are the verdict's sentences on the methods other than main's:
// which agree, where the others put the knee (step names the step of an
// index), and which found none, with why.
func otherMethods(knees []analysis.Knee, main analysis.Knee, step func(int) string) []string {
	var out, agree, differ, none []string
	for _, k := range knees {
		if k.Method == main.Method {
			continue
		}
		if k.Index < 0 {
			none = append(none, fmt.Sprintf("the %s method finds none (%s)", k.Method, k.Reason))
			continue
		}
		if k.Index == main.Index {
			agree = append(agree, k.Method)
		} else {
			differ = append(differ, fmt.Sprintf("%s at %s", k.Method, step(k.Index)))
		}
	}
	switch {
	case len(agree) > 0 && len(differ) == 0:
		out = append(out, "The "+methods(agree)+" agree"+plural(len(agree))+".")
	case len(differ) > 0:
		line := "Other methods put it at " + strings.Join(differ, ", ")
		if len(agree) > 0 {
			line += "; the " + methods(agree) + " agree" + plural(len(agree))
		}
		out = append(out, line+".")
	}
	if len(none) > 0 {
		out = append(out, upper(strings.Join(none, "; "))+".")
	}
	return out
}

// methods names knee methods: "kneedle method", "marginal and kneedle methods".
func methods(ms []string) string {
	if len(ms) == 1 {
		return ms[0] + " method"
	}
	return strings.Join(ms, " and ") + " methods"
}
