package result_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return b.String()
}

// withSections is fullRun as a workload with its own section would leave it.
func withSections(t *testing.T) *result.Run {
	r := fullRun(t)
	r.Workload = "bench_x"
	r.Section = json.RawMessage(`{"score":12.5,"parts":[1,2]}`)
	r.Instances[1].Section = json.RawMessage(`{"score":6}`)
	r.Figures = &result.Figures{Title: "bench X", Headline: []result.Figure{{Name: "score", Value: 12.5, Decimals: 1}}}
	r.Instances[1].Figures = &result.Figures{Headline: []result.Figure{{Name: "score", Value: 6}}}
	return r
}

// A workload's section is written at the top level of the run and of its
// instance under the workload's name, where scripts read it, and read back
// from there; the generic figures beside it under "figures".
func TestSectionsUnderTheWorkloadsName(t *testing.T) {
	r := withSections(t)
	for name, encode := range map[string]func(*bytes.Buffer) error{
		"Encode":        func(b *bytes.Buffer) error { return result.Encode(b, r) },
		"EncodeCompact": func(b *bytes.Buffer) error { return result.EncodeCompact(b, r) },
		"json.Marshal": func(b *bytes.Buffer) error {
			j, err := json.Marshal(r) // as the history catalog stores a run
			b.Write(j)
			return err
		},
	} {
		var buf bytes.Buffer
		if err := encode(&buf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var doc struct {
			Section   json.RawMessage   `json:"bench_x"`
			Figures   *result.Figures   `json:"figures"`
			Instances []json.RawMessage `json:"instances"`
			Summary   map[string]any    `json:"summary"`
		}
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if got := compact(t, doc.Section); got != `{"score":12.5,"parts":[1,2]}` {
			t.Errorf("%s: top-level bench_x = %s", name, got)
		}
		if doc.Figures == nil || doc.Figures.Title != "bench X" || doc.Summary["count"] != 108192.0 {
			t.Errorf("%s: figures %+v, summary %v", name, doc.Figures, doc.Summary)
		}
		var in0, in1 map[string]json.RawMessage
		if json.Unmarshal(doc.Instances[0], &in0) != nil || json.Unmarshal(doc.Instances[1], &in1) != nil {
			t.Fatalf("%s: instances %s", name, doc.Instances)
		}
		if _, ok := in0["bench_x"]; ok {
			t.Errorf("%s: instance 0 has a section it was not given", name)
		}
		if compact(t, in1["bench_x"]) != `{"score":6}` || in1["target"] == nil || in1["figures"] == nil {
			t.Errorf("%s: instance 1 = %s", name, doc.Instances[1])
		}

		got, err := result.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: Decode: %v", name, err)
		}
		if compact(t, got.Section) != compact(t, r.Section) || got.Instances[0].Section != nil ||
			compact(t, got.Instances[1].Section) != compact(t, r.Instances[1].Section) {
			t.Errorf("%s: sections read back %s, %s, %s", name, got.Section, got.Instances[0].Section, got.Instances[1].Section)
		}
		got.Section, got.Instances[1].Section = r.Section, r.Instances[1].Section // compare the rest exactly
		if !reflect.DeepEqual(got, r) {
			t.Errorf("%s: round trip differs", name)
		}
		var back result.Run
		if err := json.Unmarshal(buf.Bytes(), &back); err != nil || compact(t, back.Section) != compact(t, r.Section) {
			t.Errorf("%s: json.Unmarshal: %v, section %s", name, err, back.Section)
		}
	}
}

// A run without sections is written as its fields say: the same document as
// before sections existed, with no key for one.
func TestNoSectionNoKey(t *testing.T) {
	r := fullRun(t)
	var a, b bytes.Buffer
	if err := result.Encode(&a, r); err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Errorf("Encode and encoding/json differ:\n%s\nvs\n%s", a.String(), b.String())
	}
	if strings.Contains(a.String(), `"oltp_read_write":`) {
		t.Errorf("a section key without a section:\n%s", a.String())
	}
	got, err := result.Decode(&a)
	if err != nil || got.Section != nil || got.Instances[0].Section != nil {
		t.Errorf("Decode: %v, section %q", err, got.Section)
	}
	// A null section is none.
	got, err = result.Decode(strings.NewReader(`{"schema_version":1,"workload":"w","w":null,"instances":[{"w":null}]}`))
	if err != nil || got.Section != nil || got.Instances[0].Section != nil {
		t.Errorf("null sections: %v, %q, %q", err, got.Section, got.Instances[0].Section)
	}
}

func TestValidSectionName(t *testing.T) {
	for _, name := range []string{"tpcc", "fileio", "oltp_read_write", "noop", "kv-2"} {
		if err := result.ValidSectionName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", "summary", "instances", "figures", "workload", "target", "notes", "TPCC", "9x", `a"b`, "a b"} {
		if err := result.ValidSectionName(name); !errors.Is(err, result.ErrSectionName) {
			t.Errorf("%q: %v, want ErrSectionName", name, err)
		}
	}
	// A section under a reserved name would hide the field of that name:
	// it is refused, not written.
	r := withSections(t)
	r.Workload = "summary"
	if err := result.Encode(&bytes.Buffer{}, r); !errors.Is(err, result.ErrSectionName) {
		t.Errorf("Encode with a section named summary: %v", err)
	}
	// And read as no section.
	got, err := result.Decode(strings.NewReader(`{"schema_version":1,"workload":"summary","summary":{"count":3}}`))
	if err != nil || got.Section != nil || got.Summary.Count != 3 {
		t.Errorf("Decode of workload summary: %v, section %q, count %d", err, got.Section, got.Summary.Count)
	}
}

// Figures that are not finite are null in the file, so that it can always
// be written, and read back as NaN.
func TestFiguresNonFinite(t *testing.T) {
	r := fullRun(t)
	r.Figures = &result.Figures{
		Headline: []result.Figure{{Name: "a", Value: math.NaN()}, {Name: "b", Value: math.Inf(1), Unit: "ms"}, {Name: "c", Value: 2.5, Decimals: 1}},
		Checks:   []result.Check{{Name: "d", Got: math.NaN(), Limit: 5, OK: true}},
	}
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name": "a",
        "value": null`, `"value": null,
        "unit": "ms"`, `"got": null`, `"limit": 5`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("no %q in\n%s", want, buf.String())
		}
	}
	got, err := result.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	h := got.Figures.Headline
	if !math.IsNaN(h[0].Value) || !math.IsNaN(h[1].Value) || h[1].Unit != "ms" || h[2] != r.Figures.Headline[2] {
		t.Errorf("headline read back %+v", h)
	}
	if c := got.Figures.Checks[0]; !math.IsNaN(c.Got) || c.Limit != 5 || !c.OK || c.Name != "d" {
		t.Errorf("check read back %+v", c)
	}
	if f, ok := got.Figures.Find("c"); !ok || f.Value != 2.5 {
		t.Errorf("Find(c) = %+v, %v", f, ok)
	}
	if _, ok := (*result.Figures)(nil).Find("c"); ok {
		t.Error("Find on no figures found one")
	}
}
