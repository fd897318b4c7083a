package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// A sweep with no steps (or no step with a figure) draws no chart: never
// gonum's "plotter: no data points", in any format.
func TestSweepWithNoStepsHasNoCharts(t *testing.T) {
	for _, axis := range []string{"threads", "rate", "instances"} {
		sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "sw0", Workload: "oltp_read_write", Axis: axis, HostIsServer: true}
		a := analysis.Analyze(sw, analysis.OptionsOf(sw))
		for _, f := range []report.Format{report.HTMLPage, report.Markdown, report.Text} {
			var b bytes.Buffer
			var err error
			if f == report.HTMLPage {
				err = report.HTML(&b, report.Doc{Sweep: a})
			} else {
				err = report.SweepReport(&b, a, f)
			}
			if err != nil {
				t.Errorf("axis %s, format %v: %v", axis, f, err)
			}
			if strings.Contains(b.String(), "<svg") {
				t.Errorf("axis %s, format %v: a chart of no points", axis, f)
			}
		}
	}
}
