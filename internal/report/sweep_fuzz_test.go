package report_test

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/topology"
)

// FuzzSweepFile: a sweep file as report, analyze and plan --from read it
// (decoded, schema checked, analysed again) never panics the analysis or a
// renderer (text, Markdown, CSV, HTML), and the analysed sweep can be
// written again as JSON.
func FuzzSweepFile(f *testing.F) {
	var runs []*result.Run
	for _, l := range []string{"threads 1", "threads 2", "threads 4", "threads 8"} {
		runs = append(runs, runWithSeries(l))
	}
	good, err := json.Marshal(sweepOf(runs...))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	for _, s := range []string{
		`{"schema_version":1,"axis":"threads","steps":[]}`,
		`{"schema_version":1,"axis":"threads","steps":[{"x":1,"throughput":10,"p99_ms":1}]}`,
		`{"schema_version":1,"axis":"rate","steps":[{"x":1,"throughput":0},{"x":1,"throughput":0},{"x":-1,"throughput":-5,"p99_ms":-1}]}`,
		`{"schema_version":1,"axis":"threads","slo_ms":5,"cpu_target_pct":80,"steps":[{"x":1,"throughput":100,"p99_ms":1,"host":{"cpus":0}},{"x":2,"throughput":1e308,"p99_ms":1e308,"host":{"cpus":2,"cpu":{"user":1e308}}}]}`,
		`{"schema_version":1,"axis":"read %","own_steps":true,"steps":[{"label":"read 100%","x":100},{"label":"read 0%","x":0}]}`,
		`{"schema_version":1,"axis":"instances","steps":[{"x":0},{"x":0,"instances":-3,"dropped":-1}],"usl":{"sigma":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var data result.Sweep
		if err := json.Unmarshal(b, &data); err != nil || data.SchemaVersion != result.SchemaVersion {
			return
		}
		sw := *analysis.Analyze(&data, analysis.OptionsOf(&data))
		for _, fm := range []report.Format{report.Text, report.Markdown} {
			if err := report.SweepReport(io.Discard, &sw, fm); err != nil {
				t.Logf("SweepReport: %v", err)
			}
		}
		_ = report.SweepTable(io.Discard, &sw, report.CSV)
		var h bytes.Buffer
		if err := report.HTML(&h, report.Doc{Title: "fuzz", Sweep: &sw, Tool: "rightsize fuzz"}); err != nil {
			t.Logf("HTML: %v", err)
		}
		if _, err := json.Marshal(sw); err != nil {
			t.Fatalf("the analysed sweep cannot be written: %v\n%s", err, b)
		}
	})
}

// FuzzPlanFile: a plan file (rightsize plan --format json) as report reads
// it never panics a renderer (text, Markdown, JSON, HTML).
func FuzzPlanFile(f *testing.F) {
	b, err := os.ReadFile("../topology/testdata/seed-host.yaml")
	if err != nil {
		f.Fatal(err)
	}
	h, err := topology.Parse(b, "seed-host.yaml")
	if err != nil {
		f.Fatal(err)
	}
	vms := []sizing.VM{{Name: "db1", VCPU: 24, Busy: 0.85}, {Name: "db2", VCPU: 16, Memory: 96 << 30, Busy: 0.5}}
	r := sizing.Report{Host: h, HTGainPct: 20, HTGainSource: "default"}
	for _, vm := range vms {
		r.VMs = append(r.VMs, sizing.CheckVM(h, vm))
	}
	if c, err := sizing.Consolidate(h, vms, 0.2, 1); err == nil {
		r.Consolidation = &c
	}
	good, err := json.Marshal(r)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/3])
	for _, s := range []string{`{"host":{},"ht_gain_pct":20}`, `{"host":{"sockets":-1,"numa_nodes":0},"ht_gain_pct":-5,"vms":[{"vm":{"vcpu":-1},"checks":[{}]}]}`,
		`{"host":{"sockets":1,"cores_per_socket":1},"ht_gain_pct":1e308,"consolidation":{"vms":[{}]},"sizing":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r sizing.Report
		if err := json.Unmarshal(b, &r); err != nil {
			return
		}
		for _, fm := range []report.Format{report.Text, report.Markdown, report.JSON} {
			_ = report.Plan(io.Discard, &r, fm)
		}
		_ = report.HTML(io.Discard, report.Doc{Title: "fuzz", Plan: &r, Tool: "rightsize fuzz"})
	})
}
