package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv"
)

// serverStudy numbers databases from one --target: a sweep over 1 and 2
// instances, then a run on 3.
const serverStudy = `study: onserver
options: {tables: 2, table-size: 100, time: 1s, report-interval: 500ms, prepare: auto}
steps:
  - name: scale
    sweep: oltp_point_select
    axis: instances
    values: [1, 2]
  - name: three
    run: oltp_point_select
    options: {instances: 3}
report: {format: md, path: r.md}
`

// TestStudyPrintsCleanup: a study whose steps prepared databases on a
// server ends with the cleanup command that removes them (the largest
// instance count, the workload's options, the password redacted), and that
// command, pasted, drops every database the study created. A study on the
// embedded default prints none.
func TestStudyPrintsCleanup(t *testing.T) {
	ctx := context.Background()
	base := testenv.PostgresURL(t)
	u := mustURL(t, base)
	name := uniqueName("rs_cleanup_")
	u.Path = "/" + name
	u.User = nil
	withPW := strings.Replace(u.String(), "postgres://", "postgres://postgres:Cleanup-pw-9@", 1)
	numbered := func() int {
		var n int
		queryOn(t, base, "SELECT count(*) FROM pg_database WHERE datname LIKE '"+name+"_%'", &n)
		return n
	}
	t.Cleanup(func() {
		if numbered() > 0 {
			run(t, ctx, "cleanup", "oltp_point_select", "--target", withPW, "--instances", "3", "--tables", "2")
		}
	})
	dir := t.TempDir()
	o := studyIn(t, writeStudy(t, dir, serverStudy), filepath.Join(dir, "h.db"), filepath.Join(dir, "out"), "--target", withPW)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	if n := numbered(); n != 3 {
		t.Fatalf("the study created %d numbered databases, want 3", n)
	}
	if strings.Contains(o.stdout, "Cleanup-pw-9") {
		t.Errorf("the password is printed:\n%s", o.stdout)
	}
	var cmds []string
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.HasPrefix(l, "$ rightsize cleanup ") {
			cmds = append(cmds, strings.TrimPrefix(l, "$ rightsize "))
		}
	}
	if len(cmds) != 1 {
		t.Fatalf("want one cleanup command, got %d:\n%s", len(cmds), o.stdout)
	}
	args := shellWords(t, "sh", cmds[0])
	for _, want := range []string{"--instances=3", "--tables=2"} {
		if !strings.Contains(cmds[0], want) {
			t.Errorf("cleanup command lacks %s: %s", want, cmds[0])
		}
	}
	c := run(t, ctx, args...)
	if c.code != ExitOK {
		t.Fatalf("%s: exit %d\n%s\n%s", cmds[0], c.code, c.stdout, c.stderr)
	}
	if n := numbered(); n != 0 {
		t.Errorf("after %s, %d numbered databases are left:\n%s", cmds[0], n, c.stdout)
	}

	// The embedded default leaves nothing on a server: no cleanup printed.
	dir = t.TempDir()
	o = studyIn(t, writeStudy(t, dir, fmt.Sprintf(noopStudy, "lite", 1)), filepath.Join(dir, "h.db"), filepath.Join(dir, "out"))
	if o.code != ExitOK || strings.Contains(o.stdout, "cleanup") {
		t.Errorf("noop study: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
