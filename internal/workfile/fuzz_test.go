package workfile

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

// FuzzParse: Parse never panics; it returns a Spec or an *Error wrapping
// ErrInvalid whose every line names the file; and what a Spec holds can be
// used: every statement renders for every dialect, every slot resolves,
// and every parameter and created table draws.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"testdata/example.yaml", "testdata/bad.yaml"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, c := range problemCases {
		f.Add([]byte(c.yaml))
	}
	for _, c := range warningCases {
		f.Add([]byte(c.yaml))
	}
	f.Add([]byte(stepsFile)) // set, sleep, if
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			if s != nil || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse returned %v and %v", s, err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") {
					t.Fatalf("problem %q does not name the file", line)
				}
			}
			return
		}
		use(t, s)
	})
}

// use renders, resolves and draws everything s holds.
func use(t *testing.T, s *Spec) {
	for _, tx := range s.Transactions {
		for si, st := range tx.Statements {
			for _, d := range s.Dialects {
				fm := st.Form(d)
				if fm == nil {
					t.Fatalf("%s.%s has no SQL for %s", tx.Name, st.Name, d)
				}
				q, args := fm.Render(Question)
				if len(args) != len(fm.Slots) || strings.Count(q, "?") < len(args) {
					t.Fatalf("%q: %d args for %d slots", q, len(args), len(fm.Slots))
				}
				fm.Render(Dollar)
				for _, a := range args {
					ok := a.Param >= 0 && a.Param < len(s.Params) ||
						a.Param == -1 && a.Stmt >= 0 && a.Stmt < si && a.Col < len(tx.Statements[a.Stmt].Into) ||
						a.Param == -1 && a.Stmt == -1 && s.Vars != nil && a.Var >= 0 && a.Var < len(s.Vars.Names())
					if !ok {
						t.Fatalf("%s.%s: slot %+v resolves to nothing", tx.Name, st.Name, a)
					}
				}
			}
		}
	}
	for _, tx := range s.Transactions {
		for i, a := range tx.Actions {
			bad := a.Kind == Run && (a.Stmt < 0 || a.Stmt >= len(tx.Statements)) ||
				(a.Kind == Branch || a.Kind == Jump) && (a.Jump <= i || a.Jump > len(tx.Actions)) ||
				(a.Kind == Set || a.Kind == Branch) && (a.Expr == nil || s.Vars == nil)
			if bad {
				t.Fatalf("%s: action %d %+v goes nowhere", tx.Name, i, a)
			}
		}
	}
	g := s.NewGen(datagen.NewSource(1), 1, 3)
	for range 3 {
		g.Begin(now)
		for i := range s.Params {
			g.Value(i)
		}
		if len(s.Transactions) > 0 {
			s.Pick(datagen.NewSource(2))
		}
	}
	for i := range s.Tables {
		if !s.Tables[i].Existing {
			r := s.Tables[i].NewRows(datagen.NewSource(3), now)
			r.Row(0)
			r.Row(s.Tables[i].Rows)
		}
	}
}
