package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A --history (or $RIGHTSIZE_HISTORY) SQLite file in a folder that does not
// exist is refused (exit 2) before anything runs, naming the folder, and
// no folder is made: as sqlite3, k6's --out and sysbench's files do, a
// typo is not a new tree. The default catalog's folder is created.
func TestHistoryFolderIsNotMadeSilently(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "new", "dir")
	dsn := "sqlite:" + filepath.Join(missing, "x.db")
	for _, args := range [][]string{
		{"run", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite"), "--time", "300ms", "--out", "-", "--history", dsn},
		{"history", "list", "--history", dsn},
		{"report", "somekey", "--history", dsn},
	} {
		o := run(t, context.Background(), args...)
		want := "the folder " + missing + " of the history catalog does not exist"
		if o.code != ExitUsage || !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "mkdir -p") {
			t.Errorf("%s %s: exit %d, want %d and %q\n%s", args[0], args[1], o.code, ExitUsage, want, o.stderr)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("%s %s made %s: %v", args[0], args[1], missing, err)
		}
	}
	// The default location, from XDG_DATA_HOME, is made.
	data := filepath.Join(dir, "data")
	o := runHistory(t, map[string]string{"XDG_DATA_HOME": data}, "list")
	if o.code != ExitOK {
		t.Errorf("history list in the default catalog: exit %d\n%s", o.code, o.stderr)
	}
	if _, err := os.Stat(filepath.Join(data, "rightsize", "history.db")); err != nil {
		t.Errorf("the default catalog was not made: %v", err)
	}
}
