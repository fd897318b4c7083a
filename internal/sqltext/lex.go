package sqltext

import "strings"

// Kind is what a token is.
type Kind uint8

const (
	Word    Kind = iota // an unquoted word: a keyword or an identifier
	Ident               // a quoted identifier ("x", `x`); Text without quotes
	String              // a string literal ('x', E'x', $$x$$, MySQL's "x"); Text is its body
	Number              // a number (digits, then letters, digits, _ and .: 12.5, 1e5, 0x1F)
	Param               // a :name reference; Text is the name
	Qmark               // a bare ?
	DollarN             // PostgreSQL's $1
	Punct               // any other character, or ::, <=, >=, <>, !=; Text is it
)

// Token is one token of a statement.
type Token struct {
	Kind       Kind
	Text       string // see Kind; sql[Start:End] is the token as written
	Start, End int    // byte range in the SQL
	Depth      int    // parentheses around it (a ( and its ) stand outside)
}

// Upper is a word's text in upper case, "" for any other token.
func (t Token) Upper() string {
	if t.Kind != Word {
		return ""
	}
	return strings.ToUpper(t.Text)
}

// Flavor is what the lexer accepts of a dialect's lexical rules. In every
// flavor, '...' is a string literal (a quote doubled inside it), "..." a quoted
// identifier unless DquoteString, -- a comment to the end of the line,
// /* */ a comment, and E'...' (after no identifier character) has
// backslash escapes.
type Flavor struct {
	Backslash    bool // backslash escapes in every '...' (and "..." string)
	Hash         bool // # starts a comment to the end of the line
	DquoteString bool // "..." is a string, not an identifier
	Backquote    bool // `...` is a quoted identifier
	Dollar       bool // $tag$...$tag$ strings and $1 placeholders
	Nested       bool // /* */ comments nest
}

// The flavors of the databases rightsize reads SQL for.
var (
	Postgres = Flavor{Dollar: true, Nested: true}
	MySQL    = Flavor{Backslash: true, Hash: true, DquoteString: true, Backquote: true}
	SQLite   = Flavor{Backquote: true}
)

// IdentStart reports whether c may start an unquoted word.
func IdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// IdentChar reports whether c may stand in an unquoted word after its
// first character.
func IdentChar(c byte) bool { return IdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func digit(c byte) bool { return c >= '0' && c <= '9' }

// Scanner reads a statement's tokens one at a time (spaces and comments
// skipped). The zero value reads nothing; use NewScanner.
type Scanner struct {
	sql   string
	fl    Flavor
	pos   int
	depth int
	open  string
}

// NewScanner returns a Scanner of sql read by fl's rules.
func NewScanner(sql string, fl Flavor) Scanner { return Scanner{sql: sql, fl: fl} }

// Next returns the next token, or false at the end of the text or at a
// literal or comment left open (Open says which).
func (s *Scanner) Next() (Token, bool) {
	sql := s.sql
	for s.pos < len(sql) && s.open == "" {
		i := s.pos
		j, open := s.skipSpace(i)
		if open != "" {
			s.open = open
			break
		}
		if j > i {
			s.pos = j
			continue
		}
		t, open := s.quoted(i)
		if open != "" {
			s.open = open
			break
		}
		if t.End == 0 {
			t = s.lexeme(i)
		}
		if t.Kind == Punct && t.Text == ")" && s.depth > 0 {
			s.depth--
		}
		t.Depth = s.depth
		if t.Kind == Punct && t.Text == "(" {
			s.depth++
		}
		s.pos = t.End
		return t, true
	}
	return Token{}, false
}

// Open is what Next stopped at: "a string literal", "a quoted
// identifier", "a dollar-quoted string" or "a /* comment" left open, or
// "" when the text ended cleanly (or Next has not reached its end).
func (s *Scanner) Open() string { return s.open }

// Lex splits sql into tokens (comments and spaces dropped). A literal or
// comment left open stops it, and is named in open (see Scanner.Open).
func Lex(sql string, fl Flavor) (toks []Token, open string) {
	s := NewScanner(sql, fl)
	for {
		t, ok := s.Next()
		if !ok {
			return toks, s.Open()
		}
		toks = append(toks, t)
	}
}

// skipSpace returns the index past the space or comment at sql[i] (i when
// there is none), or what is left open.
func (s *Scanner) skipSpace(i int) (int, string) {
	sql := s.sql
	switch c := sql[i]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		return i + 1, ""
	case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#' && s.fl.Hash:
		if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
			return i + j, ""
		}
		return len(sql), ""
	case c == '/' && strings.HasPrefix(sql[i:], "/*"):
		j, ok := BlockComment(sql, i, s.fl.Nested)
		if !ok {
			return i, "a /* comment"
		}
		return j, ""
	}
	return i, ""
}

