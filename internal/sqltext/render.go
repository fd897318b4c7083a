package sqltext

import (
	"strconv"
	"strings"
)

// Style is how placeholders are written for a database.
type Style uint8

const (
	// Question writes every reference as ? (MySQL, SQLite, and the
	// dialect Conns of rightsize, which rewrite ? for PostgreSQL).
	Question Style = iota
	// Dollar writes $1, $2, ... (PostgreSQL), one number per distinct name.
	Dollar
)

// Ref is a :name reference in a statement's text: its name and byte
// range.
type Ref struct {
	Name       string
	Start, End int
}

// Refs are the Param tokens of toks, in order.
func Refs(toks []Token) []Ref {
	var out []Ref
	for _, t := range toks {
		if t.Kind == Param {
			out = append(out, Ref{t.Text, t.Start, t.End})
		}
	}
	return out
}

// Render returns sql with each of refs (in order, not overlapping)
// replaced by a placeholder of style, and the index in refs of what to
// bind to each placeholder, in order. With Dollar, two references to one
// name share a number.
func Render(sql string, refs []Ref, style Style) (string, []int) {
	var b strings.Builder
	b.Grow(len(sql) + 2*len(refs))
	var args []int
	number := map[string]int{} // Dollar: a name's placeholder
	last := 0
	for i, r := range refs {
		b.WriteString(sql[last:r.Start])
		last = r.End
		if style == Question {
			b.WriteByte('?')
			args = append(args, i)
			continue
		}
		n, ok := number[r.Name]
		if !ok {
			args = append(args, i)
			n = len(args)
			number[r.Name] = n
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
	}
	b.WriteString(sql[last:])
	return b.String(), args
}

// Dollars turns the '?' placeholders of q, read as PostgreSQL's SQL, into
// $1, $2, ... in order. A '?' inside a string literal ('...', E'...'), a
// quoted identifier, a dollar-quoted string or a comment is left alone;
// every other '?' is a placeholder. A literal or comment left open is
// copied as it is (the server reports the syntax error).
func Dollars(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n, last := 0, 0
	s := NewScanner(q, Postgres)
	for {
		t, ok := s.Next()
		if !ok {
			break
		}
		if t.Kind != Qmark {
			continue
		}
		n++
		b.WriteString(q[last:t.Start])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(n))
		last = t.End
	}
	b.WriteString(q[last:])
	return b.String()
}
