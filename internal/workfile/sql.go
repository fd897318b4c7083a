package workfile

import (
	"strings"

	"github.com/rightsize/rightsize/internal/sqlscan"
)

// This file reads a statement's SQL far enough to find its :name
// references and what it writes. It is a scanner, not a parser: it knows
// literals, quoted identifiers, comments and words, and the few shapes of
// INSERT, UPDATE, DELETE, MERGE and REPLACE that name their table. Its
// limits are documented in docs/workload-files.md.

type tokKind uint8

const (
	tWord    tokKind = iota // an unquoted word: a keyword or an identifier
	tIdent                  // a quoted identifier ("x", `x`); text without quotes
	tString                 // a string literal ('x', E'x', $$x$$, MySQL's "x"); text is its body
	tNumber                 // a number
	tParam                  // a :name reference; text is the name
	tQmark                  // a bare ?
	tDollarN                // PostgreSQL's $1
	tPunct                  // any other character; text is it
)

type token struct {
	kind       tokKind
	text       string
	start, end int // byte range in the SQL
	depth      int // parentheses around it
}

// flavor is what the scanner accepts of a dialect's lexical rules.
type flavor struct {
	backslash bool // backslash escapes in '...' (and "...")
	hash      bool // # starts a comment
	dquoteStr bool // "..." is a string, not an identifier
	dollar    bool // $tag$...$tag$ strings and $1 placeholders
	nested    bool // /* */ comments nest
}

func flavorOf(dialect string) flavor {
	switch dialect {
	case MySQL:
		return flavor{backslash: true, hash: true, dquoteStr: true}
	case SQLite:
		return flavor{}
	}
	// PostgreSQL's rules also stand for the default form: its dollar
	// quotes are the only lexical form the others lack that portable SQL
	// could hold.
	return flavor{dollar: true, nested: true}
}

func identStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' || c == '$' }

// scan splits sql into tokens (comments and spaces dropped). A literal or
// comment left open is reported in unterminated ("a string literal").
func scan(sql string, fl flavor) (toks []token, unterminated string) {
	depth := 0
	for i := 0; i < len(sql); {
		j, open := skipSpace(sql, i, fl)
		if open != "" {
			return toks, open
		}
		if j > i {
			i = j
			continue
		}
		t, open := quoted(sql, i, fl)
		if open != "" {
			return toks, open
		}
		if t.end == 0 {
			t = lexeme(sql, i, fl)
		}
		if t.kind == tPunct && t.text == ")" && depth > 0 {
			depth--
		}
		t.depth = depth
		if t.kind == tPunct && t.text == "(" {
			depth++
		}
		toks = append(toks, t)
		i = t.end
	}
	return toks, ""
}

// skipSpace returns the index past the space or comment at sql[i] (i when
// there is none), or what is left open.
func skipSpace(sql string, i int, fl flavor) (int, string) {
	switch c := sql[i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		return i + 1, ""
	case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#' && fl.hash:
		if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
			return i + j, ""
		}
		return len(sql), ""
	case c == '/' && strings.HasPrefix(sql[i:], "/*"):
		j, ok := sqlscan.BlockComment(sql, i, fl.nested)
		if !ok {
			return i, "a /* comment"
		}
		return j, ""
	}
	return i, ""
}

// quoted returns the string literal or quoted identifier at sql[i] (a
// token with end 0 when there is none), or what is left open.
func quoted(sql string, i int, fl flavor) (token, string) {
	switch c := sql[i]; {
	case c == '\'' || c == '"' && fl.dquoteStr:
		esc := fl.backslash || i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i < 2 || !identChar(sql[i-2]))
		j, ok := sqlscan.Quoted(sql, i, c, esc)
		if !ok {
			return token{}, "a string literal"
		}
		return token{kind: tString, text: sql[i+1 : j-1], start: i, end: j}, ""
	case c == '"' || c == '`':
		j, ok := sqlscan.Quoted(sql, i, c, false)
		if !ok {
			return token{}, "a quoted identifier"
		}
		return token{kind: tIdent, text: sql[i+1 : j-1], start: i, end: j}, ""
	case c == '$' && fl.dollar:
		j, ok := dollarTag(sql, i)
		if !ok {
			return token{}, ""
		}
		tag := sql[i:j]
		end := strings.Index(sql[j:], tag)
		if end < 0 {
			return token{}, "a dollar-quoted string"
		}
		return token{kind: tString, text: sql[j : j+end], start: i, end: j + end + len(tag)}, ""
	}
	return token{}, ""
}

