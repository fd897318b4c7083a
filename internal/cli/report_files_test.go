package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// tinyResult runs oltp_point_select on SQLite for a moment and returns its
// result file, dir/name.
func tinyResult(t *testing.T, dir, name string) string {
	t.Helper()
	out := filepath.Join(dir, name)
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "100", "--time", "300ms", "--report-interval", "300ms", "--out", out, "--no-history")
	if o.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	return out
}

// unchanged fails unless the file at path still holds want.
func unchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	if got, err := os.ReadFile(path); err != nil || string(got) != string(want) {
		t.Errorf("%s changed (%v): now %.80q", path, err, got)
	}
}

// report -o never writes over one of its inputs, by any name (the same
// path, a symlink, a hard link, a step's result read through its sweep):
// exit 2, the input unchanged, even with --force.
func TestReportOutIsNeverAnInput(t *testing.T) {
	dir := t.TempDir()
	r := tinyResult(t, dir, "r.json")
	before, _ := os.ReadFile(r)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(r, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.json")
	if err := os.Link(r, hard); err != nil {
		t.Fatal(err)
	}
	sw := writeSweep(t, dir, "S", "oltp_point_select", "threads", 1000, 1, 2)
	b, _ := os.ReadFile(sw)
	// The sweep's first step's result is r.json.
	if err := os.WriteFile(sw, []byte(strings.Replace(string(b), `"label":"threads 1"`, `"label":"threads 1","result":"`+r+`"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{r, "-o", r},
		{r, "-o", link},
		{link, "-o", r},
		{r, "-o", hard, "--force"},
		{sw, "-o", r},
	} {
		o := run(t, context.Background(), append([]string{"report"}, args...)...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, "would be replaced by the output") {
			t.Errorf("report %v: exit %d, want %d refusing to replace an input\n%s", args, o.code, ExitUsage, o.stderr)
		}
		unchanged(t, r, before)
	}
}

// report -o replaces what rightsize wrote (an earlier report, an empty
// file) and nothing else without --force.
func TestReportOutReplacesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	r := tinyResult(t, dir, "r.json")
	mine := filepath.Join(dir, "notes.html")
	if err := os.WriteFile(mine, []byte("<html>my notes</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "report", r, "-o", mine)
	if o.code != ExitUsage || !strings.Contains(o.stderr, "was not written by rightsize") || !strings.Contains(o.stderr, "--force") {
		t.Errorf("report -o over a file of the user's: exit %d\n%s", o.code, o.stderr)
	}
	unchanged(t, mine, []byte("<html>my notes</html>"))
	if o := run(t, context.Background(), "report", r, "-o", mine, "--force"); o.code != ExitOK {
		t.Errorf("--force: exit %d\n%s", o.code, o.stderr)
	}
	// Now it is a report of rightsize's: replaced without --force, in
	// every format that carries a mark.
	for _, f := range []string{"html", "md"} {
		out := filepath.Join(dir, "r."+f)
		for i := range 2 {
			if o := run(t, context.Background(), "report", r, "--format", f, "-o", out); o.code != ExitOK {
				t.Errorf("report --format %s -o (time %d): exit %d\n%s", f, i+1, o.code, o.stderr)
			}
		}
	}
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if o := run(t, context.Background(), "report", r, "--format", "csv", "-o", empty); o.code != ExitOK {
		t.Errorf("report -o over an empty file: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, context.Background(), "report", r, "-o", dir); o.code != ExitUsage || !strings.Contains(o.stderr, "is a directory") {
		t.Errorf("report -o DIR: exit %d\n%s", o.code, o.stderr)
	}
	nodir := filepath.Join(dir, "nodir")
	if o := run(t, context.Background(), "report", r, "-o", filepath.Join(nodir, "x.html")); o.code != ExitFailure || !strings.Contains(o.stderr, "the folder "+nodir+": no such file or directory") {
		t.Errorf("report -o in a missing folder: exit %d\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(nodir); !os.IsNotExist(err) {
		t.Errorf("report -o made a folder: %v", err)
	}
}

// The same sweep or run named twice (the same file, a copy of it, or its
// key beside its file) is refused, naming both arguments: it would count
// as two repeats of one measurement.
func TestReportSameInputTwice(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "S", "oltp_point_select", "threads", 1000, 1, 2, 4)
	cp := filepath.Join(dir, "copy.json")
	b, _ := os.ReadFile(sw)
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r := tinyResult(t, dir, "r.json")
	for _, args := range [][2]string{{sw, sw}, {sw, cp}, {r, r}} {
		o := run(t, context.Background(), "report", args[0], args[1], "--format", "text")
		if o.code != ExitUsage || !strings.Contains(o.stderr, args[0]) || !strings.Contains(o.stderr, args[1]) || !strings.Contains(o.stderr, "the same") {
			t.Errorf("report %s %s: exit %d, want %d naming both\n%s%s", args[0], args[1], o.code, ExitUsage, o.stdout, o.stderr)
		}
	}
}

// Inputs too large to be results, and devices that never end, are refused
// with one message, without reading them (a sparse file of MaxFileSize+1
// bytes; /dev/zero).
func TestReportRefusesHugeAndEndlessInputs(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(big, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, result.MaxFileSize+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ args []string }{
		{[]string{"report", big}},
		{[]string{"report", "/dev/zero"}},
		{[]string{"analyze", big}},
		{[]string{"analyze", "/dev/zero"}},
		{[]string{"merge", "/dev/zero", "-o", "-", "--no-history"}},
		{[]string{"history", "import", "/dev/zero", "--history", "sqlite:" + filepath.Join(filepath.Dir(big), "h.db")}},
		{[]string{"history", "import", big, "--history", "sqlite:" + filepath.Join(filepath.Dir(big), "h.db")}},
	} {
		o := run(t, context.Background(), tc.args...)
		want := "257 MiB, over the 256 MiB a result, sweep or plan file may weigh"
		if strings.Contains(strings.Join(tc.args, " "), "/dev/zero") {
			want = "/dev/zero: not read: it is a device, not a regular file"
		}
		if o.code != ExitFailure || !strings.Contains(o.stderr, want) {
			t.Errorf("%v: exit %d, want %d and %q\n%s", tc.args, o.code, ExitFailure, want, o.stderr)
		}
	}
}

// run and sweep --out replace what rightsize wrote, and nothing else
// without --force: refused (exit 2) before anything is prepared or run;
// merge -o never replaces a shard it reads.
func TestRunOutReplacesOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db.sqlite")
	notes := filepath.Join(dir, "notes.json")
	mine := []byte(`{"mine": 1}`)
	if err := os.WriteFile(notes, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	runTo := func(cmd, out string, extra ...string) outcome {
		threads := "1"
		if cmd == "sweep" {
			threads = "1,2"
		}
		return run(t, context.Background(), append([]string{cmd, "oltp_point_select", "--target", "sqlite:" + db, "--prepare", "always",
			"--table-size", "100", "--threads", threads, "--time", "300ms", "--report-interval", "300ms", "--out", out, "--no-history"}, extra...)...)
	}
	o := runTo("run", notes)
	if o.code != ExitUsage || !strings.Contains(o.stderr, "run: --out "+notes+" exists and was not written by rightsize") {
		t.Errorf("run --out over a file of the user's: exit %d\n%s", o.code, o.stderr)
	}
	unchanged(t, notes, mine)
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the database was prepared before the refusal: %v", err)
	}
	if o := runTo("run", notes, "--force"); o.code != ExitOK {
		t.Errorf("run --out --force: exit %d\n%s", o.code, o.stderr)
	}
	if o := runTo("run", notes); o.code != ExitOK { // a result of rightsize's now
		t.Errorf("run --out over an earlier result: exit %d\n%s", o.code, o.stderr)
	}
	// A sweep writes s-threads_1.json, s-threads_2.json, s-sweep.json and s-sweep.md.
	md := filepath.Join(dir, "s-sweep.md")
	if err := os.WriteFile(md, []byte("# my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = runTo("sweep", filepath.Join(dir, "s.json"))
	if o.code != ExitUsage || !strings.Contains(o.stderr, "sweep: --out "+md+" exists and was not written by rightsize") {
		t.Errorf("sweep over a Markdown file of the user's: exit %d\n%s", o.code, o.stderr)
	}
	unchanged(t, md, []byte("# my notes\n"))
	if o := run(t, context.Background(), "merge", notes, "-o", notes, "--no-history"); o.code != ExitUsage || !strings.Contains(o.stderr, "would be replaced by the output") {
		t.Errorf("merge -o INPUT: exit %d\n%s", o.code, o.stderr)
	}
}

// --cpuprofile replaces an earlier profile, and nothing else without
// --force (exit 2 before anything runs).
func TestCPUProfileReplacesOnlyAProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.out")
	mine := []byte("my notes")
	if err := os.WriteFile(prof, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	runWith := func(extra ...string) outcome {
		return run(t, context.Background(), append([]string{"run", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite"),
			"--prepare", "always", "--table-size", "100", "--time", "300ms", "--out", "-", "--no-history", "--cpuprofile", prof}, extra...)...)
	}
	if o := runWith(); o.code != ExitUsage || !strings.Contains(o.stderr, "--cpuprofile "+prof+" exists and was not written by rightsize") {
		t.Errorf("--cpuprofile over a file of the user's: exit %d\n%s", o.code, o.stderr)
	}
	unchanged(t, prof, mine)
	if o := runWith("--force"); o.code != ExitOK {
		t.Errorf("--force: exit %d\n%s", o.code, o.stderr)
	}
	if o := runWith(); o.code != ExitOK { // a profile now
		t.Errorf("--cpuprofile over a profile: exit %d\n%s", o.code, o.stderr)
	}
}

// A sweep file with no steps gets one message from every command that
// reads sweep files (exit 1), never a chart's "plotter: no data points".
func TestSweepWithNoSteps(t *testing.T) {
	dir := t.TempDir()
	sw := writeSweep(t, dir, "S", "oltp_point_select", "threads", 1000) // "steps": null
	b, _ := os.ReadFile(sw)
	empty := filepath.Join(dir, "E-sweep.json")
	if err := os.WriteFile(empty, []byte(strings.Replace(string(b), `"steps":null`, `"steps":[]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "esxtop.csv")
	esxtopFor(t, csv, time.Now().Add(-time.Minute), time.Now(), time.Now())
	for _, p := range []string{sw, empty} {
		for _, args := range [][]string{
			{"report", p},
			{"report", p, "--format", "text"},
			{"analyze", p},
			{"plan", "--from", p, "--target-rate", "100", "--host", seedHostFile},
			{"history", "import", p, "--history", "sqlite:" + filepath.Join(dir, "h.db")},
			{"import", "esxtop", csv, "--vm", "DB01", "--into", p},
		} {
			o := run(t, context.Background(), args...)
			want := p + ": a sweep with no steps: nothing to report"
			if o.code != ExitFailure || !strings.Contains(o.stderr, want) || strings.Contains(o.stderr, "plotter") {
				t.Errorf("%v: exit %d, want %d and %q\n%s", args, o.code, ExitFailure, want, o.stderr)
			}
		}
	}
}