// quoted returns the string literal or quoted identifier at sql[i] (a
// token with End 0 when there is none), or what is left open.
func (s *Scanner) quoted(i int) (Token, string) {
	sql, fl := s.sql, s.fl
	switch c := sql[i]; {
	case c == '\'' || c == '"' && fl.DquoteString:
		esc := fl.Backslash || i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i < 2 || !IdentChar(sql[i-2]))
		j, ok := Quoted(sql, i, c, esc)
		if !ok {
			return Token{}, "a string literal"
		}
		return Token{Kind: String, Text: sql[i+1 : j-1], Start: i, End: j}, ""
	case c == '"' || c == '`' && fl.Backquote:
		j, ok := Quoted(sql, i, c, false)
		if !ok {
			return Token{}, "a quoted identifier"
		}
		return Token{Kind: Ident, Text: sql[i+1 : j-1], Start: i, End: j}, ""
	case c == '$' && fl.Dollar && (i == 0 || !IdentChar(sql[i-1])):
		j, ok := dollarTag(sql, i)
		if !ok {
			return Token{}, ""
		}
		tag := sql[i:j]
		end := strings.Index(sql[j:], tag)
		if end < 0 {
			return Token{}, "a dollar-quoted string"
		}
		return Token{Kind: String, Text: sql[j : j+end], Start: i, End: j + end + len(tag)}, ""
	}
	return Token{}, ""
}

// lexeme returns the token at sql[i] that is neither space nor a quoted
// literal: a placeholder, a :name, a word, a number or a character.
func (s *Scanner) lexeme(i int) Token {
	sql := s.sql
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
	var t Token
	switch {
	case c == '$' && s.fl.Dollar && digit(next):
		t = Token{Kind: DollarN, End: run(i+1, digit)}
	case c == ':' && IdentStart(next):
		t = Token{Kind: Param, End: run(i+1, func(b byte) bool { return IdentChar(b) && b != '$' })}
		t.Start, t.Text = i, sql[i+1:t.End]
		return t
	case c == '?':
		t = Token{Kind: Qmark, End: i + 1}
	case IdentStart(c):
		t = Token{Kind: Word, End: run(i, IdentChar)}
	case digit(c) || c == '.' && digit(next):
		t = Token{Kind: Number, End: run(i, func(b byte) bool { return IdentChar(b) || b == '.' })}
	default:
		t = Token{Kind: Punct, End: i + 1}
		if i+1 < len(sql) {
			switch sql[i : i+2] {
			case "::", "<=", ">=", "<>", "!=":
				t.End = i + 2
			}
		}
	}
	t.Start, t.Text = i, sql[i:t.End]
	return t
}

// dollarTag reports whether q[i:] opens a dollar-quoted string ($$ or
// $tag$, the tag a letter or _ then letters, digits and _) and returns
// the index past its tag.
func dollarTag(q string, i int) (int, bool) {
	for j := i + 1; j < len(q); j++ {
		c := q[j]
		if c == '$' {
			return j + 1, true
		}
		if !(IdentStart(c) || j > i+1 && digit(c)) {
			return 0, false
		}
	}
	return 0, false
}