// lexeme returns the token at sql[i] that is neither space nor a quoted
// literal: a placeholder, a :name, a word, a number or a character.
func lexeme(sql string, i int, fl flavor) token {
	c := sql[i]
	next := byte(0)
	if i+1 < len(sql) {
		next = sql[i+1]
	}
	run := func(j int, in func(byte) bool) int {
		for j < len(sql) && in(sql[j]) {
			j++
		}
		return j
	}
	digit := func(b byte) bool { return b >= '0' && b <= '9' }
	var t token
	switch {
	case c == '$' && fl.dollar && digit(next):
		t = token{kind: tDollarN, end: run(i+1, digit)}
	case c == ':' && next == ':':
		t = token{kind: tPunct, end: i + 2}
	case c == ':' && identStart(next):
		t = token{kind: tParam, end: run(i+1, func(b byte) bool { return identChar(b) && b != '$' })}
		t.start, t.text = i, sql[i+1:t.end]
		return t
	case c == '?':
		t = token{kind: tQmark, end: i + 1}
	case identStart(c):
		t = token{kind: tWord, end: run(i, identChar)}
	case digit(c) || c == '.' && digit(next):
		t = token{kind: tNumber, end: run(i, func(b byte) bool { return identChar(b) || b == '.' })}
	default:
		t = token{kind: tPunct, end: i + 1}
	}
	t.start, t.text = i, sql[i:t.end]
	return t
}

// dollarTag reports whether q[i:] opens a dollar-quoted string ($$ or
// $tag$, not after an identifier) and returns the index past its tag.
func dollarTag(q string, i int) (int, bool) {
	if i > 0 && identChar(q[i-1]) {
		return 0, false
	}
	for j := i + 1; j < len(q); j++ {
		c := q[j]
		if c == '$' {
			return j + 1, true
		}
		if !(identStart(c) || j > i+1 && c >= '0' && c <= '9') {
			return 0, false
		}
	}
	return 0, false
}

// ddl are the first words of the statements a transaction may not run:
// tables are declared under tables:, and existing ones are never changed.
var ddl = map[string]bool{"CREATE": true, "DROP": true, "ALTER": true, "TRUNCATE": true, "GRANT": true, "REVOKE": true, "RENAME": true}

// control are the first words of transaction control, which is the
// runner's (autocommit: on the transaction).
var control = map[string]bool{"BEGIN": true, "START": true, "COMMIT": true, "END": true, "ROLLBACK": true}

// reads are the first words of statements that write nothing themselves
// (a write inside them, as in WITH ... DELETE or EXPLAIN ANALYZE UPDATE,
// is still found).
var reads = map[string]bool{"SELECT": true, "WITH": true, "VALUES": true, "TABLE": true, "SHOW": true, "EXPLAIN": true, "SET": true, "LOCK": true, "SAVEPOINT": true, "RELEASE": true, "DESCRIBE": true}

var writeWords = map[string]bool{"INSERT": true, "UPDATE": true, "DELETE": true, "MERGE": true, "REPLACE": true}

// opaqueWords run code rightsize cannot read (a procedure, a block, a
// prepared statement).
var opaqueWords = map[string]bool{"CALL": true, "DO": true, "EXEC": true, "EXECUTE": true}

// modifiers are the words that may stand between a write's keyword and
// INTO.
var modifiers = map[string]bool{"LOW_PRIORITY": true, "DELAYED": true, "HIGH_PRIORITY": true, "IGNORE": true, "OR": true, "ROLLBACK": true, "ABORT": true, "FAIL": true}

// analysis is what scanning one form found.
type analysis struct {
	toks   []token
	refs   []token // the tParam tokens
	writes []string
	opaque bool
	end    int      // where the statement ends (before a final ';')
	errs   []string // problems
	warns  []string
}

// analyze scans sql as dialect's SQL.
func analyze(sql, dialect string) analysis {
	var a analysis
	a.end = len(sql)
	toks, open := scan(sql, flavorOf(dialect))
	if open != "" {
		a.errs = append(a.errs, open+" is not closed")
		return a
	}
	for i, t := range toks {
		switch t.kind {
		case tParam:
			a.refs = append(a.refs, t)
		case tQmark:
			a.errs = append(a.errs, "a bare ? is a placeholder to the database drivers: write parameters as :name")
		case tDollarN:
			a.errs = append(a.errs, t.text+" is a placeholder: write parameters as :name (rightsize numbers them)")
		case tPunct:
			if t.text != ";" {
				continue
			}
			if i == len(toks)-1 {
				a.end = t.start
			} else {
				a.errs = append(a.errs, "more than one statement (a ; before the end): give each its own entry")
			}
		}
	}
	a.toks = toks
	if len(toks) == 0 || toks[0].kind == tPunct && toks[0].text == ";" {
		a.errs = append(a.errs, "no SQL")
		return a
	}
	a.classify()
	return a
}

