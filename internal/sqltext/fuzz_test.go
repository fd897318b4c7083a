package sqltext

import (
	"strings"
	"testing"
)

// FuzzLex: for any text and flavor, the tokens stand in order inside the
// text, never overlap and only spaces and comments lie between them; a
// word is its text, a depth never negative; Classify and Columns read any
// token list; and Dollars only replaces '?' by $n.
func FuzzLex(f *testing.F) {
	for _, s := range []string{
		"SELECT a, :b FROM t WHERE c = ? AND d = $1 -- x\n",
		"INSERT INTO s.t (a) VALUES ('it''s', E'\\'', $$x$$) RETURNING id",
		"WITH d AS (DELETE FROM t) SELECT `x`, \"y\" FROM d /* /* */ */ # z",
		"DELETE t1, t2 FROM t1 JOIN t2",
		"$a$ open", "'open", "/* open",
	} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, sql string, which uint8) {
		fl := []Flavor{Postgres, MySQL, SQLite}[int(which)%3]
		toks, open := Lex(sql, fl)
		last := 0
		for _, tk := range toks {
			if tk.Start < last || tk.End <= tk.Start || tk.End > len(sql) || tk.Depth < 0 {
				t.Fatalf("%q: token %+v after %d", sql, tk, last)
			}
			if tk.Kind == Word && sql[tk.Start:tk.End] != tk.Text {
				t.Fatalf("%q: word %+v", sql, tk)
			}
			gap := strings.TrimSpace(sql[last:tk.Start])
			if gap != "" && !strings.HasPrefix(gap, "--") && !strings.HasPrefix(gap, "/*") && !strings.HasPrefix(gap, "#") {
				t.Fatalf("%q: %q between tokens", sql, gap)
			}
			last = tk.End
		}
		if open == "" && strings.TrimSpace(sql[last:]) != "" {
			rest := strings.TrimSpace(sql[last:])
			if !strings.HasPrefix(rest, "--") && !strings.HasPrefix(rest, "/*") && !strings.HasPrefix(rest, "#") {
				t.Fatalf("%q: %q left after the last token", sql, rest)
			}
		}
		Classify(toks)
		Columns(toks)
		SelectInto(toks)
		out := Dollars(sql)
		if strings.Count(out, "?") > strings.Count(sql, "?") || len(out) < len(sql) {
			t.Fatalf("Dollars(%q) = %q", sql, out)
		}
	})
}
