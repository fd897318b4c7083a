package pgbenchscript

import (
	"errors"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

// FuzzParse: any text either parses into commands whose jumps stay inside
// the script and whose expressions evaluate without panicking, or is
// refused with errors that each name the file (and wrap ErrInvalid).
func FuzzParse(f *testing.F) {
	for _, b := range Builtins {
		f.Add(b.Script)
	}
	for _, s := range []string{
		"\\set x case when :scale > 1 then 1 else 2 end\n\\if :x = 1\nSELECT 1 \\gset\n\\elif 2\n\\sleep 1 ms\n\\else\nEND;\n\\endif\n",
		"\\set x 1 + \\\n  2\nSELECT :x::int, ':y', $$:z$$;\n",
		"\\set h hash(:scale) # permute(1, 10) << 2\n\\set d -9223372036854775808 / -1\n",
		"SELECT '\\n'; /* \\set */ \\aset p\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := NewProgram()
		s, err := p.Add("f", "f.sql", text, 1)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "f.sql") {
					t.Fatalf("error line %q does not name the file", line)
				}
			}
			return
		}
		st := p.NewState(datagen.NewSource(1))
		for _, name := range Predefined {
			slot, _ := p.Lookup(name)
			st.SetInt(slot, 3)
		}
		for _, c := range s.Cmds {
			switch c.Kind {
			case If, Jump:
				if c.Jump <= 0 || c.Jump > len(s.Cmds) {
					t.Fatalf("%s: jump to %d of %d commands", c.Text, c.Jump, len(s.Cmds))
				}
			case SQL:
				if len(c.Params) > MaxParams || strings.Count(c.SQL, "$") < len(c.Params) {
					t.Fatalf("%q: %d parameters", c.SQL, len(c.Params))
				}
			}
			if c.Expr != nil {
				_, _ = st.Eval(c.Expr)
			}
		}
	})
}
