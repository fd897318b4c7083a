package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyStudy is a study of a sweep and a run, each a second long, on SQLite.
const tinyStudy = `study: tiny
title: a tiny study
options:
  tables: 1
  table-size: 500
  time: 1s
  report-interval: 500ms
steps:
  - name: threads
    sweep: oltp_read_only
    axis: threads
    values: [1, 2]
  - name: point
    run: oltp_point_select
    options: {threads: 2}
report:
  format: md
  path: tiny.md
  steps: [threads]
`

func writeStudy(t *testing.T, dir, text string) string {
	t.Helper()
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStudyResume runs a tiny study twice under one id: the second run
// skips every step (the history holds them) and writes the report again.
func TestStudyResume(t *testing.T) {
	dir := t.TempDir()
	file := writeStudy(t, dir, tinyStudy)
	args := []string{"study", "run", file, "--target", "sqlite:" + filepath.Join(dir, "sb.db"), "--prepare", "always",
		"--history", "sqlite:" + filepath.Join(dir, "h.db"), "--study-id", "s1", "--dir", filepath.Join(dir, "out")}
	o := run(t, context.Background(), args...)
	if o.code != ExitOK {
		t.Fatalf("first: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{"$ rightsize sweep oltp_read_only", "$ rightsize run oltp_point_select", "--label=s1/threads", "study tiny done (id s1)"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("first run: no %q in\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "skipped") {
		t.Errorf("first run skipped steps:\n%s", o.stdout)
	}
	if r := mustReadResult(t, filepath.Join(dir, "out", "point.json")); r.Config == "" || strings.Contains(r.Config, "s1/") || r.Label != "s1/point" {
		t.Errorf("config %q label %q: want the host's name as config, the study's label", r.Config, r.Label)
	}
	page := filepath.Join(dir, "out", "tiny.md")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	o = run(t, context.Background(), args...)
	if o.code != ExitOK {
		t.Fatalf("second: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "skipped 2 of 2 steps, already in the history: threads, point") {
		t.Errorf("second run: no skip line in\n%s", o.stdout)
	}
	if strings.Contains(o.stdout, "$ rightsize sweep") || strings.Contains(o.stdout, "$ rightsize run") {
		t.Errorf("second run ran a step:\n%s", o.stdout)
	}
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "threads") {
		t.Errorf("report again: %v\n%s", err, b)
	}
	// Another id is another study: it runs its steps.
	o = run(t, context.Background(), append(args[:len(args)-4], "--study-id", "s2", "--dir", filepath.Join(dir, "out2"))...)
	if o.code != ExitOK || strings.Contains(o.stdout, "skipped") {
		t.Errorf("study s2: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestStudyBadStepsExit2 reports every step's bad flags at once, with the
// step's line, and runs nothing.
func TestStudyBadStepsExit2(t *testing.T) {
	dir := t.TempDir()
	file := writeStudy(t, dir, `study: bad
steps:
  - name: a
    run: oltp_read_only
    options: {tabels: 2}
  - name: b
    sweep: oltp_nope
    axis: threads
    values: [1]
  - name: c
    sweep: oltp_read_only
    axis: threads
    values: [0]
`)
	o := run(t, context.Background(), "study", "run", file, "--history", "sqlite:"+filepath.Join(dir, "h.db"), "--dir", filepath.Join(dir, "out"))
	if o.code != ExitUsage {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, want := range []string{file + ":3: step a: unknown flag: --tabels", file + ":6: step b: unknown workload \"oltp_nope\"", file + ":10: step c: "} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("no %q in\n%s", want, o.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("out made: %v", err)
	}
	if o := run(t, context.Background(), "study", "run", "nope"); o.code != ExitUsage || !strings.Contains(o.stderr, "no protocol \"nope\" (built in: scaled-instances, storage-patterns, tpcc-4x, vm-rate)") {
		t.Errorf("nope: %d %s", o.code, o.stderr)
	}
	if o := run(t, context.Background(), "study", "run", "vm-rate", "--scale", "huge", "--dry-run"); o.code != ExitUsage || !strings.Contains(o.stderr, "scale \"huge\"") {
		t.Errorf("huge: %d %s", o.code, o.stderr)
	}
}

// TestStudyShowAndList print the built-in protocols.
func TestStudyShowAndList(t *testing.T) {
	o := run(t, context.Background(), "study", "show", "tpcc-4x")
	if o.code != ExitOK || !strings.Contains(o.stdout, "think-scale: 0.25") {
		t.Errorf("show: %d %s %s", o.code, o.stdout, o.stderr)
	}
	o = run(t, context.Background(), "study", "list")
	if o.code != ExitOK || strings.Count(o.stdout, "follows:") != 4 {
		t.Errorf("list: %d %s %s", o.code, o.stdout, o.stderr)
	}
}

// TestStudyVMRateSmall runs the vm-rate protocol small on SQLite: the
// baseline, five rates, a plan and the HTML report.
func TestStudyVMRateSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("vm-rate small runs for about a minute and a half")
	}
	dir := t.TempDir()
	t.Chdir(dir) // the default embedded SQLite target, prepared once under ./rightsize-data
	o := run(t, context.Background(), "study", "run", "vm-rate",
		"--history", "sqlite:"+filepath.Join(dir, "h.db"), "--dir", filepath.Join(dir, "out"))
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, f := range []string{"rate-sweep.json", "rate-rate1x.json", "rate-rate5x.json", "plan.json", "report.html"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Error(err)
		}
	}
	if !strings.Contains(o.stdout, "plan: ") || !strings.Contains(o.stdout, "vCPUs for 3x") {
		t.Errorf("no plan in\n%s", o.stdout)
	}
}

// A step's printed command names each flag once, with the value that
// counts: study run's --prepare replaces the protocol's (the quickstart
// printed --prepare=auto ... --prepare=always).
func TestStudyStepNamesEachFlagOnce(t *testing.T) {
	o := run(t, context.Background(), "study", "run", "vm-rate", "--dry-run", "--prepare", "always", "--dir", t.TempDir())
	if o.code != ExitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	steps := 0
	for _, line := range strings.Split(o.stdout, "\n") {
		if strings.Contains(line, "rightsize sweep") {
			steps++
			if strings.Count(line, "--prepare") != 1 || !strings.Contains(line, "--prepare=always") {
				t.Errorf("step: %s", line)
			}
		}
	}
	if steps != 1 {
		t.Errorf("%d sweep commands printed, want vm-rate's one:\n%s", steps, o.stdout)
	}
	if got := withFlags([]string{"--time=10s", "--sequential", "--warmup=3s"}, "--time=5s", "--sequential"); strings.Join(got, " ") != "--warmup=3s --time=5s --sequential" {
		t.Errorf("withFlags: %q", got)
	}
}

// A study step on a database named with --target that prepare has not
// loaded stops at once, and says how to have the study load it.
func TestStudyNamesPrepareAlways(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "study", "run", "vm-rate", "--target", "sqlite:"+filepath.Join(dir, "empty.db"), "--dir", dir, "--history", "sqlite:"+filepath.Join(dir, "h.db"))
	if o.code == ExitOK || !strings.Contains(o.stderr, "missing tables: sbtest1, sbtest2") || !strings.Contains(o.stderr, "give study run --prepare always") {
		t.Errorf("exit %d:\n%s", o.code, o.stderr)
	}
}
