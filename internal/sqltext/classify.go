package sqltext

import "strings"

// Class is what a statement does, by its first word.
type Class uint8

const (
	// Unknown: a first word this package does not know (VACUUM), or no
	// word at all: it may do anything.
	Unknown Class = iota
	// Read: a query (SELECT, WITH without a data-modifying clause,
	// VALUES, TABLE).
	Read
	// Write: INSERT, UPDATE, DELETE, MERGE, REPLACE, or a WITH with one
	// of them.
	Write
	// Utility: a statement that writes nothing itself (SET, SHOW,
	// EXPLAIN, LOCK, SAVEPOINT, RELEASE, DESCRIBE, ROLLBACK TO); a write
	// inside it (EXPLAIN ANALYZE DELETE) is still in Writes.
	Utility
	// DDL: CREATE, DROP, ALTER, TRUNCATE, GRANT, REVOKE, RENAME.
	DDL
	// Control: transaction control (BEGIN, START, COMMIT, END, ROLLBACK).
	Control
	// Opaque: code this package cannot read (CALL, DO, EXEC, EXECUTE).
	Opaque
)

// Statement is what Classify read of a statement.
type Statement struct {
	Class Class
	// First is the first word in upper case, after any opening
	// parentheses ("" when the statement does not start with a word).
	First string
	// Writes are the tables INSERT, UPDATE, DELETE, MERGE and REPLACE
	// name, wherever they stand (a WITH's data-modifying clause, an
	// EXPLAIN ANALYZE), in order: schema.name or name, unquoted names
	// lower-cased. Nil for DDL and Control.
	Writes []string
	// Unread counts the writes whose table cannot be read (INSERT INTO
	// (SELECT ...)): such a statement may write any table.
	Unread int
}

