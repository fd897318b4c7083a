package study

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParseStudy: any input parses or is refused as ErrInvalid, with one
// line per problem; a study that parses expands at both scales.
func FuzzParseStudy(f *testing.F) {
	for _, name := range Builtins() {
		b, _ := Builtin(name)
		f.Add(b)
	}
	if b, err := os.ReadFile("testdata/bad.yaml"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("study: x\nsteps:\n  - {name: a, run: noop, options: {time: {small: 1s, full: 2s}}}\n"))
	f.Add([]byte("&a [*a]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, err := Parse(bytes.NewReader(in), "f.yaml")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error not ErrInvalid: %v", err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.yaml") {
					t.Fatalf("problem line %q does not name the file", line)
				}
			}
			return
		}
		for _, sc := range Scales {
			cmds, err := s.Expand(sc)
			if err != nil || len(cmds) != len(s.Steps) {
				t.Fatalf("%s: %v", sc, err)
			}
			for _, c := range cmds {
				for _, a := range c.Args {
					if !strings.HasPrefix(a, "--") || strings.ContainsAny(a, "\n\x00") {
						t.Fatalf("arg %q", a)
					}
				}
			}
		}
	})
}
