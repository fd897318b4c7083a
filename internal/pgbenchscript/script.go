package pgbenchscript

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/sqltext"
)

// ErrInvalid is wrapped by every error a script's parse returns: a script
// pgbench would refuse.
var ErrInvalid = exitcode.New("invalid pgbench script", exitcode.Usage)

// Error is one problem of a script, at a line of its source.
type Error struct {
	Source string // the file's path, or the built-in script's name
	Line   int    // from 1; 0 for the whole script
	Msg    string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Source + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d: %s", e.Source, e.Line, e.Msg)
}

func (e *Error) Is(target error) bool { return target == ErrInvalid }

// ExitCode: the command line is wrong (exit 2).
func (e *Error) ExitCode() exitcode.Code { return exitcode.Usage }

// Kind is what a Command does.
type CmdKind uint8

const (
	// SQL sends a statement (Command.SQL) with its variables as parameters.
	SQL CmdKind = iota
	// Set evaluates Command.Expr into variable Command.Var.
	Set
	// Sleep pauses for Command.Sleep microseconds, or for variable
	// Command.Var's value times Command.Sleep when Var >= 0.
	Sleep
	// If goes on with the next command when Command.Expr is true, else
	// jumps to Command.Jump (an \elif, an \else or past the \endif).
	If
	// Jump jumps to Command.Jump (the end of a branch taken).
	Jump
)

// Result says what an SQL command does with its rows.
type Result uint8

const (
	Discard Result = iota // rows read and discarded
	Gset                  // exactly one row, stored in variables Prefix+column
	Aset                  // the last row, when any, stored likewise
)

// Tx is what an SQL command does to the transaction, as its text says.
type Tx uint8

const (
	NoTx     Tx = iota
	Begin       // BEGIN, BEGIN TRANSACTION/WORK, START TRANSACTION (no options)
	Commit      // END, COMMIT (TRANSACTION/WORK)
	Rollback    // ROLLBACK, ABORT (TRANSACTION/WORK)
	Starts      // any other BEGIN or START TRANSACTION (with options)
)

// Command is one command of a script.
type Command struct {
	Kind CmdKind
	Line int    // the line it starts on, from 1
	Text string // the command as written (the SQL, or the meta command's line)
	// SQL is the statement with its variables replaced by $1, $2, ... (SQL).
	SQL string
	// Params are the variables' slots, one per $n (SQL).
	Params []int
	Result Result // SQL
	Prefix string // \gset's or \aset's prefix (SQL)
	Tx     Tx     // SQL
	Reads  bool   // SQL: a statement that only reads (SELECT, SHOW, VALUES, TABLE, transaction control)
	Var    int    // Set: the variable set; Sleep: the variable read, or -1
	Expr   *Expr  // Set, If
	Sleep  int64  // Sleep: microseconds, or the unit's microseconds when Var >= 0
	Jump   int    // If, Jump: the index of the next command
}

// Script is one parsed script.
type Script struct {
	Name   string // what the run calls it: a built-in's name, a file's base name
	Source string // its file's path, or <builtin: ...>
	Weight int
	Cmds   []Command
}

// ReadOnly reports whether every SQL command of the script only reads.
func (s *Script) ReadOnly() bool {
	for _, c := range s.Cmds {
		if c.Kind == SQL && !c.Reads {
			return false
		}
	}
	return true
}

// Program is the scripts of one run and the variables they share (a
// client's variables live across its transactions, whichever script runs).
type Program struct {
	Scripts []*Script
	names   []string
	slots   map[string]int
	set     []bool // a variable some \set, -D or predefined name assigns
	gsets   bool   // a script stores query results in variables
	uses    []use  // every variable read, for Check
}

type use struct {
	slot         int
	source, what string
	line         int
}

// Predefined are the variables pgbench sets for every client.
var Predefined = []string{"scale", "client_id", "random_seed", "default_seed"}

// NewProgram returns an empty program whose variables include pgbench's
// predefined ones and defined (-D names).
func NewProgram(defined ...string) *Program {
	p := &Program{slots: map[string]int{}}
	for _, n := range append(append([]string(nil), Predefined...), defined...) {
		p.set[p.Slot(n)] = true
	}
	return p
}

