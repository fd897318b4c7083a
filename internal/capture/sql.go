package capture

import (
	"strings"
)

// This file reads a normalized statement far enough to rewrite its
// placeholders as named parameters and to tell what each is compared
// with. It is a scanner with a few patterns, not a parser.

type kind uint8

const (
	kWord   kind = iota // a keyword or an unquoted identifier
	kIdent              // a quoted identifier; text without its quotes
	kString             // a string literal (its text is never kept)
	kNumber             // a numeric literal (its text is never kept)
	kParam              // a placeholder: $n or ?
	kPunct              // any other character (or ::, <=, >=, <>, !=)
)

type tok struct {
	kind       kind
	text       string // upper case for words; the identifier for kIdent
	raw        string // as written (words and identifiers)
	start, end int
	depth      int
}

// lex splits sql into tokens, comments dropped. mysql selects MySQL's
// rules (backquoted identifiers, "..." strings, # comments). It returns
// nil for a statement with a literal, identifier or comment left open (a
// digest cut at its maximum length): not one capture can rewrite.
func lex(sql string, mysql bool) []tok {
	var out []tok
	depth := 0
	i := 0
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"), mysql && c == '#':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return out // a comment to the end
			}
			i += j + 1
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return nil
			}
			i += j + 4
			continue
		}
		t := tok{start: i, depth: depth}
		switch {
		case c == '\'' || mysql && c == '"':
			t.kind, t.end = kString, endQuoted(sql, i, c, mysql)
			if t.end < 0 {
				return nil
			}
		case c == '"' || mysql && c == '`':
			t.kind, t.end = kIdent, endQuoted(sql, i, c, false)
			if t.end < 0 {
				return nil
			}
			t.raw = sql[i:t.end]
			t.text = strings.ToLower(strings.Trim(t.raw, "\"`"))
		case c == '$' && i+1 < len(sql) && isDigit(sql[i+1]):
			j := i + 1
			for j < len(sql) && isDigit(sql[j]) {
				j++
			}
			t.kind, t.end = kParam, j
		case c == '?':
			t.kind, t.end = kParam, i+1
		case isDigit(c) || c == '.' && i+1 < len(sql) && isDigit(sql[i+1]):
			j := i
			for j < len(sql) && (isDigit(sql[j]) || sql[j] == '.' || sql[j] == 'e' || sql[j] == 'E') {
				j++
			}
			t.kind, t.end = kNumber, j
		case isIdentStart(c):
			j := i
			for j < len(sql) && isIdent(sql[j]) {
				j++
			}
			t.kind, t.end = kWord, j
			t.raw = sql[i:j]
			t.text = strings.ToUpper(t.raw)
		default:
			t.kind, t.end = kPunct, i+1
			if i+1 < len(sql) {
				switch sql[i : i+2] {
				case "::", "<=", ">=", "<>", "!=":
					t.end = i + 2
				}
			}
			t.text = sql[i:t.end]
			if c == '(' {
				depth++
			} else if c == ')' && depth > 0 {
				depth--
				t.depth = depth
			}
		}
		if t.end <= i {
			t.end = len(sql)
		}
		out = append(out, t)
		i = t.end
	}
	return out
}

// endQuoted returns the end of the quoted token starting at i (-1: it is
// not closed); a doubled quote (and with backslash, an escaped one) stays
// inside.
func endQuoted(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
func isIdent(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '$' }

// name is a table or column name token: a word that is not a keyword, or
// a quoted identifier.
func (t tok) name() (string, bool) {
	switch t.kind {
	case kIdent:
		return t.text, true
	case kWord:
		if !keywords[t.text] {
			return strings.ToLower(t.raw), true
		}
	}
	return "", false
}

var keywords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`SELECT FROM WHERE AND OR NOT IN IS NULL LIKE ILIKE BETWEEN JOIN INNER LEFT RIGHT FULL OUTER CROSS ON USING
		AS GROUP BY ORDER HAVING LIMIT OFFSET UNION ALL DISTINCT INSERT INTO VALUES UPDATE SET DELETE RETURNING FOR SHARE
		WITH CASE WHEN THEN ELSE END EXISTS ASC DESC NULLS FIRST LAST ANY SOME TRUE FALSE CAST INTERVAL LATERAL NATURAL
		REPLACE IGNORE DUPLICATE KEY CONFLICT DO NOTHING LOCK NOWAIT SKIP LOCKED OF FETCH NEXT ROWS ROW ONLY WINDOW OVER`) {
		keywords[w] = true
	}
}

