package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
)

// SweepTable writes a sweep's step table from its sweep file.
func SweepTable(w io.Writer, sw *analysis.Result, f Format) error {
	return StepTable(w, sweepRows(sw), f)
}

// SweepVerdict writes the analysis of a sweep: the verdict in sentences,
// then each knee method with the host at its step, the sweet spot and the
// USL fit.
func SweepVerdict(w io.Writer, sw *analysis.Result, f Format) error {
	ew := &errWriter{w: w}
	md := f == Markdown
	if md {
		ew.printf("\n## Verdict\n\n")
	} else {
		ew.printf("\nsweep verdict (%s):\n", sw.Axis)
	}
	if sw.OwnSteps {
		ew.printf("%sthe steps vary the work (%s), not the load: no knee, scalability fit or sweet spot; compare the steps in the table\n", indent(md), sw.Axis)
		for _, s := range SweepSentences(sw) {
			ew.printf("%s%s\n", indent(md), s)
		}
		return ew.err
	}
	verdict := SweepSentences(sw)
	if md {
		ew.printf("%s\n\n### Each method\n\n", strings.Join(verdict, " "))
	} else {
		for _, line := range verdict {
			ew.printf("  %s\n", line)
		}
		ew.printf("\n  each method:\n")
	}
	item := func(name, text string) {
		if md {
			ew.printf("- **%s**: %s\n", name, text)
		} else {
			ew.printf("  %-10s %s\n", name+":", text)
		}
	}
	for _, k := range sw.Knees {
		text := k.Reason
		if k.Index >= 0 && k.Index < len(sw.Steps) && sw.Steps[k.Index].Host != nil {
			h := sw.Steps[k.Index].Host
			text += fmt.Sprintf(" (host at that step: CPU user %.0f%% sys %.0f%% iowait %.0f%% steal %.0f%% idle %.0f%%, run queue %d)",
				h.CPU.User, h.CPU.System, h.CPU.Iowait, h.CPU.Steal, h.CPU.Idle, h.RunQueue)
		}
		item(k.Method, text)
	}
	if d := sw.Demand; d != nil {
		item("demand", d.SweetSpot.Reason)
	} else if sw.DemandError != "" {
		item("demand", "not computed: "+sw.DemandError)
	}
	if u := sw.USL; u != nil {
		unit := strings.TrimSuffix(sw.Axis, "s")
		text := fmt.Sprintf("λ %.4g/s per %s, σ %.4f (contention), κ %.5f (coherency), R² %.3f; ", u.Lambda, unit, u.Sigma, u.Kappa, u.R2)
		if math.IsInf(u.Peak, 1) {
			text += fmt.Sprintf("no peak: with κ = 0 throughput levels off towards %.4g/s without turning down", u.PeakX)
		} else {
			text += fmt.Sprintf("peak at %.1f %s, %.4g/s (95%% interval %.1f to %.1f)", u.Peak, sw.Axis, u.PeakX, u.PeakCI[0], u.PeakCI[1])
		}
		if u.Retrograde {
			text += "; retrograde: throughput falls past the peak"
		}
		item("usl", text)
	} else if sw.USLError != "" {
		item("usl", "not fitted: "+sw.USLError)
	}
	return ew.err
}

// SweepReport writes a whole sweep as a document: a title, the answer
// (Headline), what was swept, the step table and the verdict.
func SweepReport(w io.Writer, sw *analysis.Result, f Format) error {
	return SweepDocument(w, Doc{Sweep: sw}, f)
}

// SweepDocument is SweepReport of d.Sweep with the answer of all of d: a
// plan beside the sweep adds its planned VM to the answer, as the HTML
// page's does.
func SweepDocument(w io.Writer, d Doc, f Format) error {
	sw := d.Sweep
	ew := &errWriter{w: w}
	if f == Markdown {
		ew.printf("# %s sweep over %s\n\n", sw.Workload, sw.Axis)
	}
	if ew.err = WriteHeadline(w, Headline(d), f); ew.err != nil {
		return ew.err
	}
	if f == Markdown {
		ew.printf("Sweep %s, %d steps", sw.ID, len(sw.Steps))
	} else {
		ew.printf("%s sweep %s over %s, %d steps", sw.Workload, sw.ID, sw.Axis, len(sw.Steps))
	}
	if sw.BaselineRate > 0 {
		ew.printf("; 1x = %.4g/s per instance", sw.BaselineRate)
		if sw.Baseline != "" {
			ew.printf(" (measured: %s)", sw.Baseline)
		}
	}
	if !sw.HostIsServer {
		ew.printf("; the database ran on another host: the host figures are the load generator's")
	}
	ew.printf("\n")
	if f == Markdown {
		ew.printf("\n")
	}
	if ew.err != nil {
		return ew.err
	}
	if err := SweepTable(w, sw, f); err != nil {
		return err
	}
	if sweepTypes(ew, sw, f); ew.err != nil {
		return ew.err
	}
	return SweepVerdict(w, sw, f)
}

func indent(md bool) string {
	if md {
		return ""
	}
	return "  "
}