var (
	ddlWords     = set("CREATE DROP ALTER TRUNCATE GRANT REVOKE RENAME")
	controlWords = set("BEGIN START COMMIT END ROLLBACK")
	readWords    = set("SELECT WITH VALUES TABLE")
	utilityWords = set("SHOW EXPLAIN SET LOCK SAVEPOINT RELEASE DESCRIBE")
	writeWords   = set("INSERT UPDATE DELETE MERGE REPLACE")
	opaqueWords  = set("CALL DO EXEC EXECUTE")
	// modifiers are the words that may stand between a write's keyword
	// and INTO.
	modifiers = set("LOW_PRIORITY DELAYED HIGH_PRIORITY IGNORE OR ROLLBACK ABORT FAIL")
	// listEnd are the words that end a select list at the top level.
	listEnd = set("FROM INTO WHERE GROUP HAVING ORDER LIMIT OFFSET FETCH UNION INTERSECT EXCEPT WINDOW FOR")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// Classify reads what the statement of toks (from Lex) is and which
// tables it writes.
func Classify(toks []Token) Statement {
	k := 0
	for k < len(toks) && toks[k].Kind == Punct && toks[k].Text == "(" {
		k++ // (SELECT ...) UNION (SELECT ...)
	}
	var s Statement
	if k < len(toks) {
		s.First = toks[k].Upper()
	}
	first := s.First
	switch {
	case first == "":
		s.Class = Unknown
	case ddlWords[first]:
		s.Class = DDL
		return s
	case first == "ROLLBACK" && k+1 < len(toks) && toks[k+1].Upper() == "TO":
		s.Class = Utility // to a savepoint
	case controlWords[first]:
		s.Class = Control
		return s
	case opaqueWords[first]:
		s.Class = Opaque
	case readWords[first]:
		s.Class = Read
	case writeWords[first]:
		s.Class = Write
	case utilityWords[first]:
		s.Class = Utility
	}
	s.findWrites(toks)
	if first == "WITH" && (len(s.Writes) > 0 || s.Unread > 0) {
		s.Class = Write
	}
	return s
}

// findWrites collects the tables INSERT, UPDATE, DELETE, MERGE and
// REPLACE name, wherever they appear.
func (s *Statement) findWrites(toks []Token) {
	for i := range toks {
		w := toks[i].Upper()
		if !writeWords[w] {
			continue
		}
		prev := ""
		if i > 0 {
			prev = toks[i-1].Upper()
		}
		next := i + 1
		switch w {
		case "INSERT":
			if next < len(toks) && toks[next].Text == "(" || prev == "THEN" {
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
			if next < len(toks) && toks[next].Upper() != "FROM" {
				s.multiDelete(toks, next)
				continue
			}
			next = skipWords(toks, next, "FROM", "ONLY")
		case "MERGE":
			next = skipWords(toks, next, "INTO")
		}
		s.target(toks, next)
	}
}

// skipWords returns the index of the first token at or after i that is
// none of words.
func skipWords(toks []Token, i int, words ...string) int {
	for i < len(toks) {
		u := toks[i].Upper()
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

// target records the table named at toks[i].
func (s *Statement) target(toks []Token, i int) {
	name, ok := TableName(toks, i)
	if !ok {
		s.Unread++
		return
	}
	s.Writes = append(s.Writes, name)
}

// multiDelete records MySQL's DELETE t1, t2 FROM ... targets.
func (s *Statement) multiDelete(toks []Token, i int) {
	for i < len(toks) {
		s.target(toks, i)
		for i < len(toks) && toks[i].Text != "," && toks[i].Upper() != "FROM" {
			i++
		}
		if i >= len(toks) || toks[i].Text != "," {
			return
		}
		i++
	}
}

// TableName reads a table name at toks[i]: a word or quoted identifier,
// optionally qualified (schema.name). Unquoted words are lower-cased.
func TableName(toks []Token, i int) (string, bool) {
	part := func(i int) (string, bool) {
		if i >= len(toks) {
			return "", false
		}
		switch toks[i].Kind {
		case Word:
			return strings.ToLower(toks[i].Text), true
		case Ident:
			return toks[i].Text, toks[i].Text != ""
		}
		return "", false
	}
	name, ok := part(i)
	if !ok {
		return "", false
	}
	if i+2 < len(toks) && toks[i+1].Text == "." {
		if rest, ok := part(i + 2); ok {
			return name + "." + rest, true
		}
	}
	return name, true
}

// DDLWord returns the first DDL keyword among the words of text (a DO
// block's body, a string passed to a procedure), or "".
func DDLWord(text string) string {
	for w := range strings.FieldsFuncSeq(text, func(r rune) bool { return r < 0x80 && !IdentChar(byte(r)) }) {
		if u := strings.ToUpper(w); ddlWords[u] {
			return u
		}
	}
	return ""
}

// Columns counts the columns the statement of toks returns: a query's
// top-level select list (the first, after any WITH), a write's RETURNING
// list (0 without one); -1 when it cannot tell (a * in the list, a
// statement it does not read).
func Columns(toks []Token) int {
	if len(toks) == 0 {
		return -1
	}
	first := toks[0].Upper()
	want := "SELECT"
	switch {
	case writeWords[first]:
		want = "RETURNING"
	case first != "SELECT" && first != "WITH":
		return -1
	}
	start := -1
	for i, t := range toks {
		if t.Depth == 0 && t.Upper() == want {
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
	for _, t := range toks[start:] {
		if t.Depth != 0 {
			item = false
			continue
		}
		w := t.Upper()
		switch {
		case listEnd[w], t.Kind == Punct && t.Text == ";":
			return n
		case item && (w == "DISTINCT" || w == "ALL"):
			continue
		case t.Kind == Punct && t.Text == ",":
			n, item = n+1, true
			continue
		case t.Kind == Punct && t.Text == "*" && item:
			return -1
		case t.Kind == Punct && t.Text == ".":
			item = true // t.* is a column list too
			continue
		}
		item = false
	}
	return n
}

// SelectInto returns the index of the token after a query's top-level
// INTO that names a table or a file (PostgreSQL's SELECT ... INTO table,
// MySQL's INTO OUTFILE or DUMPFILE), or -1 when there is none: a write's
// INTO (INSERT [IGNORE] INTO, MERGE INTO, REPLACE INTO) and INTO a
// variable (@v, :name) are not.
func SelectInto(toks []Token) int {
	for i, t := range toks {
		if t.Upper() != "INTO" || t.Depth != 0 {
			continue
		}
		j := i - 1
		for j >= 0 && modifiers[toks[j].Upper()] {
			j--
		}
		if j >= 0 && writeWords[toks[j].Upper()] {
			continue
		}
		if i+1 >= len(toks) || toks[i+1].Text == "@" || toks[i+1].Kind == Param {
			continue
		}
		return i + 1
	}
	return -1
}

// Own begins every statement rightsize runs on a target for itself, not
// for the workload (loading a sample's values, reading a sequence's start,
// counting rows): PostgreSQL's statement statistics keep comments, so that
// a capture of a server rightsize ran on leaves them out.
const Own = "/* rightsize */ "