// Statement classes.
const (
	classRead    = "read"
	classWrite   = "write"
	classUtility = "utility" // transaction control, SET, SHOW, ...: never captured
)

// classOf is the class of a statement by its first word.
func classOf(toks []tok) string {
	for _, t := range toks {
		if t.kind == kPunct && t.text == "(" {
			continue
		}
		switch t.text {
		case "WITH":
			for k, u := range toks {
				switch u.text {
				case "INSERT", "DELETE", "MERGE":
					return classWrite
				case "UPDATE":
					if k == 0 || toks[k-1].text != "FOR" && toks[k-1].text != "KEY" && toks[k-1].text != "DO" {
						return classWrite
					}
				}
			}
			return classRead
		case "SELECT", "VALUES", "TABLE":
			return classRead
		case "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE":
			return classWrite
		}
		return classUtility
	}
	return classUtility
}

// systemSchemas are where the servers keep their catalogs and
// statistics: a statement that reads them is a tool's (capture's own
// included), not the application's.
var systemSchemas = []string{"pg_catalog", "information_schema", "performance_schema", "mysql", "sys"}

// isSystem reports whether the statement reads a catalog or the server's
// statistics, or is capture's own (its marker survives PostgreSQL's
// normalization).
func isSystem(text string, toks []tok) bool {
	if strings.Contains(text, Marker) {
		return true
	}
	for i, t := range toks {
		n, ok := t.name()
		if !ok {
			continue
		}
		for _, s := range systemSchemas {
			if n == s && i+1 < len(toks) && toks[i+1].text == "." {
				return true
			}
		}
		if strings.HasPrefix(n, "pg_stat") || strings.HasPrefix(n, "pg_catalog") {
			return true
		}
	}
	for _, t := range toks {
		if t.kind == kPunct && t.text == "@" { // SELECT @@version and the like
			return true
		}
	}
	return false
}

// Marker is in every statement capture runs on the server, so that
// PostgreSQL's statistics, which keep comments, tell its queries apart.
const Marker = "rightsize capture"

// tableRef is a table a statement names, with its alias.
type tableRef struct{ name, alias string }

// tables finds the tables after FROM, JOIN, UPDATE, INTO and DELETE FROM,
// with their aliases (schema-qualified names keep their schema).
func tables(toks []tok) []tableRef {
	var out []tableRef
	for i := 0; i < len(toks); i++ {
		switch toks[i].text {
		case "FROM", "JOIN", "UPDATE", "INTO":
		default:
			continue
		}
		for j := i + 1; j < len(toks); {
			n, ok := toks[j].name()
			if !ok {
				break
			}
			k := j + 1
			if k+1 < len(toks) && toks[k].text == "." {
				if n2, ok := toks[k+1].name(); ok {
					n, k = n+"."+n2, k+2
				}
			}
			ref := tableRef{name: n}
			if k < len(toks) && toks[k].text == "AS" {
				k++
			}
			if k < len(toks) {
				if a, ok := toks[k].name(); ok {
					ref.alias = a
					k++
				}
			}
			out = append(out, ref)
			if toks[i].text != "FROM" || k >= len(toks) || toks[k].text != "," {
				break
			}
			j = k + 1 // FROM a, b
		}
	}
	return out
}