func upper(t token) string {
	if t.kind != tWord {
		return ""
	}
	return strings.ToUpper(t.text)
}

// classify finds what the statement writes and what it may not do.
func (a *analysis) classify() {
	first := upper(a.toks[0])
	switch {
	case first == "":
		a.errs = append(a.errs, "does not start with a keyword")
		return
	case ddl[first]:
		a.errs = append(a.errs, first+" is DDL, which a transaction may not run: declare tables under tables: (existing ones are never changed)")
		return
	case control[first] && !(first == "ROLLBACK" && len(a.toks) > 1 && upper(a.toks[1]) == "TO"):
		a.errs = append(a.errs, first+" is transaction control, which is rightsize's: set autocommit: on the transaction instead")
		return
	case opaqueWords[first]:
		a.opaque = true
		a.inspectOpaque(first)
	case !reads[first] && !writeWords[first] && first != "ROLLBACK": // ROLLBACK TO a savepoint
		a.opaque = true
		a.warns = append(a.warns, first+" statements are not recognized: the statement is counted as writing every table")
	}
	a.findWrites()
	if first == "SELECT" || first == "WITH" {
		a.checkSelectInto()
	}
}

// inspectOpaque looks inside a DO block's body and a CALL's (or
// EXECUTE's) string arguments for DDL words: rightsize cannot see what a
// procedure runs, but text that says DROP is refused.
func (a *analysis) inspectOpaque(first string) {
	for _, t := range a.toks[1:] {
		if t.kind != tString {
			continue
		}
		if w := ddlWord(t.text); w != "" {
			what := "a string passed to " + first
			if first == "DO" {
				what = "the DO block"
			}
			a.errs = append(a.errs, what+" contains "+w+": DDL is refused in transactions (rightsize reads the text of a DO block and of a CALL's arguments, not what a procedure runs)")
			return
		}
	}
}

// ddlWord returns the first DDL keyword among the words of text, or "".
func ddlWord(text string) string {
	for w := range strings.FieldsFuncSeq(text, func(r rune) bool { return r < 0x80 && !identChar(byte(r)) }) {
		if u := strings.ToUpper(w); ddl[u] {
			return u
		}
	}
	return ""
}

// findWrites collects the tables INSERT, UPDATE, DELETE, MERGE and
// REPLACE name, wherever they appear (a WITH's data-modifying clause, an
// EXPLAIN ANALYZE). A write whose table it cannot read makes the
// statement opaque.
func (a *analysis) findWrites() {
	toks := a.toks
	for i := range toks {
		w := upper(toks[i])
		if !writeWords[w] {
			continue
		}
		prev := ""
		if i > 0 {
			prev = upper(toks[i-1])
		}
		next := i + 1
		switch w {
		case "INSERT":
			if next < len(toks) && toks[next].text == "(" || prev == "THEN" {
				continue // MySQL's INSERT() function; MERGE's WHEN ... THEN INSERT
			}
			next = skipWords(toks, next, "LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE", "OR", "REPLACE", "ROLLBACK", "ABORT", "FAIL", "INTO")
		case "REPLACE":
			if i != 0 {
				continue // the REPLACE() function, or INSERT OR REPLACE
			}
			next = skipWords(toks, next, "LOW_PRIORITY", "DELAYED", "INTO")
		case "UPDATE":
			switch prev {
			case "FOR", "KEY", "DO", "THEN", "ON":
				continue // FOR [NO KEY] UPDATE, ON DUPLICATE KEY UPDATE, DO UPDATE, MERGE's THEN UPDATE
			}
			next = skipWords(toks, next, "ONLY", "LOW_PRIORITY", "IGNORE", "OR", "ROLLBACK", "ABORT", "REPLACE", "FAIL")
		case "DELETE":
			if prev == "THEN" || prev == "ON" {
				continue
			}
			next = skipWords(toks, next, "LOW_PRIORITY", "QUICK", "IGNORE")
			if next < len(toks) && upper(toks[next]) != "FROM" {
				a.multiDelete(next)
				continue
			}
			next = skipWords(toks, next, "FROM", "ONLY")
		case "MERGE":
			next = skipWords(toks, next, "INTO")
		}
		a.target(next)
	}
}

