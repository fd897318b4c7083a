package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// TestSummaryWarnsOfClampedEvents: latencies above the histograms' range
// never pass silently.
func TestSummaryWarnsOfClampedEvents(t *testing.T) {
	r := &result.Run{Workload: "oltp_read_write", Event: "transaction", Load: result.Load{Mode: "closed", Threads: 1},
		Summary: result.Summary{Unit: "transactions", Count: 3, DurationS: 7200, Clamped: 2}}
	var b bytes.Buffer
	if err := report.Summary(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "WARNING: 2 transaction(s) took longer than 1 h, the histograms' range, and were recorded as 1 h") {
		t.Errorf("no clamp warning:\n%s", b.String())
	}
	r.Summary.Clamped = 0
	b.Reset()
	if err := report.Summary(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "1 h") {
		t.Errorf("a clamp warning without clamped events:\n%s", b.String())
	}
}
