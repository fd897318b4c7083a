package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunRefusesMismatchedTables: run on tables prepared with another
// --table-size is refused (exit 1) with both sizes named, before anything
// runs; --force runs with a warning the result keeps; prepare says why it
// loads the tables again.
func TestRunRefusesMismatchedTables(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	url := "sqlite:" + filepath.Join(dir, "sb.db")
	if o := run(t, ctx, "prepare", "oltp_read_write", "--target", url, "--tables", "2", "--table-size", "100"); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	o := run(t, ctx, "run", "oltp_read_write", "--target", url, "--tables", "2", "--table-size", "1000", "--time", "1s", "--out", "-")
	const want = "tables sbtest1..sbtest2 hold 100 rows each (prepared), --table-size asks 1,000: prepare again or pass --force"
	if o.code != ExitFailure || !strings.Contains(o.stderr, want) {
		t.Fatalf("run on 100 rows with --table-size 1000: exit %d, want %d and %q\n%s", o.code, ExitFailure, want, o.stderr)
	}
	if strings.Contains(o.stdout, "tps") {
		t.Errorf("a refused run measured something:\n%s", o.stdout)
	}

	out := filepath.Join(dir, "r.json")
	o = run(t, ctx, "run", "oltp_read_write", "--target", url, "--tables", "2", "--table-size", "1000", "--time", "1s", "--out", out, "--force")
	if o.code != ExitOK || !strings.Contains(o.stderr, "running anyway (--force)") {
		t.Fatalf("run --force: exit %d\n%s", o.code, o.stderr)
	}
	if notes := strings.Join(mustReadResult(t, out).Instances[0].Notes, "\n"); !strings.Contains(notes, "hold 100 rows each (prepared), --table-size asks 1,000") {
		t.Errorf("the forced run's result does not record the mismatch: %s", notes)
	}

	o = run(t, ctx, "prepare", "oltp_read_write", "--target", url, "--tables", "2", "--table-size", "1000")
	if o.code != ExitOK || !strings.Contains(o.stderr, "hold 100 rows each, --table-size asks 1,000: dropping and loading again") {
		t.Fatalf("prepare with another --table-size: exit %d\n%s", o.code, o.stderr)
	}
	if o := run(t, ctx, "run", "oltp_read_write", "--target", url, "--tables", "2", "--table-size", "1000", "--time", "1s", "--out", "-"); o.code != ExitOK {
		t.Fatalf("run after prepare: exit %d\n%s", o.code, o.stderr)
	}
	// sweep compares too.
	o = run(t, ctx, "sweep", "oltp_read_write", "--target", url, "--tables", "2", "--threads", "1,2", "--time", "1s", "--out", "-")
	if o.code != ExitFailure || !strings.Contains(o.stderr, "hold 1,000 rows each (prepared), --table-size asks 10,000") {
		t.Fatalf("sweep with the default --table-size on 1,000 rows: exit %d\n%s", o.code, o.stderr)
	}
}

// TestRunRefusesFileOfAnotherSize: a run whose --size differs from the file
// prepare laid out is refused; without --size it runs on the file as it is.
func TestRunRefusesFileOfAnotherSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.dat")
	if o := run(t, ctx, "prepare", "fileio", "--file", file, "--size", "1m"); o.code != ExitOK {
		t.Fatalf("prepare: exit %d\n%s", o.code, o.stderr)
	}
	o := run(t, ctx, "run", "fileio", "--file", file, "--size", "2m", "--buffered", "--time", "1s", "--out", "-")
	const want = "holds 1MiB (laid out by prepare), --size asks 2MiB: prepare again or pass --force"
	if o.code != ExitFailure || !strings.Contains(o.stderr, want) {
		t.Fatalf("run --size 2m on 1 MiB: exit %d, want %d and %q\n%s", o.code, ExitFailure, want, o.stderr)
	}
	if o := run(t, ctx, "run", "fileio", "--file", file, "--buffered", "--time", "1s", "--out", "-"); o.code != ExitOK {
		t.Fatalf("run without --size: exit %d\n%s", o.code, o.stderr)
	}
	o = run(t, ctx, "prepare", "fileio", "--file", file, "--size", "2m")
	if o.code != ExitOK || !strings.Contains(o.stderr, "holds 1MiB (laid out by prepare), --size asks 2MiB: laying it out again") {
		t.Fatalf("prepare --size 2m on 1 MiB: exit %d\n%s", o.code, o.stderr)
	}
	if st, err := os.Stat(file); err != nil || st.Size() != 2<<20 {
		t.Fatalf("after prepare --size 2m: %v, %v", st, err)
	}
}
