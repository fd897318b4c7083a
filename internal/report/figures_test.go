package report_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
)

// figuresRun is a run of a workload report knows nothing of, with figures
// of its own of every kind.
func figuresRun() *result.Run {
	r := multiRun()
	r.Partial, r.PartialReason = false, ""
	r.Workload = "kv"
	r.Figures = &result.Figures{
		Title: "kv, 3 nodes",
		Headline: []result.Figure{
			{Name: "ops", Value: 1234.56, Unit: "/s", Decimals: 1},
			{Name: "hit ratio", Value: 97.25, Unit: "%", Decimals: 2},
			{Name: "p99.9", Value: 12.3456, Unit: "ms", Decimals: 3},
			{Name: "skew", Value: math.NaN()},
		},
		Details: []result.Figure{{Name: "splits", Value: 3}, {Name: "moved", Value: 1.5, Unit: "GB", Decimals: 1}},
		Checks: []result.Check{
			{Name: "read p99", Got: 8.5, Limit: 10, Unit: "ms", OK: true, Decimals: 1},
			{Name: "write p99", Got: 12.25, Limit: 10, Unit: "ms", OK: false, Decimals: 2},
			{Name: "hit ratio", Got: 97.25, Limit: 99.5, Unit: "%", Min: true, OK: false, Decimals: 2},
		},
		Tables: []result.Table{
			{Title: "per key range", Columns: []string{"range", "ops/s", "p99 ms"}, Rows: [][]string{{"a-m", "700.1", "3.2"}, {"n-z", "534.5", "12.9"}}},
		},
		Notes: []string{"keys were zipfian"},
	}
	r.Instances[0].Figures = &result.Figures{Headline: []result.Figure{{Name: "ops", Value: 700.1, Unit: "/s", Decimals: 1}}}
	return r
}

// TestSummaryWorkloadFigures: any workload's figures are rendered from
// their generic form: the headline on the title's line, the tables, the
// details, the checks (the unmet ones named with their limits), the notes,
// and an instance's headline under its line.
func TestSummaryWorkloadFigures(t *testing.T) {
	out := render(t, figuresRun())
	for _, want := range []string{
		"\n\nkv, 3 nodes: ops 1234.6/s, hit ratio 97.25%, p99.9 12.346 ms, skew n/a\n",
		"\nper key range:\n",
		"\nsplits 3, moved 1.5 GB\n",
		"\nlimit checks: 1 of 3 met; not met: write p99 12.25 ms (limit 10 ms), hit ratio 97.25% (minimum 99.5%)\n",
		"\nnote: keys were zipfian\n",
		": 1000.00 transaction/s (60000 transactions), latency ms avg 2.20 p95 3.02 p99 4.11 max 12.25; qps 36064.00 (r/w/o 1514688/432768/216384)\n    ops 700.1/s\n  #2 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if row := strings.Fields(lineWith(t, out, "n-z")); strings.Join(row, " ") != "n-z 534.5 12.9" {
		t.Errorf("table row %q", row)
	}
	golden(t, "summary_figures.golden.txt", out)

	// All checks met; no title; no figures at all.
	r := figuresRun()
	r.Figures.Title, r.Figures.Checks = "", r.Figures.Checks[:1]
	out = render(t, r)
	if !strings.Contains(out, "\n\nops 1234.6/s, hit ratio 97.25%, p99.9 12.346 ms, skew n/a\n") || !strings.Contains(out, "\nlimit checks: 1 of 1 met\n") {
		t.Errorf("untitled figures, checks met:\n%s", out)
	}
	r.Figures = nil
	r.Instances[0].Figures = nil
	if out, base := render(t, r), render(t, multiRun()); strings.Replace(out, "kv:", "oltp_read_write:", 1) != strings.Replace(base, "PARTIAL RESULT: interrupted by signal after 42 s\n", "", 1) {
		t.Errorf("a run without figures differs from one of a workload without any:\n%s\nvs\n%s", out, base)
	}
}

