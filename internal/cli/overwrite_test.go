package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each command replaces without --force only the kind of file it writes:
// report -o a report of rightsize's, run/sweep --out and merge -o a result,
// a sweep file or a sweep's Markdown report, --cpuprofile a profile. The
// refusal (exit 2) says what the file is.
func TestOutputReplacesOnlyItsKind(t *testing.T) {
	dir := t.TempDir()
	a := tinyResult(t, dir, "a.json")
	measured, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.json") // another measurement
	if err := os.WriteFile(b, measured, 0o644); err != nil {
		t.Fatal(err)
	}
	o := run(t, context.Background(), "report", a, "-o", b)
	if want := "report: -o " + b + " is a rightsize result (a measurement), not a report: --force replaces it"; o.code != ExitUsage || !strings.Contains(o.stderr, want) {
		t.Errorf("report -o over a result: exit %d, want 2 and %q\n%s", o.code, want, o.stderr)
	}
	unchanged(t, b, measured)
	html := filepath.Join(dir, "r.html")
	if o := run(t, context.Background(), "report", a, "-o", html); o.code != ExitOK {
		t.Fatalf("report -o r.html: exit %d\n%s", o.code, o.stderr)
	}
	for _, tc := range []struct {
		cmd, flag, path string
		out             output
		want            string // "" when replaced without --force
	}{
		{"run", "--out", b, resultOut, ""},
		{"merge", "-o", b, resultOut, ""},
		{"run", "--out", html, resultOut, "run: --out " + html + " is an HTML report of rightsize's, not a result or sweep file: --force replaces it"},
		{"merge", "-o", html, resultOut, "is an HTML report of rightsize's, not a result or sweep file"},
		{"run", "--cpuprofile", b, profileOut, "run: --cpuprofile " + b + " is a rightsize result (a measurement), not a CPU profile: --force replaces it"},
		{"run", "--cpuprofile", html, profileOut, "is an HTML report of rightsize's, not a CPU profile"},
		{"report", "-o", html, reportOut, ""},
	} {
		err := checkOutput(tc.cmd, tc.flag, tc.path, tc.out, false, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s %s: %v", tc.cmd, tc.flag, tc.path, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s %s: %v, want %q", tc.cmd, tc.flag, tc.path, err, tc.want)
		case tc.want != "" && checkOutput(tc.cmd, tc.flag, tc.path, tc.out, true, nil) != nil:
			t.Errorf("%s %s %s --force: refused", tc.cmd, tc.flag, tc.path)
		}
	}
	// A CSV or text report carries no mark: rightsize cannot tell whose it is.
	csv := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(csv, []byte("label,target\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = run(t, context.Background(), "report", a, "--format", "csv", "-o", csv)
	if want := "report: -o " + csv + " exists and rightsize cannot tell who wrote it (CSV and text reports carry no mark): --force replaces it"; o.code != ExitUsage || !strings.Contains(o.stderr, want) {
		t.Errorf("report -o over a CSV file: exit %d, want 2 and %q\n%s", o.code, want, o.stderr)
	}
}

// An output named twice (--out and --cpuprofile the same file) is refused
// before anything runs (exit 2): one would overwrite the other.
func TestOutputNamedTwice(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db.sqlite")
	out := filepath.Join(dir, "r.json")
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+db, "--prepare", "always",
		"--table-size", "100", "--time", "300ms", "--out", out, "--cpuprofile", out, "--no-history")
	if want := "run: --cpuprofile " + out + " is also --out's " + out + ": name each output once"; o.code != ExitUsage || !strings.Contains(o.stderr, want) {
		t.Errorf("--out and --cpuprofile the same file: exit %d, want 2 and %q\n%s", o.code, want, o.stderr)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the database was prepared before the refusal: %v", err)
	}
}