// Slot returns a variable's slot, adding it when new.
func (p *Program) Slot(name string) int {
	if i, ok := p.slots[name]; ok {
		return i
	}
	p.slots[name] = len(p.names)
	p.names = append(p.names, name)
	p.set = append(p.set, false)
	return len(p.names) - 1
}

// Lookup returns a variable's slot, if a script or the program names it.
func (p *Program) Lookup(name string) (int, bool) {
	i, ok := p.slots[name]
	return i, ok
}

// Names returns the variables' names, by slot.
func (p *Program) Names() []string { return p.names }

// MaxParams is the most variables one SQL command may reference
// (pgbench's MAX_ARGS - 1).
const MaxParams = 255

// Add parses a script and adds it to the program. source names it in
// errors (a file's path); name is what results call it. Every problem is
// returned, joined, each an *Error wrapping ErrInvalid.
func (p *Program) Add(name, source, text string, weight int) (*Script, error) {
	sp := &scriptParser{p: p, s: &Script{Name: name, Source: source, Weight: weight}}
	sp.parse(text)
	if len(sp.errs) == 0 && len(sp.s.Cmds) == 0 {
		sp.errs = append(sp.errs, &Error{Source: source, Msg: "empty command list for script"})
	}
	if len(sp.errs) > 0 {
		return nil, errors.Join(sp.errs...)
	}
	p.Scripts = append(p.Scripts, sp.s)
	return sp.s, nil
}

// Check returns the problems of the program as a whole: a variable read
// that nothing sets (no \set, no -D, not predefined), when no script
// stores query results in variables (which could set it).
func (p *Program) Check() error {
	var errs []error
	if p.gsets {
		return nil
	}
	seen := map[int]bool{}
	for _, u := range p.uses {
		if p.set[u.slot] || seen[u.slot] {
			continue
		}
		seen[u.slot] = true
		errs = append(errs, &Error{Source: u.source, Line: u.line, Msg: fmt.Sprintf("%s: undefined variable %q", u.what, p.names[u.slot])})
	}
	return errors.Join(errs...)
}

// scriptParser reads one script's text into commands.
type scriptParser struct {
	p    *Program
	s    *Script
	errs []error
	// conds is the stack of open \if blocks: the indices of their If and
	// Jump commands still to point past the \endif or to the next branch.
	conds []cond
}

type cond struct {
	line   int
	open   int   // the If whose false branch is not yet placed (-1 after \else)
	ends   []int // Jumps to the \endif
	inElse bool
}

