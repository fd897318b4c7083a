package capturedb

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/capture"
)

// csvLine is a csvlog line of PostgreSQL 15: a statement of database app,
// session s, virtual transaction vx, query_id 42.
func csvLine(s string, vx int, id int) string {
	return fmt.Sprintf(`2026-12-07 19:23:02.%03d UTC,"postgres","app",5118,"127.0.0.1:48372",%s,24,"SELECT",2026-12-07 19:23:02 UTC,3/%d,0,LOG,00000,"duration: 0.024 ms  execute P_1: SELECT bal FROM acct WHERE id = $1;","parameters: $1 = '%d'",,,,,,,,"pgbench","client backend",,42`+"\n", vx%1000, s, vx, id)
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// TestLogFollowsRotation: the csvlog file given rotates during the window
// (the logging collector's log_rotation_size): capture reads what the
// window added to it and the whole of the newer .csv files of its folder,
// not what was there before, and not a record the server was still
// writing at the end.
func TestLogFollowsRotation(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "postgresql-1.csv"), filepath.Join(dir, "postgresql-2.csv")
	appendTo(t, first, csvLine("s1", 1, 7)) // before the window
	appendTo(t, filepath.Join(dir, "postgresql-1.log"), "not a csv file\n")
	l, err := openLog(first, true)
	if err != nil {
		t.Fatal(err)
	}
	appendTo(t, first, csvLine("s1", 2, 8)+csvLine("s1", 3, 9))
	time.Sleep(10 * time.Millisecond) // the rotated file is newer
	appendTo(t, second, csvLine("s1", 4, 10)+csvLine("s2", 5, 11))
	appendTo(t, second, csvLine("s2", 6, 12)[:150]) // being written: cut inside its message
	d := capture.Delta{Window: time.Second, Stmts: []capture.Stmt{{ID: "42", Text: "SELECT bal FROM acct WHERE id = $1", Calls: 5}}}
	tr, err := l.read(d, "app", false, nil, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Execs != 4 || tr.Sessions != 2 {
		t.Errorf("read %d executions of %d sessions, want 4 of 2 (the window's, over both files)", tr.Execs, tr.Sessions)
	}
	if _, err := openLog(filepath.Join(dir, "missing.csv"), true); err == nil {
		t.Errorf("a missing log was accepted")
	}
	empty := t.TempDir()
	if _, err := openLog(empty, true); err == nil {
		t.Errorf("a folder without .csv files was accepted")
	}
}