// skipWords returns the index of the first token at or after i that is
// none of words.
func skipWords(toks []token, i int, words ...string) int {
	for i < len(toks) {
		u := upper(toks[i])
		found := false
		for _, w := range words {
			found = found || u == w
		}
		if !found {
			return i
		}
		i++
	}
	return i
}

// target records the table named at toks[i] (name or schema.name).
func (a *analysis) target(i int) {
	name, ok := tableName(a.toks, i)
	if !ok {
		a.opaque = true
		a.warns = append(a.warns, "a write whose table rightsize cannot read: the statement is counted as writing every table")
		return
	}
	a.writes = append(a.writes, name)
}

// multiDelete records MySQL's DELETE t1, t2 FROM ... targets.
func (a *analysis) multiDelete(i int) {
	for i < len(a.toks) {
		a.target(i)
		for i < len(a.toks) && a.toks[i].text != "," && upper(a.toks[i]) != "FROM" {
			i++
		}
		if i >= len(a.toks) || a.toks[i].text != "," {
			return
		}
		i++
	}
}

// tableName reads a table name at toks[i]: a word or quoted identifier,
// optionally qualified. Unquoted words are lower-cased.
func tableName(toks []token, i int) (string, bool) {
	part := func(i int) (string, bool) {
		if i >= len(toks) {
			return "", false
		}
		switch toks[i].kind {
		case tWord:
			return strings.ToLower(toks[i].text), true
		case tIdent:
			return toks[i].text, toks[i].text != ""
		}
		return "", false
	}
	name, ok := part(i)
	if !ok {
		return "", false
	}
	if i+2 < len(toks) && toks[i+1].text == "." {
		if rest, ok := part(i + 2); ok {
			return name + "." + rest, true
		}
	}
	return name, true
}

// listEnd are the words that end a select list at the top level.
var listEnd = map[string]bool{"FROM": true, "INTO": true, "WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true, "OFFSET": true, "FETCH": true, "UNION": true, "INTERSECT": true, "EXCEPT": true, "WINDOW": true, "FOR": true}

// columns counts the columns the statement returns: a query's top-level
// select list (the first, after any WITH), a write's RETURNING list (none
// without one); -1 when it cannot tell (a * in the list, a statement it
// does not read).
func (a *analysis) columns() int {
	if len(a.toks) == 0 {
		return -1
	}
	first := upper(a.toks[0])
	want := "SELECT"
	switch {
	case writeWords[first]:
		want = "RETURNING"
	case first != "SELECT" && first != "WITH":
		return -1
	}
	start := -1
	for i, t := range a.toks {
		if t.depth == 0 && upper(t) == want {
			start = i + 1
			break
		}
	}
	switch {
	case start < 0 && want == "RETURNING":
		return 0
	case start < 0:
		return -1
	}
	n, item := 1, true // item: the next token starts a column
	for _, t := range a.toks[start:] {
		if t.depth != 0 {
			item = false
			continue
		}
		w := upper(t)
		switch {
		case listEnd[w], t.kind == tPunct && t.text == ";":
			return n
		case item && (w == "DISTINCT" || w == "ALL"):
			continue
		case t.kind == tPunct && t.text == ",":
			n, item = n+1, true
			continue
		case t.kind == tPunct && t.text == "*" && item:
			return -1
		case t.kind == tPunct && t.text == ".":
			item = true // t.* is a column list too
			continue
		}
		item = false
	}
	return n
}

// checkSelectInto refuses PostgreSQL's SELECT ... INTO table (it creates
// a table) and MySQL's INTO OUTFILE/DUMPFILE (a file on the server); INTO
// @variable is left alone.
func (a *analysis) checkSelectInto() {
	for i, t := range a.toks {
		if upper(t) != "INTO" || t.depth != 0 {
			continue
		}
		j := i - 1
		for j >= 0 && modifiers[upper(a.toks[j])] {
			j--
		}
		if j >= 0 && writeWords[upper(a.toks[j])] {
			continue // INSERT [IGNORE] INTO, MERGE INTO, REPLACE INTO
		}
		if i+1 >= len(a.toks) || a.toks[i+1].text == "@" || a.toks[i+1].kind == tParam {
			continue
		}
		switch upper(a.toks[i+1]) {
		case "OUTFILE", "DUMPFILE":
			a.errs = append(a.errs, "SELECT ... INTO "+upper(a.toks[i+1])+" writes a file on the database server")
		default:
			a.errs = append(a.errs, "SELECT ... INTO a table creates that table: keep a returned row with the statement's into: key instead")
		}
		return
	}
}
