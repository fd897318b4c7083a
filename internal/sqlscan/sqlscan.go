// Package sqlscan skips SQL's literals and comments, the lexing that every
// reader of SQL text here shares (the PostgreSQL dialect's placeholder
// rewriting, workload files' and pgbench scripts' parameters), so that a
// ':name' or a '?' inside a string or a comment is left alone. It is pure:
// functions of a string.
package sqlscan

import "strings"

// Quoted returns the index just past the literal opened by q[i] (quote:
// ' or " or `), and whether it was closed before the end of q. A doubled
// quote is an escaped quote, and so is \quote when backslash is set
// (MySQL's strings, PostgreSQL's E'...').
func Quoted(q string, i int, quote byte, backslash bool) (end int, closed bool) {
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
			return j + 1, true
		}
	}
	return len(q), false
}

// BlockComment returns the index just past the comment opened at q[i:]
// ("/*"), and whether it was closed. nested: a "/*" inside opens another
// level that needs its own "*/" (PostgreSQL's and SQLite's rule is
// PostgreSQL's only; MySQL's comments do not nest).
func BlockComment(q string, i int, nested bool) (end int, closed bool) {
	depth := 0
	for j := i; j+1 < len(q); {
		switch {
		case q[j] == '/' && q[j+1] == '*':
			if nested || depth == 0 {
				depth++
			}
			j += 2
		case q[j] == '*' && q[j+1] == '/':
			depth--
			j += 2
			if depth == 0 {
				return j, true
			}
		default:
			j++
		}
	}
	return len(q), false
}

// DollarQuoted reports whether q[i:] (q[i] == '$') opens a PostgreSQL
// dollar-quoted string ($$ or $tag$, the tag a letter or _ then letters,
// digits and _) and, if so, returns the index just past its closing tag
// (the end of q when it is not closed).
func DollarQuoted(q string, i int) (end int, ok bool) {
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
	e := strings.Index(q[j+1:], tag)
	if e < 0 {
		return len(q), true
	}
	return j + 1 + e + len(tag), true
}
