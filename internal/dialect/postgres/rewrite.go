package postgres

import "github.com/rightsize/rightsize/internal/sqltext"

// Rewrite turns '?' placeholders into PostgreSQL's $1, $2, ... in order.
//
// A '?' inside a string literal ('...', E'...' with backslash escapes), a
// quoted identifier ("..."), a dollar-quoted string ($tag$...$tag$) or a
// comment (-- to end of line, nested /* */) is left alone. Every other '?' is a
// placeholder, so PostgreSQL's jsonb operators ?, ?| and ?& cannot be written
// in '?' SQL. Unterminated literals and comments are copied as they are (the
// server reports the syntax error). Rewrite never fails and is safe for
// concurrent use. It is sqltext.Dollars, the lexer every reader of SQL here
// shares.
func Rewrite(q string) string { return sqltext.Dollars(q) }
