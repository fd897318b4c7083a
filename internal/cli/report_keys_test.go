package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/history"
)

// catalogSweeps runs two tiny sweeps, of configurations alpha and beta,
// recorded in a catalog of their own; it returns the catalog's location and
// the sweeps' files and catalog keys.
func catalogSweeps(t *testing.T) (dsn string, files, keys []string) {
	t.Helper()
	dir := t.TempDir()
	dsn = "sqlite:" + filepath.Join(dir, "h.db")
	for _, c := range []string{"alpha", "beta"} {
		o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, c+".sqlite"),
			"--prepare", "always", "--table-size", "100", "--threads", "1,2", "--time", "300ms", "--report-interval", "300ms",
			"--config", c, "--out", filepath.Join(dir, c+".json"), "--history", dsn)
		if o.code != ExitOK {
			t.Fatalf("sweep --config %s: exit %d\n%s\n%s", c, o.code, o.stdout, o.stderr)
		}
		f := filepath.Join(dir, c+"-sweep.json")
		sw := readSweep(t, f)
		files, keys = append(files, f), append(keys, history.SweepKey(&sw.Sweep))
	}
	return dsn, files, keys
}

// headline is a comparison's first line, which must name both
// configurations.
func headline(t *testing.T, what string, o outcome) {
	t.Helper()
	first, _, _ := strings.Cut(o.stdout, "\n")
	if o.code != ExitOK || !strings.Contains(first, "alpha") || !strings.Contains(first, "beta") || !strings.Contains(first, "at threads 2") {
		t.Errorf("%s: exit %d, headline %q, want one naming alpha and beta at threads 2\n%s%s", what, o.code, first, o.stdout, o.stderr)
	}
}

// report takes configuration names and catalog keys besides files: each
// argument that is not a file is looked up in the history catalog.
func TestReportFromTheCatalog(t *testing.T) {
	ctx := context.Background()
	dsn, files, keys := catalogSweeps(t)

	headline(t, "report alpha beta", run(t, ctx, "report", "alpha", "beta", "--history", dsn, "--format", "text"))
	headline(t, "report KEY KEY", run(t, ctx, "report", keys[0], keys[1], "--history", dsn, "--format", "text"))
	// A unique prefix of a key will do, and a key beside a file; a prefix
	// of several keys is refused, naming them.
	headline(t, "report PREFIX FILE", run(t, ctx, "report", strings.TrimSuffix(keys[0], "eep"), files[1], "--history", dsn, "--format", "md"))
	// A sweep named twice, by its key or configuration and by its file, is
	// refused: it would count as two repeats.
	for _, args := range [][]string{{keys[0], files[0]}, {"alpha", files[0]}, {"alpha", "alpha"}} {
		if o := run(t, ctx, "report", args[0], args[1], "--history", dsn); o.code != ExitUsage || !strings.Contains(o.stderr, args[0]+" and "+args[1]+" are the same sweep") {
			t.Errorf("report %s %s: exit %d, want %d\n%s", args[0], args[1], o.code, ExitUsage, o.stderr)
		}
	}
	prefix := strings.TrimSuffix(keys[0], "-sweep")
	if o := run(t, ctx, "report", prefix, files[1], "--history", dsn); o.code != ExitUsage || !strings.Contains(o.stderr, "ambiguous key") || !strings.Contains(o.stderr, keys[0]) {
		t.Errorf("report AMBIGUOUS: exit %d, want %d naming %s\n%s", o.code, ExitUsage, keys[0], o.stderr)
	}
	// The configuration from the environment's catalog, as run and sweep find it.
	headline(t, "report alpha beta with $RIGHTSIZE_HISTORY",
		runWithEnv(t, ctx, map[string]string{"RIGHTSIZE_HISTORY": dsn}, "report", "alpha", "beta", "--format", "text"))

	// The catalog holds the sweeps and their steps' results: moved files do
	// not matter.
	for _, f := range files {
		base := strings.TrimSuffix(f, "-sweep.json")
		for _, p := range []string{f, base + "-threads1.json", base + "-threads2.json"} {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	headline(t, "report KEY KEY, files gone", run(t, ctx, "report", keys[0], keys[1], "--history", dsn, "--format", "text"))

	// A run's key is that run; a configuration with runs and no sweep, its runs.
	o := run(t, ctx, "history", "list", "--config", "alpha", "--history", dsn)
	runKey := strings.Fields(lineOf(o.stdout, "threads 2"))[0]
	if o := run(t, ctx, "report", runKey, "--history", dsn, "--format", "text"); o.code != ExitOK || !strings.Contains(o.stdout, "threads 2") {
		t.Errorf("report RUNKEY: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	dir := t.TempDir()
	if o := run(t, ctx, "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"), "--prepare", "always", "--table-size", "100",
		"--threads", "1", "--time", "300ms", "--report-interval", "300ms", "--config", "gamma", "--label", "lone", "--out", filepath.Join(dir, "g.json"), "--history", dsn); o.code != ExitOK {
		t.Fatalf("run --config gamma: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, ctx, "report", "gamma", "--history", dsn, "--format", "text"); o.code != ExitOK || !strings.Contains(o.stdout, "lone") {
		t.Errorf("report gamma (runs only): exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// An argument that is neither a file, a key nor a configuration is a usage
// error (exit 2) with one message that names the catalog; a report of files
// opens no catalog.
func TestReportUnknownName(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	o := run(t, ctx, "report", "nosuch", "--history", "sqlite:"+db, "--format", "text")
	want := `report: "nosuch" is not a file, nor a run's or sweep's key (or a unique prefix of one), nor a configuration (--config) in the history catalog sqlite:` + db
	if o.code != ExitUsage || !strings.Contains(o.stderr, want) || o.stdout != "" {
		t.Errorf("exit %d, want %d and %q\nstderr: %s", o.code, ExitUsage, want, o.stderr)
	}
	// No catalog to look in: the same, saying so.
	o = run(t, ctx, "report", "nosuch", "--format", "text")
	want = `report: "nosuch" is not a file, and there is no history catalog to look it up in: give --history, or set RIGHTSIZE_HISTORY, XDG_DATA_HOME or HOME`
	if o.code != ExitUsage || !strings.Contains(o.stderr, want) {
		t.Errorf("no catalog: exit %d, want %d and %q\nstderr: %s", o.code, ExitUsage, want, o.stderr)
	}
	// A catalog's password is never shown.
	o = run(t, ctx, "report", "nosuch", "--history", "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1")
	if o.code == ExitOK || strings.Contains(o.stderr, "s3cret") {
		t.Errorf("postgres catalog: exit %d\n%s", o.code, o.stderr)
	}

	// Files need no catalog: the one named is not opened (nor created).
	a := writeSweep(t, dir, "A", "oltp_point_select", "threads", 1000, 1, 2, 4)
	b := writeSweep(t, dir, "B", "oltp_point_select", "threads", 1200, 1, 2, 4)
	other := filepath.Join(dir, "other.db")
	if o := run(t, ctx, "report", a, b, "--history", "sqlite:"+other, "--format", "text"); o.code != ExitOK || !strings.HasPrefix(o.stdout, "B: ") {
		t.Errorf("report of files: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("a report of files opened the catalog %s", other)
	}
}