func (sp *scriptParser) fail(line int, format string, args ...any) {
	sp.errs = append(sp.errs, &Error{Source: sp.s.Source, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// parse splits text into SQL commands (ended by ';' outside quotes and
// comments, or by a backslash command) and backslash commands (to the end
// of their line, continued by a trailing backslash).
func (sp *scriptParser) parse(text string) {
	var sql strings.Builder
	line := 1
	bufLine := 1 // the line the SQL buffer starts on
	flush := func() {
		if body, first := trimSQL(sql.String(), bufLine); body != "" {
			sp.sql(body, first)
		}
		sql.Reset()
		bufLine = line
	}
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '\n':
			line++
			sql.WriteByte(c)
			i++
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			sql.WriteString(text[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j, _ := sqltext.BlockComment(text, i, true)
			line += strings.Count(text[i:j], "\n")
			sql.WriteString(text[i:j])
			i = j
		case c == '\'' || c == '"':
			backslash := c == '\'' && i > 0 && (text[i-1] == 'E' || text[i-1] == 'e') && (i < 2 || !isNameChar(text[i-2]))
			j, _ := sqltext.Quoted(text, i, c, backslash)
			line += strings.Count(text[i:j], "\n")
			sql.WriteString(text[i:j])
			i = j
		case c == '$' && (i == 0 || !isNameChar(text[i-1])):
			if j, ok := sqltext.DollarQuoted(text, i); ok {
				line += strings.Count(text[i:j], "\n")
				sql.WriteString(text[i:j])
				i = j
				continue
			}
			sql.WriteByte(c)
			i++
		case c == ';':
			sql.WriteByte(c)
			i++
			flush()
		case c == '\\':
			if strings.HasPrefix(text[i:], "\\;") {
				sp.fail(line, `\; (several statements in one command) cannot be prepared: pgbench -M prepared refuses it too; write one statement per command`)
				i += 2
				continue
			}
			flush()
			// The meta command runs to the end of its line; a backslash
			// ending a line continues it on the next.
			start, startLine := i, line
			for i < len(text) {
				if text[i] == '\n' {
					if k := strings.TrimRight(text[start:i], "\r"); strings.HasSuffix(k, "\\") && !strings.HasSuffix(k, "\\\\") && i > start+1 {
						line++
						i++
						continue
					}
					break
				}
				i++
			}
			sp.meta(text[start:i], startLine)
		default:
			sql.WriteByte(c)
			i++
		}
	}
	flush()
	for _, c := range sp.conds {
		sp.fail(c.line, `\if without matching \endif`)
	}
}

// trimSQL drops leading white space and -- comments, as pgbench does
// before it counts a command; first is the line where the statement
// starts.
func trimSQL(s string, line int) (string, int) {
	for {
		t := strings.TrimLeft(s, " \t\r\n\f\v")
		line += strings.Count(s[:len(s)-len(t)], "\n")
		s = t
		if !strings.HasPrefix(s, "--") {
			break
		}
		j := strings.IndexByte(s, '\n')
		if j < 0 {
			return "", line
		}
		s = s[j:]
	}
	return strings.TrimRight(s, " \t\r\n\f\v"), line
}

// sql adds an SQL command: its :variables become $1, $2, ... everywhere in
// its text, as pgbench's prepared mode does (even inside quotes; '::' is
// a cast, left alone).
func (sp *scriptParser) sql(text string, line int) {
	cmd := Command{Kind: SQL, Line: line, Text: text, Var: -1}
	var b strings.Builder
	for i := 0; i < len(text); {
		c := text[i]
		if c != ':' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		if j < len(text) && isNameStart(text[j]) {
			for j < len(text) && isNameChar(text[j]) {
				j++
			}
			if len(cmd.Params) >= MaxParams {
				sp.fail(line, "statement has too many arguments (maximum is %d)", MaxParams)
				return
			}
			slot := sp.p.Slot(text[i+1 : j])
			cmd.Params = append(cmd.Params, slot)
			sp.p.uses = append(sp.p.uses, use{slot: slot, source: sp.s.Source, what: "SQL", line: line})
			b.WriteString("$" + strconv.Itoa(len(cmd.Params)))
			i = j
			continue
		}
		for i < len(text) && text[i] == ':' {
			b.WriteByte(':')
			i++
		}
	}
	cmd.SQL = b.String()
	cmd.Tx, cmd.Reads = classify(text)
	sp.s.Cmds = append(sp.s.Cmds, cmd)
}

// classify tells what a statement does to the transaction and whether it
// only reads, from its first words.
func classify(text string) (Tx, bool) {
	words := strings.Fields(strings.ToUpper(strings.TrimRight(strings.TrimSpace(text), "; \t\r\n")))
	if len(words) == 0 {
		return NoTx, true
	}
	plain := func(n int) bool { // the first word, then at most TRANSACTION or WORK
		return len(words) == n || len(words) == n+1 && (words[n] == "TRANSACTION" || words[n] == "WORK")
	}
	switch words[0] {
	case "BEGIN":
		if plain(1) {
			return Begin, true
		}
		return Starts, true
	case "START":
		if len(words) == 2 && words[1] == "TRANSACTION" {
			return Begin, true
		}
		return Starts, true
	case "END", "COMMIT":
		if plain(1) {
			return Commit, true
		}
	case "ROLLBACK", "ABORT":
		if plain(1) {
			return Rollback, true
		}
	case "SELECT", "SHOW", "VALUES", "TABLE":
		return NoTx, !strings.Contains(" "+strings.Join(words, " ")+" ", " INTO ") && !strings.Contains(strings.Join(words, " "), "FOR UPDATE")
	}
	return NoTx, false
}

// meta adds a backslash command (line is its whole text, from the
// backslash).
func (sp *scriptParser) meta(text string, line int) {
	body := text[1:]
	name := body
	if k := strings.IndexAny(body, " \t\r\n"); k >= 0 {
		name = body[:k]
	}
	rest := strings.TrimSpace(body[len(name):])
	switch strings.ToLower(name) {
	case "set":
		sp.set(rest, line)
	case "sleep":
		sp.sleep(rest, line)
	case "gset", "aset":
		sp.gset(strings.ToLower(name), rest, line)
	case "if":
		e, ok := sp.expr("if", rest, line)
		if !ok {
			return
		}
		sp.conds = append(sp.conds, cond{line: line, open: len(sp.s.Cmds)})
		sp.s.Cmds = append(sp.s.Cmds, Command{Kind: If, Line: line, Text: text, Expr: e, Var: -1})
	case "elif":
		if len(sp.conds) == 0 {
			sp.fail(line, `\elif without matching \if`)
			return
		}
		c := &sp.conds[len(sp.conds)-1]
		if c.inElse {
			sp.fail(line, `\elif after \else`)
			return
		}
		e, ok := sp.expr("elif", rest, line)
		if !ok {
			return
		}
		c.ends = append(c.ends, len(sp.s.Cmds))
		sp.s.Cmds = append(sp.s.Cmds, Command{Kind: Jump, Line: line, Text: text, Var: -1})
		sp.s.Cmds[c.open].Jump = len(sp.s.Cmds)
		c.open = len(sp.s.Cmds)
		sp.s.Cmds = append(sp.s.Cmds, Command{Kind: If, Line: line, Text: text, Expr: e, Var: -1})
	case "else":
		if rest != "" {
			sp.fail(line, `\else: unexpected argument`)
			return
		}
		if len(sp.conds) == 0 {
			sp.fail(line, `\else without matching \if`)
			return
		}
		c := &sp.conds[len(sp.conds)-1]
		if c.inElse {
			sp.fail(line, `\else after \else`)
			return
		}
		c.ends = append(c.ends, len(sp.s.Cmds))
		sp.s.Cmds = append(sp.s.Cmds, Command{Kind: Jump, Line: line, Text: text, Var: -1})
		sp.s.Cmds[c.open].Jump = len(sp.s.Cmds)
		c.open, c.inElse = -1, true
	case "endif":
		if rest != "" {
			sp.fail(line, `\endif: unexpected argument`)
			return
		}
		if len(sp.conds) == 0 {
			sp.fail(line, `\endif without matching \if`)
			return
		}
		c := sp.conds[len(sp.conds)-1]
		sp.conds = sp.conds[:len(sp.conds)-1]
		end := len(sp.s.Cmds)
		if c.open >= 0 {
			sp.s.Cmds[c.open].Jump = end
		}
		for _, j := range c.ends {
			sp.s.Cmds[j].Jump = end
		}
	case "shell", "setshell":
		sp.fail(line, `\%s: shell commands are not supported by rightsize (a benchmark's client runs no programs); compute the value with \set or in SQL`, name)
	case "startpipeline", "syncpipeline", "endpipeline":
		sp.fail(line, `\%s: pipeline mode is not supported by rightsize`, name)
	case "":
		sp.fail(line, `invalid command "\"`)
	default:
		sp.fail(line, `invalid command "\%s"`, name)
	}
}

// expr parses the expression of \set, \if or \elif.
func (sp *scriptParser) expr(cmd, text string, line int) (*Expr, bool) {
	if text == "" {
		sp.fail(line, `\%s: missing argument`, cmd)
		return nil, false
	}
	e, err := parseExpr(text, func(name string) int {
		slot := sp.p.Slot(name)
		sp.p.uses = append(sp.p.uses, use{slot: slot, source: sp.s.Source, what: `\` + cmd, line: line})
		return slot
	})
	if err != nil {
		sp.fail(line, `\%s: %v: %s`, cmd, err, oneLine(text))
		return nil, false
	}
	return e, true
}

// oneLine is text on one line, for a message: a continued expression's
// lines joined by a space.
func oneLine(text string) string {
	s := strings.Join(strings.Fields(strings.ReplaceAll(text, "\\\n", " ")), " ")
	if len(s) > maxEcho {
		// An expression of 100,000 parentheses is not shown whole.
		cut := maxEcho
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + fmt.Sprintf("… (%d bytes)", len(s))
	}
	return s
}

// maxEcho is how much of a command's text an error shows.
const maxEcho = 200

func (sp *scriptParser) set(rest string, line int) {
	name := rest
	if k := strings.IndexAny(rest, " \t\r\n"); k >= 0 {
		name = rest[:k]
	}
	if name == "" {
		sp.fail(line, `\set: missing argument`)
		return
	}
	if !validName(name) {
		sp.fail(line, `\set: invalid variable name: %q`, name)
		return
	}
	e, ok := sp.expr("set", strings.TrimSpace(rest[len(name):]), line)
	if !ok {
		return
	}
	slot := sp.p.Slot(name)
	sp.p.set[slot] = true
	sp.s.Cmds = append(sp.s.Cmds, Command{Kind: Set, Line: line, Text: `\set ` + rest, Var: slot, Expr: e})
}

func validName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// sleep parses \sleep N [us|ms|s] or \sleep :var [unit] (seconds without a
// unit).
func (sp *scriptParser) sleep(rest string, line int) {
	args := strings.Fields(rest)
	if len(args) == 0 {
		sp.fail(line, `\sleep: missing argument`)
		return
	}
	if len(args) > 2 {
		sp.fail(line, `\sleep: too many arguments`)
		return
	}
	cmd := Command{Kind: Sleep, Line: line, Text: `\sleep ` + rest, Var: -1}
	unit := ""
	if len(args) == 2 {
		unit = args[1]
	}
	if strings.HasPrefix(args[0], ":") {
		if !validName(args[0][1:]) {
			sp.fail(line, `\sleep: invalid variable name: %q`, args[0][1:])
			return
		}
		cmd.Var = sp.p.Slot(args[0][1:])
		sp.p.uses = append(sp.p.uses, use{slot: cmd.Var, source: sp.s.Source, what: `\sleep`, line: line})
	} else {
		n := args[0]
		k := 0
		if k < len(n) && (n[k] == '+' || n[k] == '-') {
			k++
		}
		d := k
		for d < len(n) && isDigit(n[d]) {
			d++
		}
		if d == k || d < len(n) && len(args) == 2 {
			sp.fail(line, `\sleep: invalid sleep time, must be an integer (%s)`, args[0])
			return
		}
		if d < len(n) {
			unit = n[d:]
		}
		v, err := strconv.ParseInt(n[:d], 10, 32)
		if err != nil {
			sp.fail(line, `\sleep: invalid sleep time, must be an integer (%s)`, args[0])
			return
		}
		cmd.Sleep = v
	}
	var mul int64
	switch strings.ToLower(unit) {
	case "", "s":
		mul = 1000000
	case "ms":
		mul = 1000
	case "us":
		mul = 1
	default:
		sp.fail(line, `\sleep: unrecognized time unit, must be us, ms or s (%s)`, unit)
		return
	}
	if cmd.Var >= 0 {
		cmd.Sleep = mul
	} else {
		cmd.Sleep *= mul
	}
	sp.s.Cmds = append(sp.s.Cmds, cmd)
}

// gset attaches \gset or \aset to the SQL command before it.
func (sp *scriptParser) gset(name, rest string, line int) {
	args := strings.Fields(rest)
	if len(args) > 1 {
		sp.fail(line, `\%s: too many arguments`, name)
		return
	}
	n := len(sp.s.Cmds)
	if n == 0 || sp.s.Cmds[n-1].Kind != SQL || sp.s.Cmds[n-1].Result != Discard {
		sp.fail(line, `\%s must follow an SQL command`, name)
		return
	}
	c := &sp.s.Cmds[n-1]
	c.Result = Gset
	if name == "aset" {
		c.Result = Aset
	}
	if len(args) == 1 {
		c.Prefix = args[0]
	}
	sp.p.gsets = true
}

// ParseExpr parses an expression of pgbench's language (what \set takes)
// outside a script, its :variables resolved to the program's slots (added
// when new); each variable it reads is reported to used, in order. A
// workload file's set and if use it.
func (p *Program) ParseExpr(text string, used func(name string, slot int)) (*Expr, error) {
	return parseExpr(text, func(name string) int {
		slot := p.Slot(name)
		if used != nil {
			used(name, slot)
		}
		return slot
	})
}
