package result_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/rightsize/rightsize/internal/result"
)

// shows reports whether s holds a character a terminal would act on or not
// show: a control character (a tab or newline too: these fields are one
// line) or a format character such as U+202E.
func shows(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) })
}

// TestDecodeMakesTextPrintable: a result file is read from anywhere, and
// its text is printed by reports and the history: a label, a config, a note,
// an option's value or a CPU model carrying an escape sequence is decoded
// with each such character written visibly (\x1b), never raw.
func TestDecodeMakesTextPrintable(t *testing.T) {
	const evil = "evil\x1b]0;PWNED\x07\x1b[31mred"
	r := fullRun(t)
	r.Label, r.Config, r.PartialReason = evil, "a\tb\u202ec", "two\nlines\u009b"
	r.Options["rand-type"] = evil
	r.Instances[0].Notes = []string{evil}
	r.Machine.CPUModel = "\u202eXeon"
	var buf bytes.Buffer
	if err := result.Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	got, err := result.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{got.Label, got.Config, got.PartialReason, got.Options["rand-type"].(string), got.Instances[0].Notes[0], got.Machine.CPUModel} {
		if !shows(s) {
			t.Errorf("decoded raw: %q", s)
		}
	}
	if want := `evil\x1b]0;PWNED\x07\x1b[31mred`; got.Label != want {
		t.Errorf("label %q, want %q", got.Label, want)
	}
	if want := `a\x09b\u202ec`; got.Config != want {
		t.Errorf("config %q, want %q", got.Config, want)
	}
	// What had nothing to hide decodes as it was.
	if got.Workload != r.Workload || got.Summary.Throughput != r.Summary.Throughput || got.Ops[0].Histogram != r.Ops[0].Histogram {
		t.Errorf("decoding changed plain fields")
	}
}

// TestSweepDecodesPrintable: a sweep file's text is made printable as a
// result's is, however it is unmarshalled.
func TestSweepDecodesPrintable(t *testing.T) {
	in := `{"schema_version":1,"id":"x\u001b[2J","workload":"w","config":"c\u0007","axis":"rate","steps":[{"label":"l\u001b]0;t\u0007","x":2}]}`
	var sw result.Sweep
	if err := json.Unmarshal([]byte(in), &sw); err != nil {
		t.Fatal(err)
	}
	if len(sw.Steps) != 1 || !shows(sw.ID) || !shows(sw.Config) || !shows(sw.Steps[0].Label) || sw.Steps[0].X != 2 {
		t.Errorf("sweep decoded raw: %+v", sw)
	}
}
