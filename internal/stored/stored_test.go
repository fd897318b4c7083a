package stored

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

// writeRun writes a result file of id and label in dir and returns its path.
func writeRun(t *testing.T, dir, name, id, label string) string {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := &result.Run{SchemaVersion: result.SchemaVersion, ID: id, Workload: "noop", Label: label}
	if err := result.Encode(f, r); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// writeJSON writes v as JSON in dir and returns its path.
func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadFileTellsFilesApart: a result, a sweep (with its steps' results,
// found beside it), a plan and other JSON, each told apart by its fields.
func TestReadFileTellsFilesApart(t *testing.T) {
	dir := t.TempDir()
	run := writeRun(t, dir, "r.json", "R", "")
	step := writeRun(t, dir, "s-threads1.json", "S", "threads 1")
	sweep := writeJSON(t, dir, "s-sweep.json", map[string]any{"schema_version": result.SchemaVersion, "id": "S", "workload": "noop", "axis": "threads",
		"steps": []map[string]any{{"label": "threads 1", "x": 1, "result": "/elsewhere/" + filepath.Base(step)}}})
	plan := writeJSON(t, dir, "plan.json", map[string]any{"host": map[string]any{}, "ht_gain_pct": 20})
	other := writeJSON(t, dir, "other.json", map[string]any{"what": 1})
	empty := writeJSON(t, dir, "e-sweep.json", map[string]any{"schema_version": result.SchemaVersion, "axis": "threads", "steps": []any{}})

	for path, want := range map[string]string{run: "result", sweep: "sweep file", plan: "plan"} {
		f, err := ReadFile(path)
		if err != nil || f.What() != want {
			t.Errorf("%s: %s, %v; want a %s", path, f.What(), err, want)
		}
	}
	if _, err := ReadFile(other); err == nil || !strings.Contains(err.Error(), "neither a result, a sweep nor a plan") {
		t.Errorf("other JSON: %v", err)
	}
	if _, err := ReadFile(empty); !errors.Is(err, ErrNoSteps) {
		t.Errorf("a sweep of no steps: %v, want ErrNoSteps", err)
	}

	d := &Door{Verb: "report"}
	s, err := d.LoadAll(context.Background(), []string{sweep, run, plan})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sweeps) != 1 || len(s.Sweeps[0].Runs) != 1 || s.Sweeps[0].Runs[0].Label != "threads 1" || len(s.Results) != 1 || len(s.Runs) != 2 || s.Plan == nil {
		t.Errorf("loaded %+v", s)
	}
	if want := []string{sweep, step, run, plan}; strings.Join(s.Files, " ") != strings.Join(want, " ") {
		t.Errorf("files %v, want %v", s.Files, want)
	}
}

// TestDoorRefuses: the same measurement twice, a sweep where runs are
// compared, and a name with no catalog to look it up in are the command
// line's errors (ErrUsage), in the words the CLI prints.
func TestDoorRefuses(t *testing.T) {
	dir := t.TempDir()
	run := writeRun(t, dir, "r.json", "R", "")
	cp := writeRun(t, dir, "copy.json", "R", "")
	sweep := writeJSON(t, dir, "s-sweep.json", map[string]any{"schema_version": result.SchemaVersion, "id": "S", "workload": "noop", "axis": "threads",
		"steps": []map[string]any{{"label": "threads 1", "x": 1}}})
	ctx := context.Background()
	for _, tc := range []struct {
		door *Door
		args []string
		want string
	}{
		{&Door{Verb: "report"}, []string{run, cp}, "report: " + run + " and " + cp + " are the same run (id R): it would count twice"},
		{&Door{Verb: "history compare", Takes: Runs}, []string{sweep}, "history compare: " + sweep + " is a sweep file; compare runs"},
		{&Door{Verb: "report"}, []string{"nokey"}, `report: "nokey" is not a file, and there is no history catalog to look it up in`},
		{&Door{Verb: "history", NoCatalog: "history: no catalog"}, []string{"nokey"}, "history: no catalog"},
	} {
		_, err := tc.door.LoadAll(ctx, tc.args)
		if !errors.Is(err, ErrUsage) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v; want ErrUsage and %q", tc.args, err, tc.want)
		}
	}
	if _, err := (&Door{Verb: "report"}).Load(ctx, filepath.Join(dir, "missing.json")); err == nil || errors.Is(err, ErrUsage) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing .json is a missing file, not a key: %v", err)
	}
}
