package study

import (
	"errors"
	"strings"
	"testing"
)

// oneStep is a valid study of one run, to which a test adds a line.
const oneStep = "study: x\nsteps:\n  - {name: a, run: noop}\n"

// TestParseRefusesUnsafe: what a study file could make rightsize write
// outside its directory, or print raw to a terminal, is refused at parse,
// each with its line.
func TestParseRefusesUnsafe(t *testing.T) {
	for in, want := range map[string]string{
		oneStep + "report: {path: ../../x.html}\n":                                                                              "x.yaml:4: report: path \"../../x.html\": want a file name",
		oneStep + "report: {path: /tmp/x.html}\n":                                                                               "x.yaml:4: report: path \"/tmp/x.html\": want a file name",
		oneStep + "report: {path: sub/../../x.html}\n":                                                                          "x.yaml:4: report: path",
		oneStep + "report: {path: 'sub\\x.html'}\n":                                                                             "x.yaml:4: report: path",
		oneStep + "report: {path: ..}\n":                                                                                        "x.yaml:4: report: path",
		oneStep + "report: {path: .}\n":                                                                                         "x.yaml:4: report: path",
		oneStep + "report: {path: a.json}\n":                                                                                    "x.yaml:4: report: path \"a.json\": the study's results and plan are its .json files",
		oneStep + "report: {path: a-sweep.md}\n":                                                                                "x.yaml:4: report: path \"a-sweep.md\": step a writes a.json and a-*",
		oneStep + "report: {path: a.md}\n":                                                                                      "x.yaml:4: report: path \"a.md\": step a writes",
		oneStep + "options: {cpuprofile: /etc/x}\n":                                                                             "x.yaml:4: options: cpuprofile is not a study option: it names a file to write",
		oneStep + "options: {file: /etc/x}\n":                                                                                   "x.yaml:4: options: file is not a study option",
		"study: x\nsteps:\n  - {name: a, run: noop, options: {cpuprofile: p}}\n":                                                "x.yaml:3: step a: options: cpuprofile is not a study option",
		"study: x\nsteps:\n  - {name: a, sweep: noop, axis: cpuprofile, values: [a, b]}\n":                                      "x.yaml:3: step a: axis cpuprofile",
		"study: x\ntitle: \"\\e[2J\\e[31mred\"\nsteps:\n  - {name: a, run: noop}\n":                                             "x.yaml:2: title: \"\\x1b[2J\\x1b[31mred\": control characters",
		"study: x\nfollows: \"a\\rb\"\nsteps:\n  - {name: a, run: noop}\n":                                                      "x.yaml:2: follows: \"a\\rb\": control characters",
		"study: x\nsteps:\n  - {name: a, run: \"noop\\e]0;t\\a\"}\n":                                                            "x.yaml:3: step a: run: \"noop\\x1b]0;t\\a\": control characters",
		"study: x\nsteps:\n  - {name: a, run: noop, config: \"\\e[1m\"}\n":                                                      "x.yaml:3: step a: config: \"\\x1b[1m\": control characters",
		"study: x\nsteps:\n  - {name: a, run: noop, options: {label-x: \"\\e[1m\"}}\n":                                          "x.yaml:3: step a: options.label-x: \"\\x1b[1m\": control characters",
		"study: x\nsteps:\n  - {name: a, sweep: noop, axis: threads, values: [1, \"\\t2\"]}\n":                                  "x.yaml:3: step a: values: \"\\t2\": control characters",
		"study: x\nsteps:\n  - {name: plan, sweep: noop, axis: threads, values: [1, 2]}\nplan: {step: plan, target-rate: 3x}\n": "x.yaml:3: step plan: a study with a plan writes plan.json",
		oneStep + "---\nstudy: y\nsteps:\n  - {name: b, run: noop}\n":                                                           "x.yaml:4: a second YAML document (---): a study file is one document",
		oneStep + "---\n":                  "x.yaml:4: a second YAML document",
		oneStep + "--- [\n":                "x.yaml:4: a second YAML document",
		"study: x\nsteps: []\n":            "x.yaml:2: steps: an empty list: a study runs at least one sweep or run",
		"---\n" + oneStep:                  "", // one document, marked
		oneStep + "report: {path: r.html}": "",
	} {
		_, err := Parse(strings.NewReader(in), "x.yaml")
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrInvalid)):
			t.Errorf("%q:\n%v\nwant %q", in, err, want)
		case err != nil && strings.ContainsAny(err.Error(), "\x1b\a\r"):
			t.Errorf("%q: the error holds a control character raw: %q", in, err)
		}
	}
}

// TestCheckID: a study id names a folder (results/<id>-<study>) and the
// history's labels: one path element of letters, digits, '-' and '_'.
func TestCheckID(t *testing.T) {
	for _, id := range []string{"s1", "20261202T023510Z-7ddd61", "a_b-c", strings.Repeat("a", 64)} {
		if err := CheckID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "../../../x", "..", ".", "a/b", `a\b`, "a b", "x;rm -rf", "$(id)", "-x", ".x", "a.b", "\x1b[31m", strings.Repeat("a", 65), "é"} {
		err := CheckID(id)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--study-id") {
			t.Errorf("%q: %v", id, err)
		}
	}
}

// TestParseChecksTargetRate refuses a plan's target rate that the plan
// could only refuse once every step had run (a study of hours failed at
// its end, with no report).
func TestParseChecksTargetRate(t *testing.T) {
	const rateSweep = "study: x\nsteps:\n  - {name: r, sweep: noop, axis: rate, values: [1x, 2x], options: {baseline-rate: 100}}\n"
	const threadSweep = "study: x\nsteps:\n  - {name: r, sweep: noop, axis: threads, values: [1, 2]}\n"
	for in, want := range map[string]string{
		rateSweep + "plan: {step: r, target-rate: banana}\n":  `x.yaml:4: plan: target-rate "banana": want events per second`,
		rateSweep + "plan: {step: r, target-rate: 0x}\n":      `x.yaml:4: plan: target-rate "0x": want`,
		rateSweep + "plan: {step: r, target-rate: -5}\n":      `x.yaml:4: plan: target-rate "-5": want`,
		rateSweep + "plan: {step: r, target-rate: 1e999x}\n":  `x.yaml:4: plan: target-rate "1e999x": want`,
		threadSweep + "plan: {step: r, target-rate: 3x}\n":    `x.yaml:4: plan: target-rate "3x": a multiple of a baseline, but step r sweeps threads and gives no baseline-rate`,
		rateSweep + "plan: {step: r, target-rate: 3x}\n":      "",
		threadSweep + "plan: {step: r, target-rate: 3000}\n":  "",
		rateSweep + "plan: {step: r, target-rate: \"250\"}\n": "",
	} {
		_, err := Parse(strings.NewReader(in), "x.yaml")
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}