// stepRun is one step of a command whose workload sets its figures side by
// side (as fileio's read mixes).
func stepRun(column string, figs ...result.Figure) *result.Run {
	r := closedRun()
	r.Workload = "disk"
	r.Figures = &result.Figures{Title: "t1 o4 b4k, one volume", Column: column, Primary: "IOPS", Headline: figs}
	return r
}

// TestStepsAcross: figures meant to be set side by side make one row per
// figure and one column per step, a figure one step lacks or has no value
// for (NaN) in its place with "-" for that step, a row without any value
// left out, then the host's rows; a single run's summary shows its column;
// a listing of runs shows the primary figure.
func TestStepsAcross(t *testing.T) {
	iops := func(v float64) result.Figure { return result.Figure{Name: "IOPS", Value: v} }
	readP99 := result.Figure{Name: "read p99", Value: 0.25, Unit: "ms", Decimals: 3}
	writeP99 := result.Figure{Name: "write p99", Value: 1.5, Unit: "ms", Decimals: 3}
	perVM := result.Figure{Name: "IOPS per VM", Value: 123.4, Decimals: 1}
	none := result.Figure{Name: "IOPS per GB", Value: math.NaN()}
	a := stepRun("100% read", iops(14756), readP99, perVM, none)
	b := stepRun("0% read", iops(8919.4), writeP99, perVM)
	b.Host = &result.Host{CPU: result.CPUPct{User: 50, System: 20, Iowait: 3}, Disks: []result.Disk{{Name: "vda", UtilPct: 65}}}
	var buf bytes.Buffer
	if err := report.Steps(&buf, []*result.Run{a, b}); err != nil {
		t.Fatal(err)
	}
	want := `
t1 o4 b4k, one volume:
               metric  100% read  0% read
                 IOPS      14756     8919
          read p99 ms      0.250        -
         write p99 ms          -    1.500
          IOPS per VM      123.4    123.4
      host CPU busy %          -       70
        host iowait %          -        3
  busiest disk util %          -       65
`
	if buf.String() != want {
		t.Errorf("steps:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := report.StepsAs(&buf, []*result.Run{a, b}, report.Markdown); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "| metric | 100% read | 0% read |\n|:---|---:|---:|\n| IOPS | 14756 | 8919 |\n| read p99 ms | 0.250 | - |\n") {
		t.Errorf("markdown steps:\n%s", buf.String())
	}

	// One step's summary shows its column after the operations.
	out := render(t, a)
	_, tail, _ := strings.Cut(out, "\n\n\nt1 o4 b4k, one volume:\n")
	var cells []string
	for _, l := range strings.Split(tail, "\n") {
		cells = append(cells, strings.Join(strings.Fields(l), " "))
	}
	if got := strings.Join(cells, "|"); got != "metric 100% read|IOPS 14756|read p99 ms 0.250|IOPS per VM 123.4|" {
		t.Errorf("summary of a step (%q):\n%s", got, out)
	}

	// A step without such figures makes it the table of one row per step.
	buf.Reset()
	if err := report.Steps(&buf, []*result.Run{a, closedRun()}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\nsteps:\n") {
		t.Errorf("mixed steps:\n%s", buf.String())
	}

	rows := report.RunRows([]*result.Run{a, b, closedRun()})
	if rows[0].Unit != "IOPS" || rows[0].Throughput != 14756 || rows[1].Throughput != 8919.4 || rows[2].Unit != "tps" || rows[2].Throughput != 1803.2 {
		t.Errorf("run rows %+v", rows)
	}
	a.Figures.Primary = "no such figure"
	if rows := report.RunRows([]*result.Run{a}); rows[0].Unit != "tps" || rows[0].Throughput != 1803.2 {
		t.Errorf("a primary figure that is not there: %+v", rows[0])
	}
}
