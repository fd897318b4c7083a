package study

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseStudy: any input parses or is refused as ErrInvalid, with one
// line per problem; a study that parses expands at both scales, writes its
// report inside its directory under a name none of its steps' files has,
// names no file to write in its options, and holds nothing that would
// reach a terminal raw.
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
	for _, path := range []string{"../x.html", "/etc/x", "a/../../b", `..\x`, ".", "a.json", "a-sweep.md", "r\x1b.html"} {
		f.Add([]byte(oneStep + "report: {path: \"" + path + "\"}\n"))
	}
	f.Add([]byte(oneStep + "options: {cpuprofile: /tmp/p}\n"))
	f.Add([]byte(oneStep + "---\n" + oneStep))
	f.Add([]byte("study: x\ntitle: \"\\e[31m\"\nsteps:\n  - {name: a, run: noop}\n"))
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
		checkSafe(t, s)
		for _, sc := range Scales {
			cmds, err := s.Expand(sc)
			if err != nil || len(cmds) != len(s.Stages) {
				t.Fatalf("%s: %v", sc, err)
			}
			for _, c := range cmds {
				for _, a := range c.Args {
					if !strings.HasPrefix(a, "--") || strings.ContainsFunc(a, unicode.IsControl) {
						t.Fatalf("arg %q", a)
					}
				}
			}
		}
	})
}

// checkSafe fails t when a parsed study could write outside its directory
// or over its own files, or print a control character.
func checkSafe(t *testing.T, s *Study) {
	t.Helper()
	rp := s.Report.Path
	if !filepath.IsLocal(rp) || filepath.Base(rp) != rp || strings.ContainsAny(rp, `/\`) || rp == "." || strings.HasSuffix(strings.ToLower(rp), ".json") {
		t.Fatalf("report path %q", rp)
	}
	texts := []string{s.Name, s.Title, s.Follows, rp, s.Report.Format}
	if s.Sizing != nil {
		texts = append(texts, s.Sizing.Stage, s.Sizing.TargetRate)
	}
	for _, st := range s.Stages {
		if !nameRE.MatchString(st.Name) || strings.HasPrefix(rp, st.Name+".") || strings.HasPrefix(rp, st.Name+"-") {
			t.Fatalf("step %q, report %q", st.Name, rp)
		}
		texts = append(texts, st.Name, st.Workload, st.Config, st.Axis)
		for _, o := range st.Options {
			if reserved[o.Name] != "" {
				t.Fatalf("option %s accepted", o.Name)
			}
			for _, sc := range Scales {
				texts = append(texts, o.Value.At(sc)...)
			}
		}
	}
	for _, x := range texts {
		if strings.ContainsFunc(x, unicode.IsControl) {
			t.Fatalf("control character accepted: %q", x)
		}
	}
}

// FuzzCheckID: an id CheckID accepts is one path element under results/
// (results/<id>-<study>), with no character a shell or a terminal acts on.
func FuzzCheckID(f *testing.F) {
	for _, id := range []string{"s1", "20261202T023510Z-7ddd61", "../../x", "a b", "$(id)", ".", "-x", "\x1b[31m"} {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if CheckID(id) != nil {
			return
		}
		dir := filepath.Join("results", id+"-study")
		if filepath.Dir(dir) != "results" || !filepath.IsLocal(id) || len(id) > 64 || strings.HasPrefix(id, "-") {
			t.Fatalf("id %q makes %s", id, dir)
		}
		if strings.ContainsFunc(id, func(r rune) bool {
			return !(r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_'))
		}) {
			t.Fatalf("id %q holds a character that is not plain", id)
		}
	})
}
