package sqltext

import "strings"

// The literals and comments the lexer skips, for readers that copy SQL
// text through (pgbench scripts).

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
	j, ok := dollarTag(q, i)
	if !ok {
		return 0, false
	}
	e := strings.Index(q[j:], q[i:j])
	if e < 0 {
		return len(q), true
	}
	return j + e + j - i, true
}
