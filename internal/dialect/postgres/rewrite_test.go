package postgres

import (
	"strconv"
	"strings"
	"testing"
)

func TestRewrite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT c FROM t WHERE id = ?", "SELECT c FROM t WHERE id = $1"},
		{"UPDATE t SET a=?,b=? WHERE id BETWEEN ? AND ?", "UPDATE t SET a=$1,b=$2 WHERE id BETWEEN $3 AND $4"},
		{"SELECT '?', ? FROM t", "SELECT '?', $1 FROM t"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{`SELECT "we?rd""?", ?`, `SELECT "we?rd""?", $1`},
		{`SELECT E'\'?', ?`, `SELECT E'\'?', $1`},
		{`SELECT e'\\', ?`, `SELECT e'\\', $1`},
		{`SELECT 'a\', ?`, `SELECT 'a\', $1`}, // standard strings: backslash is literal
		{"SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"},
		{"SELECT /* ? /* ? */ ? */ ?", "SELECT /* ? /* ? */ ? */ $1"},
		{"SELECT $$?$$, $tag$ $$ ? $tag$, ?", "SELECT $$?$$, $tag$ $$ ? $tag$, $1"},
		{"SELECT a$b, ?", "SELECT a$b, $1"},
		{"SELECT ?::int, ?::text", "SELECT $1::int, $2::text"},
		{"SELECT 'unterminated ?", "SELECT 'unterminated ?"},
		{"SELECT /* unterminated ?", "SELECT /* unterminated ?"},
		{"SELECT $x$ unterminated ?", "SELECT $x$ unterminated ?"},
		{"SELECT ?-- ?", "SELECT $1-- ?"},
		{"?", "$1"},
		{"", ""},
	} {
		if got := Rewrite(tc.in); got != tc.want {
			t.Errorf("Rewrite(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzRewrite(f *testing.F) {
	for _, s := range []string{"SELECT ? FROM t WHERE a = '?' AND b = ?", `E'\'?'`, "$a$?$a$?", "/*/*?*/?*/?", "--?\n?", `"?"?`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		out := Rewrite(q)
		if !strings.Contains(q, "?") {
			if out != q {
				t.Fatalf("Rewrite(%q) = %q changed a query without '?'", q, out)
			}
			return
		}
		// Placeholders are numbered 1..n in order, and each replaces one '?'.
		n, rest := 0, out
		for {
			i := strings.Index(rest, "$"+strconv.Itoa(n+1))
			if i < 0 {
				break
			}
			n++
			rest = rest[i+1:]
		}
		if got := strings.Count(out, "?"); got < strings.Count(q, "?")-n {
			t.Fatalf("Rewrite(%q) = %q lost a '?'", q, out)
		}
		if len(out) < len(q) {
			t.Fatalf("Rewrite(%q) = %q is shorter", q, out)
		}
	})
}

func BenchmarkRewrite(b *testing.B) {
	q := "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c"
	for b.Loop() {
		Rewrite(q)
	}
}
