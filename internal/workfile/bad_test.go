package workfile

import (
	"errors"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.txt")

// TestBadFile parses a file with many problems: all are reported at once,
// in line order, each on a line its comment marks ("# problem"), and the
// whole text matches testdata/bad.golden.txt (go test -update rewrites it).
func TestBadFile(t *testing.T) {
	b, err := os.ReadFile("testdata/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("testdata/bad.yaml", b)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Parse: %v, want an *Error wrapping ErrInvalid", err)
	}
	marked := map[int]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "# problem") {
			marked[i+1] = true
		}
	}
	found := map[int]bool{}
	for i, p := range e.Problems {
		if !marked[p.Line] {
			t.Errorf("problem at unmarked line %d: %s", p.Line, p.Msg)
		}
		if i > 0 && p.Line < e.Problems[i-1].Line {
			t.Errorf("problem at line %d after line %d: not in line order", p.Line, e.Problems[i-1].Line)
		}
		found[p.Line] = true
	}
	for line := range marked {
		if !found[line] {
			t.Errorf("line %d is marked as a problem but none was reported", line)
		}
	}
	if len(e.Problems) < 25 {
		t.Errorf("%d problems, want every one of the file's (at least 25)", len(e.Problems))
	}
	golden(t, "testdata/bad.golden.txt", err.Error()+"\n")
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
	}
}

// TestProblemLinesAreFileLines: every problem of the bad file begins with
// the file's name and a line.
func TestProblemLinesAreFileLines(t *testing.T) {
	b, err := os.ReadFile("testdata/bad.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("bad.yaml", b)
	re := regexp.MustCompile(`^bad\.yaml:[0-9]+: `)
	for _, line := range strings.Split(err.Error(), "\n") {
		if !re.MatchString(line) {
			t.Errorf("%q does not begin with bad.yaml:<line>: ", line)
		}
	}
}
