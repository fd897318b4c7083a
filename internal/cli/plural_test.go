package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/workload"
)

// badPlural is what a count must not read as: "1 threads", "1 steps", a
// "(s)" left for the reader to choose.
var badPlural = regexp.MustCompile(`\b1 [a-zA-Z]+s\b|\w\(s\)`)

// TestCountsReadAsWords: the console's header, a study's lines and
// cleanup's database lines say "1 thread", "1 instance", "1 step", "the
// database" for one, and the plural for several; never "(s)".
func TestCountsReadAsWords(t *testing.T) {
	ctx := context.Background()
	o := run(t, ctx, "run", "noop", "--threads", "1", "--time", "1s", "--report-interval", "500ms", "--out", "-", "--no-history")
	header := strings.SplitN(o.stdout, "\n", 2)[0]
	if o.code != ExitOK || !strings.Contains(header, " on 1 instance; closed loop, 1 thread per instance;") || badPlural.MatchString(header) {
		t.Errorf("run header: exit %d\n%s\n%s", o.code, header, o.stderr)
	}
	o = run(t, ctx, "run", "noop", "--threads", "2", "--time", "1s", "--report-interval", "500ms", "--out", "-", "--no-history")
	if header := strings.SplitN(o.stdout, "\n", 2)[0]; !strings.Contains(header, " on 1 instance; closed loop, 2 threads per instance;") {
		t.Errorf("run header with 2 threads:\n%s", header)
	}

	dir := t.TempDir()
	file, h, out := writeStudy(t, dir, fmt.Sprintf(noopStudy, "one", 1)), filepath.Join(dir, "h.db"), filepath.Join(dir, "out")
	o = studyIn(t, file, h, out, "--study-id", "s1")
	if o.code != ExitOK || !strings.Contains(o.stdout, "): 1 step, id s1") {
		t.Errorf("study of one step: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = studyIn(t, file, h, out, "--study-id", "s1")
	if o.code != ExitOK || !strings.Contains(o.stdout, "skipped 1 of 1 step, already") {
		t.Errorf("study resumed: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}

	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"db_1"}, "dropped the database prepare created: db_1\n"},
		{[]string{"db_1", "db_2"}, "dropped the databases prepare created: db_1, db_2\n"},
	} {
		var b bytes.Buffer
		var ts []workload.Target
		for _, n := range c.names {
			ts = append(ts, createdTarget(n))
		}
		if err := app.DropCreatedDatabases(ctx, &Env{Stdout: &b}, ts); err != nil || b.String() != c.want {
			t.Errorf("DropCreatedDatabases(%v) = %v, printed %q, want %q", c.names, err, b.String(), c.want)
		}
	}
}

// createdTarget is a target whose database prepare created and cleanup
// drops.
type createdTarget string

func (c createdTarget) String() string                                  { return string(c) }
func (c createdTarget) Open(context.Context) (workload.Instance, error) { return nil, nil }
func (c createdTarget) Hooks() workload.TargetHooks {
	return workload.TargetHooks{DropCreatedDatabase: c.DropCreatedDatabase}
}
func (c createdTarget) DropCreatedDatabase(context.Context) (bool, string, error) {
	return true, "", nil
}
