package sqltext

import (
	"fmt"
	"strings"
	"testing"
)

// show is toks as kind:text, one a token.
func show(toks []Token) string {
	names := [...]string{Word: "w", Ident: "id", String: "s", Number: "n", Param: "p", Qmark: "q", DollarN: "d", Punct: "."}
	var b []string
	for _, t := range toks {
		b = append(b, fmt.Sprintf("%s:%s", names[t.Kind], t.Text))
	}
	return strings.Join(b, " ")
}

func TestLexFlavors(t *testing.T) {
	for _, c := range []struct {
		name, sql string
		fl        Flavor
		want      string
	}{
		{"words and params", "SELECT a FROM t WHERE id = :id AND k = ?", Postgres, "w:SELECT w:a w:FROM w:t w:WHERE w:id .:= p:id w:AND w:k .:= q:?"},
		{"cast and operators", "a::int<=1.5e3 <> b != c >= 0x1F", Postgres, "w:a .::: w:int .:<= n:1.5e3 .:<> w:b .:!= w:c .:>= n:0x1F"},
		{"dollar quotes and $N", "SELECT $$a'b$$, $t$x$t$, $1, a$b", Postgres, "w:SELECT s:a'b .:, s:x .:, d:$1 .:, w:a$b"},
		{"E strings", `SELECT E'it\'s', 'a\', x`, Postgres, `w:SELECT w:E s:it\'s .:, s:a\ .:, w:x`}, // E stays a word
		{"nested comments", "a /* b /* c */ d */ e -- f\ng", Postgres, "w:a w:e w:g"},
		{"flat comments", "a /* b /* c */ d", MySQL, "w:a w:d"},
		{"MySQL strings and #", "SELECT \"x\\\"y\", `c`, 'it\\'s' # rest", MySQL, `w:SELECT s:x\"y .:, id:c .:, s:it\'s`},
		{"MySQL has no $N", "SELECT $1", MySQL, "w:SELECT .:$ n:1"},
		{"PostgreSQL has no backquotes", "SELECT `c`", Postgres, "w:SELECT .:` w:c .:`"},
		{"SQLite", "SELECT \"c\", `d`, $1", SQLite, "w:SELECT id:c .:, id:d .:, .:$ n:1"},
		{"depth", "f(a, (b))", Postgres, "w:f .:( w:a .:, .:( w:b .:) .:)"},
	} {
		toks, open := Lex(c.sql, c.fl)
		if open != "" {
			t.Errorf("%s: %q left %s open", c.name, c.sql, open)
		}
		if got := show(toks); got != c.want {
			t.Errorf("%s: Lex(%q) =\n%s\nwant\n%s", c.name, c.sql, got, c.want)
		}
		for _, tk := range toks {
			if tk.Kind == Word && c.sql[tk.Start:tk.End] != tk.Text {
				t.Errorf("%s: word %q at %d-%d", c.name, tk.Text, tk.Start, tk.End)
			}
		}
	}
	toks, _ := Lex("f(a, (b))", Postgres)
	var depths []int
	for _, tk := range toks {
		depths = append(depths, tk.Depth)
	}
	if fmt.Sprint(depths) != "[0 0 1 1 1 2 1 0]" {
		t.Errorf("depths %v: a ( and its ) stand outside", depths)
	}
}

func TestLexOpen(t *testing.T) {
	for _, c := range []struct {
		sql  string
		fl   Flavor
		open string
		n    int // tokens before it
	}{
		{"SELECT 'abc", Postgres, "a string literal", 1},
		{`SELECT "abc`, Postgres, "a quoted identifier", 1},
		{`SELECT "abc`, MySQL, "a string literal", 1},
		{"SELECT `abc", MySQL, "a quoted identifier", 1},
		{"SELECT $x$ abc", Postgres, "a dollar-quoted string", 1},
		{"SELECT 1 /* abc", Postgres, "a /* comment", 2},
		{"SELECT 1 /* a /* b */", Postgres, "a /* comment", 2},
		{"SELECT 1 -- abc", Postgres, "", 2},
	} {
		toks, open := Lex(c.sql, c.fl)
		if open != c.open || len(toks) != c.n {
			t.Errorf("Lex(%q) = %d tokens, open %q; want %d, %q", c.sql, len(toks), open, c.n, c.open)
		}
	}
}

func TestDollars(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT c FROM t WHERE id = ? AND k IN (?, ?)", "SELECT c FROM t WHERE id = $1 AND k IN ($2, $3)"},
		{"SELECT '?', \"?\", $$?$$, E'\\'?' /* ? */, ? -- ?", "SELECT '?', \"?\", $$?$$, E'\\'?' /* ? */, $1 -- ?"},
		{"SELECT ?, 'open ?", "SELECT $1, 'open ?"},
		{"SELECT `?`", "SELECT `$1`"},
	} {
		if got := Dollars(c.in); got != c.want {
			t.Errorf("Dollars(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRender(t *testing.T) {
	sql := "SELECT ':k' FROM t WHERE a = :k OR b = :j OR c = :k"
	toks, _ := Lex(sql, Postgres)
	refs := Refs(toks)
	if len(refs) != 3 || refs[0].Name != "k" || sql[refs[1].Start:refs[1].End] != ":j" {
		t.Fatalf("refs %+v", refs)
	}
	q, args := Render(sql, refs, Question)
	if q != "SELECT ':k' FROM t WHERE a = ? OR b = ? OR c = ?" || fmt.Sprint(args) != "[0 1 2]" {
		t.Errorf("Question: %q %v", q, args)
	}
	q, args = Render(sql, refs, Dollar)
	if q != "SELECT ':k' FROM t WHERE a = $1 OR b = $2 OR c = $1" || fmt.Sprint(args) != "[0 1]" {
		t.Errorf("Dollar: %q %v", q, args)
	}
}
