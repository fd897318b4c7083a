package all

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/report"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/workload/fileio"
	"github.com/rightsize/rightsize/internal/workload/tpcc"
)

// The files testdata/schema1-*.json were written by rightsize at commit
// 2fb47e4, before workloads reported generic figures (result.Figures), when
// result had TPCC and FileIO fields of its own:
//
//	rightsize run tpcc --target postgres://postgres@127.0.0.1:5432/rs_figs --instances 2 --threads 4 --think-scale 0.01 --time 2s --seed 7
//	rightsize run fileio --file rs.dat --size 16M --pattern "t1 o4 b4k" --read 100,70 --vms 10 --capacity 1GB --time 1s --report-interval 500ms --seed 7
//
// and testdata/schema1-*.before.txt is what that build's report package
// wrote for them: each file's summary, the steps table of them all, and
// the runs listing as text and as Markdown (rendered below).

func readOld(t *testing.T, name string) (*result.Run, map[string]json.RawMessage) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	return r, top
}

// render writes what the before.txt files hold.
func render(t *testing.T, runs []*result.Run) string {
	t.Helper()
	var b bytes.Buffer
	for _, r := range runs {
		if err := report.Summary(&b, r); err != nil {
			t.Fatal(err)
		}
	}
	b.WriteString("=== steps\n")
	if err := report.Steps(&b, runs); err != nil {
		t.Fatal(err)
	}
	b.WriteString("=== runs\n")
	for _, f := range []report.Format{report.Text, report.Markdown} {
		if err := report.RunTable(&b, report.RunRows(runs), f); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// withoutTypes checks that a result (or instance) an upgrade wrote again
// has the transaction types it added (its summary's types, its ops' type
// marks, upgradeTypes) and returns it without them, as the file had it.
func withoutTypes(t *testing.T, name string, m map[string]json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var sum map[string]any
	var ops []map[string]any
	if json.Unmarshal(m["summary"], &sum) != nil || json.Unmarshal(m["ops"], &ops) != nil {
		t.Fatalf("%s: summary or ops unreadable", name)
	}
	types, _ := sum["types"].([]any)
	if len(types) == 0 || sum["slowest_frequent"] == nil {
		t.Errorf("%s: upgraded summary has no transaction types: %v", name, sum)
	}
	delete(sum, "types")
	delete(sum, "slowest_frequent")
	for _, op := range ops {
		delete(op, "type")
	}
	out := maps.Clone(m)
	var err error
	if out["summary"], err = json.Marshal(sum); err != nil {
		t.Fatal(err)
	}
	if out["ops"], err = json.Marshal(ops); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutTypesBlocks checks that a report of upgraded results has the
// transaction types tables the upgrade made possible, each of n types, and
// returns the report without them, as it was before types.
func withoutTypesBlocks(t *testing.T, report string, n int) string {
	t.Helper()
	const head = "\ntransaction types ("
	found := 0
	for {
		i := strings.Index(report, head)
		if i < 0 {
			break
		}
		end := strings.Index(report[i+1:], "\n\n")
		if end < 0 {
			t.Fatalf("a types table without its end:\n%s", report[i:])
		}
		block := report[i+1 : i+1+end]
		if rows := strings.Count(block, "\n") - 1; rows != n {
			t.Errorf("types table of %d rows, want %d:\n%s", rows, n, block)
		}
		report = report[:i] + report[i+2+end:]
		found++
	}
	if found == 0 {
		t.Errorf("no transaction types table in the report")
	}
	return report
}

// keepsItsKeys checks that r, written again, has the file's top-level keys
// with the same values, plus figures, and the same keys in each instance
// plus figures.
func keepsItsKeys(t *testing.T, name string, r *result.Run, before map[string]json.RawMessage) {
	t.Helper()
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	var after map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &after); err != nil {
		t.Fatal(err)
	}
	after = withoutTypes(t, name, after)
	want := append(slices.Sorted(maps.Keys(before)), "figures")
	slices.Sort(want)
	if got := slices.Sorted(maps.Keys(after)); !slices.Equal(got, want) {
		t.Errorf("%s written again has keys %v, want %v", name, got, want)
	}
	for k, v := range before {
		if k != "instances" && !jsonEqual(t, v, after[k]) {
			t.Errorf("%s: %q changed:\n%s\nvs\n%s", name, k, v, after[k])
		}
	}
	var inBefore, inAfter []map[string]json.RawMessage
	if json.Unmarshal(before["instances"], &inBefore) != nil || json.Unmarshal(after["instances"], &inAfter) != nil || len(inBefore) != len(inAfter) {
		t.Fatalf("%s: instances %d vs %d", name, len(inBefore), len(inAfter))
	}
	for i := range inBefore {
		inAfter[i] = withoutTypes(t, fmt.Sprintf("%s instance %d", name, i), inAfter[i])
		for k, v := range inBefore[i] {
			if !jsonEqual(t, v, inAfter[i][k]) {
				t.Errorf("%s: instances[%d].%s changed", name, i, k)
			}
		}
		extra, want := len(inAfter[i])-len(inBefore[i]), 0
		if r.Instances[i].Figures != nil {
			want = 1
		}
		if _, ok := inAfter[i]["figures"]; extra != want || ok != (want == 1) {
			t.Errorf("%s: instance %d written again has %d more keys (figures: %v), want %d", name, i, extra, ok, want)
		}
	}
}

// TestTPCCFileOfSchema1 loads a TPC-C result written before generic
// figures: its "tpcc" sections are read where they were, the same figures
// are computed again from its measurements, its report is as before but for
// the lines generic rendering changed, and written again it keeps every key
// and value.
func TestTPCCFileOfSchema1(t *testing.T) {
	r, top := readOld(t, "schema1-tpcc.json")
	if r.Figures != nil || len(r.Section) == 0 || len(r.Instances) != 2 || len(r.Instances[1].Section) == 0 {
		t.Fatalf("decoded: figures %v, section %q, instances %d", r.Figures, r.Section, len(r.Instances))
	}
	if !jsonEqual(t, r.Section, top["tpcc"]) {
		t.Errorf("section %s, file's tpcc %s", r.Section, top["tpcc"])
	}
	f, err := tpcc.FiguresOf(r.Section)
	if err != nil || f.TpmC != 900 || f.Terminals != 8 || len(f.Limits) != 5 {
		t.Fatalf("tpcc section: %+v, %v", f, err)
	}
	// The summariser, a pure function of the measurements, gives the figures
	// the file holds.
	again := *r
	again.Instances = slices.Clone(r.Instances)
	if err := Summarize(&again); err != nil {
		t.Fatal(err)
	}
	g, _ := tpcc.FiguresOf(again.Section)
	if !reflect.DeepEqual(f, g) {
		t.Errorf("summarised again:\n%+v\nfile:\n%+v", g, f)
	}
	for i := range r.Instances {
		a, _ := tpcc.FiguresOf(r.Instances[i].Section)
		b, _ := tpcc.FiguresOf(again.Instances[i].Section)
		if a == nil || !reflect.DeepEqual(a, b) {
			t.Errorf("instance %d summarised again:\n%+v\nfile:\n%+v", i, b, a)
		}
	}

	Upgrade(r)
	if r.Figures == nil || r.Instances[0].Figures == nil || !jsonEqual(t, r.Section, top["tpcc"]) {
		t.Fatalf("upgraded: figures %+v, section %s", r.Figures, r.Section)
	}
	before, err := os.ReadFile(filepath.Join("testdata", "schema1-tpcc.before.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The lines the generic rendering writes differently (each figure is
	// still there), the one it adds, the step table's columns of the
	// instances' fairness (the figures the "per instance" lines give) and
	// of its retries and deadlocks (none in this run), and counts in the
	// singular or plural as they fall ("2 instances", not "2 instance(s)").
	changed := map[string]string{
		"tpcc: 2 s measured; closed loop, 4 threads; 2 instance(s)":                                                                                      "tpcc: 2 s measured; closed loop, 4 threads; 2 instances",
		"  step  throughput/s  avg ms   p95 ms   p99 ms  errors  cpu usr%  sys%  iowait%  steal%  run queue":                                             "  step  throughput/s  avg ms   p95 ms   p99 ms  errors  retries  deadlocks  cpu usr%  sys%  iowait%  steal%  run queue  slowest inst/s  fastest inst/s  inst cov%",
		"               32.50  35.835  105.644  118.424       0        64    34        0       2         20":                                             "               32.50  35.835  105.644  118.424       0        0          0        64    34        0       2         20            15.5            17.0        4.6",
		"TPC-C, 2 instances of 1 warehouse(s), 8 terminal(s), think scale 0.01: tpmC 900, NOPM 870, all transactions 1950/min; efficiency 87.5% of 1029": "TPC-C, 2 instances of 1 warehouse(s), 8 terminal(s), think scale 0.01: tpmC 900, NOPM 870, all transactions 1950/min, efficiency 87.5%, ceiling 1029 tpmC",
		"rolled back New-Orders 3.33%, remote order lines 0.00%, remote Payments 0.00%, by last name: Payment 67.7%, Order-Status 0.0%":                  "rolled back New-Orders 3.33%, remote order lines 0.00%, remote Payments 0.00%, Payments by last name 67.7%, Order-Status by last name 0.0%\nlimit checks: 9 of 9 met",
	}
	want := string(before)
	for old, now := range changed {
		if !strings.Contains(want, old+"\n") {
			t.Fatalf("%q is not in the report of before", old)
		}
		want = strings.Replace(want, old+"\n", now+"\n", 1)
	}
	if got := withoutTypesBlocks(t, render(t, []*result.Run{r}), 5); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	keepsItsKeys(t, "schema1-tpcc.json", r, top)
}

// TestFileioFilesOfSchema1: the same for a command's two read mixes, whose
// summaries, side-by-side table and listing come out exactly as before.
func TestFileioFilesOfSchema1(t *testing.T) {
	var runs []*result.Run
	for _, name := range []string{"schema1-fileio-read100.json", "schema1-fileio-read70.json"} {
		r, top := readOld(t, name)
		if !jsonEqual(t, r.Section, top["fileio"]) {
			t.Fatalf("%s: section %s, file's fileio %s", name, r.Section, top["fileio"])
		}
		f, err := fileio.FiguresOf(r.Section)
		if err != nil || f.Total.IOPS <= 0 || f.Derived == nil || f.Derived.VMs != 10 {
			t.Fatalf("%s: fileio section %+v, %v", name, f, err)
		}
		again := *r
		if err := Summarize(&again); err != nil {
			t.Fatal(err)
		}
		if g, _ := fileio.FiguresOf(again.Section); !reflect.DeepEqual(f, g) {
			t.Errorf("%s summarised again:\n%+v\nfile:\n%+v", name, g, f)
		}
		Upgrade(r)
		if r.Figures == nil || !jsonEqual(t, r.Section, top["fileio"]) {
			t.Fatalf("%s upgraded: figures %+v", name, r.Figures)
		}
		keepsItsKeys(t, name, r, top)
		runs = append(runs, r)
	}
	before, err := os.ReadFile(filepath.Join("testdata", "schema1-fileio.before.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Counts read in the singular for one ("1 thread; 1 instance"), the
	// one change.
	want := strings.ReplaceAll(string(before), "; closed loop, 1 threads; 1 instance(s)\n", "; closed loop, 1 thread; 1 instance\n")
	if got := withoutTypesBlocks(t, render(t, runs), 2); got != want {
		t.Errorf("report:\n%s\nwant (as before, but the counts' words):\n%s", got, want)
	}
}
