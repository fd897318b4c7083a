package postgres

import (
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/sqlscan"
)

// Rewrite turns '?' placeholders into PostgreSQL's $1, $2, ... in order.
//
// A '?' inside a string literal ('...', E'...' with backslash escapes), a
// quoted identifier ("..."), a dollar-quoted string ($tag$...$tag$) or a
// comment (-- to end of line, nested /* */) is left alone. Every other '?' is a
// placeholder, so PostgreSQL's jsonb operators ?, ?| and ?& cannot be written
// in '?' SQL. Unterminated literals and comments are copied as they are (the
// server reports the syntax error). Rewrite never fails and is safe for
// concurrent use.
func Rewrite(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	n := 0
	for i := 0; i < len(q); {
		ch := q[i]
		switch {
		case ch == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			i++
			continue
		case ch == '\'':
			backslash := i > 0 && (q[i-1] == 'E' || q[i-1] == 'e') && (i < 2 || !identChar(q[i-2]))
			j, _ := sqlscan.Quoted(q, i, '\'', backslash)
			b.WriteString(q[i:j])
			i = j
			continue
		case ch == '"':
			j, _ := sqlscan.Quoted(q, i, '"', false)
			b.WriteString(q[i:j])
			i = j
			continue
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j
			continue
		case ch == '/' && i+1 < len(q) && q[i+1] == '*':
			j, _ := sqlscan.BlockComment(q, i, true)
			b.WriteString(q[i:j])
			i = j
			continue
		case ch == '$' && (i == 0 || !identChar(q[i-1])):
			if j, ok := sqlscan.DollarQuoted(q, i); ok {
				b.WriteString(q[i:j])
				i = j
				continue
			}
		}
		b.WriteByte(ch)
		i++
	}
	return b.String()
}

func identChar(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
