package cli

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultTextNeverEscapesToTheTerminal: a result file whose label, config
// and notes carry escape sequences (a window title, colours) is printed by
// report, history import, list and show with each such character written
// visibly, never raw.
func TestResultTextNeverEscapesToTheTerminal(t *testing.T) {
	dir := t.TempDir()
	const evil = "evil\x1b]0;PWNED\x07\x1b[31mred"
	r := fakeRun(rand.New(rand.NewPCG(3, 4)), "20250301T120000Z-e5c", evil, hist0, 1000, 5)
	r.Config = evil
	r.Instances[0].Notes = []string{evil}
	path := writeRun(t, dir, r)
	h := "sqlite:" + filepath.Join(dir, "h.db")
	for _, args := range [][]string{
		{"report", path, "--format", "text"},
		{"history", "import", path, "--history", h},
		{"history", "list", "--history", h},
		{"history", "show", r.ID, "--history", h},
	} {
		o := run(t, context.Background(), args...)
		if o.code != ExitOK {
			t.Fatalf("%s: exit %d\n%s%s", args[:2], o.code, o.stdout, o.stderr)
		}
		if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") {
			t.Errorf("%s printed an escape raw:\n%q", args[:2], o.stdout+o.stderr)
		}
		if args[1] != "import" && args[1] != "list" && !strings.Contains(o.stdout, `evil\x1b]0;PWNED`) {
			t.Errorf("%s: the label is not shown escaped:\n%s", args[:2], o.stdout)
		}
	}
}

// TestStudyDirLineQuoted: study's "… in DIR" line quotes the folder as a
// shell word, an escape in its name written \x1b, never raw.
func TestStudyDirLineQuoted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b\x1b[31m")
	o := run(t, context.Background(), "study", "run", "vm-rate", "--dry-run", "--dir", dir, "--target", "sqlite:"+filepath.Join(t.TempDir(), "x.db"))
	if strings.Contains(o.stdout+o.stderr, "\x1b") {
		t.Errorf("exit %d, an escape printed raw:\n%q", o.code, o.stdout+o.stderr)
	}
	if o.code == ExitOK && !strings.Contains(o.stdout, " in $'") {
		t.Errorf("the folder is not quoted:\n%s", o.stdout)
	}
}
