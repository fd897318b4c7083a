package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// TestWriteSweepStoresData: the sweep file holds the data and the
// analysis with its diagnosis, no verdict in words; the report beside it
// is the one handed to WriteSweep, and none without.
func TestWriteSweepStoresData(t *testing.T) {
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: "S", Workload: "w", Axis: "threads", HostIsServer: true}
	for i, x := range []float64{1, 2, 4, 8} {
		sw.Steps = append(sw.Steps, result.SweepStep{Label: fmt.Sprint("threads ", x), X: x, Throughput: []float64{100, 200, 390, 400}[i], P99Ms: x,
			Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 95}}})
	}
	a := analysis.Analyze(sw, analysis.OptionsOf(sw))
	dir := t.TempDir()
	path := filepath.Join(dir, "s-sweep.json")
	if err := WriteSweep(path, a, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(MarkdownPath(path)); !os.IsNotExist(err) {
		t.Errorf("a report written without one handed over: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if _, ok := f["verdict"]; ok {
		t.Errorf("the sweep file holds a verdict in words")
	}
	var d analysis.Diagnosis
	if err := json.Unmarshal(f["diagnosis"], &d); err != nil || d.Limit.Bottleneck == nil || d.Limit.Bottleneck.Limit != analysis.CPUBound {
		t.Errorf("diagnosis %s (%v)", f["diagnosis"], err)
	}
	md := func(w io.Writer, a *analysis.Result) error { _, err := io.WriteString(w, "# "+a.ID+"\n"); return err }
	if err := WriteSweep(path, a, md); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(MarkdownPath(path)); err != nil || string(b) != "# S\n" {
		t.Errorf("report beside it: %q (%v)", b, err)
	}
}
