package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 47 (13): a study resumed under an id skips only the steps that
// study recorded. Another study file run under the same id, with a step of
// the same name and options (another study's name, or the same name in a
// file of other content), runs that step: it is not "already in the
// history". The same file resumed still skips it.
func TestStudyResumeSkipsOnlyItsOwnSteps(t *testing.T) {
	dir := t.TempDir()
	const step = `
options:
  tables: 1
  table-size: 500
  time: 1s
  report-interval: 500ms
steps:
  - name: point
    run: oltp_point_select
    options: {threads: 2}
report:
  format: md
  path: s.md
  steps: [point]
`
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := write("first.yaml", "study: first\ntitle: the first"+step)
	other := write("other.yaml", "study: other\ntitle: another study"+step)
	namesake := write("namesake.yaml", "study: first\ntitle: another study of the first's name"+step)
	studyRun := func(file, out string) outcome {
		return run(t, context.Background(), "study", "run", file, "--target", "sqlite:"+filepath.Join(dir, "sb.db"), "--prepare", "always",
			"--history", "sqlite:"+filepath.Join(dir, "h.db"), "--study-id", "s1", "--dir", filepath.Join(dir, out))
	}
	if o := studyRun(first, "first"); o.code != ExitOK || strings.Contains(o.stdout, "skipped") {
		t.Fatalf("first: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, c := range []struct{ file, out string }{{other, "other"}, {namesake, "namesake"}} {
		o := studyRun(c.file, c.out)
		if o.code != ExitOK || strings.Contains(o.stdout, "skipped") || !strings.Contains(o.stdout, "$ rightsize run oltp_point_select") {
			t.Errorf("%s under the first's id: exit %d, want its step run, not skipped\n%s\n%s", c.file, o.code, o.stdout, o.stderr)
		}
	}
	if o := studyRun(first, "first"); o.code != ExitOK || !strings.Contains(o.stdout, "skipped 1 of 1 step, already in the history: point") {
		t.Errorf("the first resumed: exit %d, want its step skipped\n%s\n%s", o.code, o.stdout, o.stderr)
	}
}
