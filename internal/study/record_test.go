package study

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const recordStudy = `study: same
title: %s
steps:
  - name: a
    run: noop
    options: {threads: 1}
`

// A study's --dir and its steps' records are its own: of its name and its
// file (the same path, edited or not, or the same text elsewhere). Another
// file of the same name under the same id is another study: its record is
// not resumed, and the steps it recorded are not this one's.
func TestRecordIsTheStudyFilesOwn(t *testing.T) {
	dir := t.TempDir()
	parse := func(path, title string) *Study {
		t.Helper()
		s, err := Parse(strings.NewReader(strings.Replace(recordStudy, "%s", title, 1)), path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := parse(filepath.Join(dir, "first.yaml"), "1")
	rec, err := first.ClaimDir(Claim{Dir: dir, ID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(dir, "a.json")
	if err := os.WriteFile(result, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := []string{"--threads=1"}
	if err := rec.Done(dir, "a", spec, []string{result}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		s    *Study
		ours bool
	}{
		{"the same file", parse(first.File, "1"), true},
		{"the same file edited", parse(first.File, "edited"), true},
		{"a copy elsewhere", parse(filepath.Join(dir, "copy.yaml"), "1"), true},
		{"another file of the name", parse(filepath.Join(dir, "other.yaml"), "other"), false},
	} {
		ok, why := c.s.RanWith(result, "s1/a", "a", spec)
		if ok != c.ours || (!ok && !strings.Contains(why, "from another study (same, "+first.File+") under the same id")) {
			t.Errorf("%s: ran with %v (%s), want %v", c.name, ok, why, c.ours)
		}
		_, err := c.s.ClaimDir(Claim{Dir: dir, ID: "s1"})
		if (err == nil) != c.ours || (err != nil && !errors.Is(err, ErrDirTaken)) {
			t.Errorf("%s: claim %v, want it resumed: %v", c.name, err, c.ours)
		}
	}
}
