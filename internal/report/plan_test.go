package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/topology"
)

// A target past a knee CPU did not cause: the plan names the class and
// gives no VM that passes, in text, Markdown and the headline.
func TestPlanPastAKneeCPUDidNotCause(t *testing.T) {
	limit := "No vCPU count carries 5000/s: it is past the sweep's knee at threads 4 (2813/s), which CPU did not cause."
	s := &sizing.Sizing{Reasons: []string{limit, "were CPU the only limit, 4 vCPUs would carry it; what would have to change is the workload's hot rows"},
		Limit: limit, NotCPU: &sizing.KneeNotCPU{Step: "threads 4", KneeRate: 2813, Rate: 5000, Class: "row/table locks", BusyPct: 40, Change: "the workload's hot rows", CPUOnlyVCPU: 4}}
	r := &sizing.Report{Host: topology.Host{Sockets: 1, CoresPerSocket: 8, ThreadsPerCore: 1, NUMANodes: 1}, HTGainPct: 20, HTGainSource: "default", Sizing: s}
	for _, f := range []report.Format{report.Text, report.Markdown} {
		var b bytes.Buffer
		if err := report.Plan(&b, r, f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !strings.Contains(out, "right-size: no VM: 5000/s is past a knee CPU did not cause (row/table locks): FAIL") || !strings.Contains(out, "hot rows") {
			t.Errorf("format %v:\n%s", f, out)
		}
		if strings.Contains(out, "PASS") || strings.Contains(out, "VM recommended") {
			t.Errorf("format %v gives a VM:\n%s", f, out)
		}
	}
	if !r.Fails() {
		t.Error("the plan should fail (exit 1)")
	}
	h := strings.Join(report.Headline(report.Doc{Plan: r}), "\n")
	if !strings.Contains(h, "Planned VM: none: FAIL. "+limit) {
		t.Errorf("headline %q", h)
	}
}
