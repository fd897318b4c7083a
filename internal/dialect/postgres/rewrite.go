package postgres

import (
	"strconv"
	"strings"
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
			j := skipQuoted(q, i, '\'', backslash)
			b.WriteString(q[i:j])
			i = j
			continue
		case ch == '"':
			j := skipQuoted(q, i, '"', false)
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
			j := skipBlockComment(q, i)
			b.WriteString(q[i:j])
			i = j
			continue
		case ch == '$' && (i == 0 || !identChar(q[i-1])):
			if j, ok := skipDollarQuoted(q, i); ok {
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

// skipQuoted returns the index just past the literal opened by q[i] == quote; a
// doubled quote is an escaped quote, and so is \quote when backslash is set.
func skipQuoted(q string, i int, quote byte, backslash bool) int {
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			if backslash {
				j++
			}
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// skipBlockComment returns the index just past the (nested) comment at q[i:].
func skipBlockComment(q string, i int) int {
	depth := 0
	for j := i; j+1 < len(q); {
		switch {
		case q[j] == '/' && q[j+1] == '*':
			depth++
			j += 2
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j
			}
		default:
			j++
		}
	}
	return len(q)
}

// skipDollarQuoted reports whether q[i:] opens a dollar-quoted string and, if
// so, returns the index just past its closing tag.
func skipDollarQuoted(q string, i int) (int, bool) {
	j := i + 1
	for j < len(q) && q[j] != '$' {
		c := q[j]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 || j > i+1 && c >= '0' && c <= '9') {
			return 0, false
		}
		j++
	}
	if j >= len(q) {
		return 0, false
	}
	tag := q[i : j+1]
	end := strings.Index(q[j+1:], tag)
	if end < 0 {
		return len(q), true
	}
	return j + 1 + end + len(tag), true
}
