package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/study"
	"github.com/rightsize/rightsize/internal/testenv"
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
	if o := run(t, context.Background(), "study", "run", "nope"); o.code != ExitUsage || !strings.Contains(o.stderr, "no protocol \"nope\" (built in: app-rate, scaled-instances, storage-patterns, tpcc-4x, vm-rate)") {
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
	if o.code != ExitOK || strings.Count(o.stdout, "follows:") != 5 {
		t.Errorf("list: %d %s %s", o.code, o.stdout, o.stderr)
	}
}

// TestStudyAppRate: app-rate drives the workload file --workload names,
// with 1x from --baseline-rate (or the file); it refuses to run without
// one, and a study with its own workloads refuses one.
func TestStudyAppRate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "app.yaml")
	if err := os.WriteFile(file, []byte("name: app\ntables: [{name: t, rows: 10, columns: [{name: id, type: int, gen: {type: seq}}], primary_key: [id]}]\n"+
		"params: {k: {type: int, min: 1, max: 10}}\ntransactions: [{name: get, statements: ['SELECT id FROM t WHERE id = :k']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "study", "run", "app-rate", "--dry-run")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "study app-rate drives your own workload: name it with --workload FILE.yaml") {
		t.Errorf("no --workload: %d %s", o.code, o.stderr)
	}
	o = run(t, context.Background(), "study", "run", "vm-rate", "--workload", file, "--dry-run")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "study vm-rate drives its own workloads") {
		t.Errorf("vm-rate --workload: %d %s", o.code, o.stderr)
	}
	o = run(t, context.Background(), "study", "run", "app-rate", "--workload", file, "--baseline-rate", "50", "--dry-run", "--dir", filepath.Join(dir, "out"))
	if o.code != ExitOK || !strings.Contains(o.stdout, "sweep "+file+" --threads=16 --warmup=3s --time=10s --rate=1x,2x,3x,4x,5x --baseline-rate=50") {
		t.Errorf("dry run: %d %s %s", o.code, o.stdout, o.stderr)
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
	// One vCPU or several, as fast as this host runs the steps.
	if !regexp.MustCompile(`plan: \d+ vCPUs? for 3x`).MatchString(o.stdout) {
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
	if got := study.WithFlags([]string{"--time=10s", "--sequential", "--warmup=3s"}, "--time=5s", "--sequential"); strings.Join(got, " ") != "--warmup=3s --time=5s --sequential" {
		t.Errorf("WithFlags: %q", got)
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

// noopStudy is a study (named by %s) of one noop run of a second on %d
// threads, its report r.md.
const noopStudy = `study: %s
options: {time: 1s, report-interval: 500ms}
steps:
  - name: a
    run: noop
    options: {threads: %d}
report: {format: md, path: r.md}
`

// studyIn runs study run on file with the history h in dir, and more args.
func studyIn(t *testing.T, file, h, dir string, args ...string) outcome {
	t.Helper()
	return run(t, context.Background(), append([]string{"study", "run", file, "--history", "sqlite:" + h, "--dir", dir}, args...)...)
}

// TestStudyFileErrorsExit2: a problem of the study file is a usage error
// (exit 2, as a step's bad flag is), with the file's line, and nothing is
// written; so is a --study-id that is not one plain word.
func TestStudyFileErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.db")
	good := fmt.Sprintf(noopStudy, "x", 1)
	for text, want := range map[string]string{
		strings.Replace(good, "path: r.md", "path: ../../r.md", 1):   ":7: report: path \"../../r.md\"",
		strings.Replace(good, "path: r.md", "path: /tmp/r.md", 1):    ":7: report: path \"/tmp/r.md\"",
		strings.Replace(good, "time: 1s,", "cpuprofile: /tmp/p,", 1): ":2: options: cpuprofile is not a study option",
		good + "---\n" + good:   ":8: a second YAML document",
		"study: x\nsteps: []\n": ":2: steps: an empty list",
		"study: x\nsteps:\n  - {name: a, sweep: noop, axis: threads, values: []}\n": ":3: step a: values: an empty list",
		strings.Replace(good, "steps:\n", "title: \"\\e[31mred\"\nsteps:\n", 1):     ":3: title: \"\\x1b[31mred\": control characters",
	} {
		file := writeStudy(t, dir, text)
		out := filepath.Join(dir, "out")
		o := studyIn(t, file, h, out)
		if o.code != ExitUsage || !strings.Contains(o.stderr, file+want) || strings.Contains(o.stderr, "\x1b") {
			t.Errorf("%s: exit %d, want 2 and %q:\n%s", want, o.code, want, o.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: --dir made: %v", want, err)
		}
	}
	file := writeStudy(t, dir, good)
	deep := filepath.Join(dir, "a", "b", "c")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep) // the default --dir is results/<id>-<study>
	for _, id := range []string{"../../../x", "a b", "x;touch y", "\x1b[31m"} {
		o := run(t, context.Background(), "study", "run", file, "--history", "sqlite:"+h, "--study-id", id)
		if o.code != ExitUsage || !strings.Contains(o.stderr, "--study-id") || strings.Contains(o.stderr, "\x1b") {
			t.Errorf("--study-id %q: exit %d\n%s", id, o.code, o.stderr)
		}
	}
	for _, p := range []string{filepath.Join(dir, "x-x"), filepath.Join(dir, "a", "x-x"), filepath.Join(deep, "results")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s made: %v", p, err)
		}
	}
}

// TestStudyDirNotOverwritten: study run --dir never replaces a report or
// results there that its study id did not write, without --force; its own
// id resumes there.
func TestStudyDirNotOverwritten(t *testing.T) {
	dir := t.TempDir()
	h, out := filepath.Join(dir, "h.db"), filepath.Join(dir, "out")
	file := writeStudy(t, dir, fmt.Sprintf(noopStudy, "x", 1))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(out, "r.md")
	if err := os.WriteFile(mine, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := studyIn(t, file, h, out, "--study-id", "s1")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "r.md") || !strings.Contains(o.stderr, "--force") {
		t.Errorf("over my notes: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if b, _ := os.ReadFile(mine); string(b) != "my notes\n" {
		t.Errorf("my notes replaced: %q", b)
	}
	if o := studyIn(t, file, h, out, "--study-id", "s1", "--force"); o.code != ExitOK {
		t.Fatalf("--force: exit %d\n%s", o.code, o.stderr)
	}
	if b, _ := os.ReadFile(mine); string(b) == "my notes\n" {
		t.Errorf("--force kept the old report")
	}
	// Study s1 resumes in its own folder; study s2 may not write there.
	if o := studyIn(t, file, h, out, "--study-id", "s1"); o.code != ExitOK || !strings.Contains(o.stdout, "skipped 1 of 1 step") {
		t.Errorf("resume: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = studyIn(t, file, h, out, "--study-id", "s2")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "study s1") || !strings.Contains(o.stderr, "--force") {
		t.Errorf("s2 over s1: exit %d\n%s", o.code, o.stderr)
	}
}

// TestStudyResumeComparesSpec: a step the history holds under the study id
// is skipped only when it ran with the same options; otherwise it runs
// again, and the study says why (a changed file, another study under the
// same id).
func TestStudyResumeComparesSpec(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "h.db")
	file := writeStudy(t, dir, fmt.Sprintf(noopStudy, "x", 1))
	if o := studyIn(t, file, h, filepath.Join(dir, "out"), "--study-id", "s1"); o.code != ExitOK {
		t.Fatalf("first: exit %d\n%s", o.code, o.stderr)
	}
	file = writeStudy(t, dir, fmt.Sprintf(noopStudy, "x", 2))
	o := studyIn(t, file, h, filepath.Join(dir, "out"), "--study-id", "s1")
	if o.code != ExitOK || !strings.Contains(o.stdout, "step a: the history holds it with other options (--threads=1 then, --threads=2 now): running it again") ||
		!strings.Contains(o.stdout, "$ rightsize run noop") || strings.Contains(o.stdout, "skipped") {
		t.Errorf("changed: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if r := mustReadResult(t, filepath.Join(dir, "out", "a.json")); r.Load.Threads != 2 {
		t.Errorf("a.json has %d threads", r.Load.Threads)
	}
	if o := studyIn(t, file, h, filepath.Join(dir, "out"), "--study-id", "s1"); o.code != ExitOK || !strings.Contains(o.stdout, "skipped 1 of 1 step") {
		t.Errorf("unchanged: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// Another study under the same id, a step of the same name and workload.
	other := writeStudy(t, t.TempDir(), fmt.Sprintf(noopStudy, "other", 3))
	o = studyIn(t, other, h, filepath.Join(dir, "out2"), "--study-id", "s1")
	if o.code != ExitOK || !strings.Contains(o.stdout, "step a: the history holds it ("+filepath.Join(dir, "out", "a.json")+") from another study (x, "+file+") under the same id: running it again") || strings.Contains(o.stdout, "skipped") {
		t.Errorf("another study: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}

// TestStudyMissingDatabaseNamesPrepareAlways: a study on a database that
// does not exist yet stops at once and says how to have it created.
func TestStudyMissingDatabaseNamesPrepareAlways(t *testing.T) {
	u := mustURL(t, testenv.PostgresURL(t))
	u.Path = "/" + uniqueName("rs_missing_")
	dir := t.TempDir()
	o := studyIn(t, writeStudy(t, dir, strings.Replace(fmt.Sprintf(noopStudy, "x", 1), "run: noop", "run: oltp_point_select", 1)),
		filepath.Join(dir, "h.db"), filepath.Join(dir, "out"), "--target", u.String())
	if o.code != ExitFailure || !strings.Contains(o.stderr, "does not exist") || !strings.Contains(o.stderr, "give study run --prepare always") {
		t.Errorf("exit %d:\n%s", o.code, o.stderr)
	}
}

// TestQuickstartReplacesOnlyOurs: quickstart's folder is its own: a run
// replaces what an earlier one (another study id) wrote there, and still
// refuses a file rightsize did not write.
func TestQuickstartReplacesOnlyOurs(t *testing.T) {
	s, _, err := study.ParseBuiltin("vm-rate")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := &study.Record{Study: "vm-rate", ID: "old", Steps: map[string]study.StepRecord{}}
	if err := old.Write(dir); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("report.html", "<html><head>"+htmlMarker+` 1.0"></head></html>`)
	write("rate-notes.txt", "mine")
	o := study.Claim{ID: "new", Dir: dir, ReplaceOurs: true}
	if _, err := s.ClaimDir(o); err == nil || !strings.Contains(err.Error(), "holds rate-notes.txt,") || strings.Contains(err.Error(), "report.html") || strings.Contains(err.Error(), "--force") {
		t.Errorf("claim: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "rate-notes.txt")); err != nil {
		t.Fatal(err)
	}
	rec, err := s.ClaimDir(o)
	if err != nil || rec.ID != "new" {
		t.Fatalf("claim: %v %+v", err, rec)
	}
	if again, err := study.ReadRecord(dir); err != nil || again.ID != "new" {
		t.Errorf("record: %+v %v", again, err)
	}
	o.ReplaceOurs = false
	o.ID = "third"
	if _, err := s.ClaimDir(o); err == nil || !strings.Contains(err.Error(), "study new (vm-rate) wrote") {
		t.Errorf("study run over another id: %v", err)
	}
}

// TestStudyResumeRelativeDir: a study resumes in a --dir given relative to
// the working folder (the history records absolute paths).
func TestStudyResumeRelativeDir(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	file := writeStudy(t, dir, fmt.Sprintf(noopStudy, "x", 1))
	for i, want := range []string{"$ rightsize run noop", "skipped 1 of 1 step"} {
		if o := studyIn(t, file, "h.db", "out", "--study-id", "s1"); o.code != ExitOK || !strings.Contains(o.stdout, want) {
			t.Errorf("run %d: exit %d, want %q\n%s\n%s", i+1, o.code, want, o.stdout, o.stderr)
		}
	}
}

// TestStudyPastTheLimitStillReports runs a study whose every step is past
// the limit (an open loop far beyond what one virtual user on SQLite
// serves): no VM is planned from it, the study says why, and the report of
// what its steps measured is still written (it was not: the study failed
// at its plan, after the steps had run).
func TestStudyPastTheLimitStillReports(t *testing.T) {
	dir := t.TempDir()
	file := writeStudy(t, dir, `study: past
options:
  tables: 1
  table-size: 200
  time: 1s
  warmup: 200ms
  threads: 1
steps:
  - name: rate
    sweep: oltp_point_select
    axis: rate
    values: [5000000, 10000000]
plan:
  step: rate
  target-rate: "1000"
  cpu-target: 80
report:
  format: md
  path: past.md
`)
	// An earlier run's plan in the folder must not stay to be read as this one's.
	if err := os.MkdirAll(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "out", "plan.json"), []byte(`{"stale": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "study", "run", file, "--target", "sqlite:"+filepath.Join(dir, "sb.db"), "--prepare", "always",
		"--history", "sqlite:"+filepath.Join(dir, "h.db"), "--dir", filepath.Join(dir, "out"), "--force")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if !strings.Contains(o.stdout, "plan: no VM planned: ") || !strings.Contains(o.stdout, "no service demand") {
		t.Errorf("no word on why no VM is planned:\n%s", o.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "past.md")); err != nil {
		t.Errorf("no report: %v\n%s", err, o.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "plan.json")); err == nil {
		t.Errorf("a plan.json is in the folder of a study that planned no VM")
	}
}
