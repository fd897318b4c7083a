package study

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// expanded is a study at a scale as text: each step's command.
func expanded(t *testing.T, s *Study, scale string) string {
	t.Helper()
	cmds, err := s.Expand(scale)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "study %s at %s: %s\nfollows: %s\n", s.Name, scale, s.Title, s.Follows)
	for _, c := range cmds {
		fmt.Fprintf(&b, "step %s (line %d, config %q):\n  %s\n", c.Step, c.Line, c.Config, c)
	}
	if p := s.Sizing; p != nil {
		fmt.Fprintf(&b, "plan: from %s at %s, %g %% CPU\n", p.Stage, p.TargetRate, p.CPUTarget)
	}
	fmt.Fprintf(&b, "report: %s %s of %s\n", s.Report.Format, s.Report.Path, strings.Join(s.Report.Stages, ", "))
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to see):\n%s", path, got)
	}
}

// TestBuiltinsExpand is each built-in protocol's plan at both scales.
func TestBuiltinsExpand(t *testing.T) {
	names := Builtins()
	if strings.Join(names, ",") != "app-rate,scaled-instances,storage-patterns,tpcc-4x,vm-rate" {
		t.Fatalf("builtins: %v", names)
	}
	for _, name := range names {
		s, ok, err := ParseBuiltin(name)
		if !ok || err != nil {
			t.Fatalf("%s: %v %v", name, ok, err)
		}
		for _, sc := range Scales {
			golden(t, name+"."+sc+".golden.txt", expanded(t, s, sc))
		}
	}
	if _, ok, _ := ParseBuiltin("nope"); ok {
		t.Error("a protocol named nope")
	}
}

func TestExpandScale(t *testing.T) {
	s, err := Parse(strings.NewReader("study: x\nsteps:\n  - {name: a, run: noop, options: {time: {small: 1s, full: 5m}, force: true, seed: 7}}\n"), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for sc, want := range map[string]string{Small: "--time=1s --force --seed=7", Full: "--time=5m --force --seed=7"} {
		cmds, err := s.Expand(sc)
		if err != nil || strings.Join(cmds[0].Args, " ") != want {
			t.Errorf("%s: %v %v, want %s", sc, cmds, err, want)
		}
	}
	if _, err := s.Expand("huge"); !errors.Is(err, ErrInvalid) {
		t.Errorf("scale huge: %v", err)
	}
}

// TestStepOverridesStudy: a step's option replaces the study's in its place.
func TestStepOverridesStudy(t *testing.T) {
	s, err := Parse(strings.NewReader(`study: x
options: {time: 5s, tables: 2}
steps:
  - name: a
    sweep: oltp_read_write
    axis: threads
    values: [1, 2]
    options: {time: 9s, seed: 1}
`), "x.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmds, _ := s.Expand(Small)
	if got := strings.Join(cmds[0].Args, " "); got != "--time=9s --tables=2 --seed=1 --threads=1,2" {
		t.Errorf("args %s", got)
	}
}

// TestValidationAllAtOnce: every problem of a file, each with its line.
func TestValidationAllAtOnce(t *testing.T) {
	f, err := os.Open("testdata/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = Parse(f, "bad.yaml")
	var se *Error
	if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("err %T %v", err, err)
	}
	golden(t, "bad.golden.txt", err.Error()+"\n")
}

func TestParseRefusals(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "x.yaml: empty",
		"study: [":                  "x.yaml:1: not YAML",
		"- a\n- b\n":                "study: want a mapping",
		"study: x\nsteps: []\n":     "steps: an empty list",
		"study: x\nsteps: {a: 1}\n": "steps: want a list",
		"study: x\n":                "x.yaml:1: steps: missing",
		"study: x\nsteps:\n  - 3\n": "step 1: want a mapping",
	} {
		_, err := Parse(strings.NewReader(in), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestUseWorkload: app-rate's steps drive the workload study run's
// --workload names; it refuses none, and a study with its own workloads
// refuses one.
func TestUseWorkload(t *testing.T) {
	s, _, err := ParseBuiltin("app-rate")
	if err != nil || !s.NeedsWorkload() {
		t.Fatalf("app-rate: %v, needs a workload %v", err, s.NeedsWorkload())
	}
	if err := s.UseWorkload(""); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--workload FILE.yaml") {
		t.Errorf("no --workload: %v", err)
	}
	if err := s.UseWorkload("my-app.yaml"); err != nil {
		t.Fatal(err)
	}
	cmds, err := s.Expand(Small)
	if err != nil || len(cmds) != 1 || cmds[0].String() != "rightsize sweep my-app.yaml --threads=16 --warmup=3s --time=10s --rate=1x,2x,3x,4x,5x" {
		t.Errorf("expanded: %v %v", cmds, err)
	}
	vm, _, _ := ParseBuiltin("vm-rate")
	if err := vm.UseWorkload("my-app.yaml"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "drives its own workloads") {
		t.Errorf("vm-rate --workload: %v", err)
	}
}
