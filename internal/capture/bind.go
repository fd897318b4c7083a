package capture

import (
	"fmt"
	"github.com/rightsize/rightsize/internal/sqltext"
	"regexp"
	"strings"
)

// Catalog is what capture knows of the target's tables: their columns and
// keys, never their rows.
type Catalog struct {
	Tables []Table
}

// Table is one table of the target database.
type Table struct {
	Name    string // as statements name it (lower case), without schema
	Columns []Column
	Key     []string // the primary key's columns
}

// Column is one column of a table.
type Column struct {
	Name string // lower case
	Type string // the server's name of its type
	// Unique tells that the column alone is the primary key or a unique
	// key: a value of it names one row.
	Unique bool
	// Range tells that Min and Max are the column's range as the server's
	// planner statistics have it (PostgreSQL's pg_stats histogram bounds
	// of an integer column), not read from its rows.
	Range    bool
	Min, Max int64
}

// table returns the table named name (a schema, if given, is ignored).
func (c *Catalog) table(name string) *Table {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	for i := range c.Tables {
		if strings.EqualFold(c.Tables[i].Name, name) {
			return &c.Tables[i]
		}
	}
	return nil
}

func (t *Table) column(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// Roles a placeholder plays in its statement.
const (
	roleEq     = "eq"     // col = ?, col IN (?): a value of the column
	roleLo     = "lo"     // col > ?, col >= ?, BETWEEN ? AND
	roleHi     = "hi"     // col < ?, col <= ?, AND ? (of BETWEEN)
	roleSet    = "set"    // SET col = ?
	roleDelta  = "delta"  // SET col = col + ?
	roleInsert = "insert" // VALUES (?, ...) against INSERT's column list
	roleLimit  = "limit"  // LIMIT ?
	roleOffset = "offset" // OFFSET ?
	roleNone   = ""       // capture cannot tell
)

// binding is what one placeholder is compared with.
type binding struct {
	role    string
	table   *Table
	col     *Column
	colName string // as the statement names it, when no catalog column matched
}

// bind finds, for the placeholder at toks[i], what the statement compares
// it with.
func bind(toks []tok, i int, refs []tableRef, cat *Catalog) binding {
	at := func(k int) tok {
		if k < 0 || k >= len(toks) {
			return tok{Token: sqltext.Token{Kind: sqltext.Punct}}
		}
		return toks[k]
	}
	prev := at(i - 1)
	switch prev.text {
	case "LIMIT":
		return binding{role: roleLimit}
	case "OFFSET":
		return binding{role: roleOffset}
	case ",":
		if at(i-2).placeholder() && at(i-3).text == "LIMIT" { // MySQL's LIMIT ?, ?
			return binding{role: roleLimit}
		}
	case "::":
		return binding{}
	}
	// col = col + ?
	if (prev.text == "+" || prev.text == "-") && at(i-3).text == "=" {
		if b := column(toks, i-2, refs, cat); b.colName != "" {
			if a := column(toks, i-4, refs, cat); a.colName == b.colName {
				b.role = roleDelta
				return b
			}
		}
	}
	switch prev.text {
	case "=", "<>", "!=", "LIKE", "ILIKE":
		b := column(toks, i-2, refs, cat)
		b.role = roleEq
		if prev.text == "=" && inSet(toks, i) {
			b.role = roleSet
		}
		return b
	case ">", ">=":
		b := column(toks, i-2, refs, cat)
		b.role = roleLo
		return b
	case "<", "<=":
		b := column(toks, i-2, refs, cat)
		b.role = roleHi
		return b
	case "BETWEEN":
		b := column(toks, i-2, refs, cat)
		b.role = roleLo
		return b
	case "AND":
		if at(i-3).text == "BETWEEN" {
			b := column(toks, i-4, refs, cat)
			b.role = roleHi
			return b
		}
	}
	// col IN (?, ?, ...)
	if prev.text == "(" || prev.text == "," {
		k := i - 1
		for k >= 0 && (toks[k].text == "," || toks[k].placeholder()) {
			k--
		}
		if at(k).text == "(" && at(k-1).text == "IN" {
			b := column(toks, k-2, refs, cat)
			b.role = roleEq
			return b
		}
		if b, ok := insertColumn(toks, i, refs, cat); ok {
			return b
		}
	}
	return binding{}
}

// column resolves the column named at toks[k] (t.col or col) against the
// statement's tables.
func column(toks []tok, k int, refs []tableRef, cat *Catalog) binding {
	if k < 0 || k >= len(toks) {
		return binding{}
	}
	name, ok := toks[k].name()
	if !ok {
		return binding{}
	}
	qual := ""
	if k >= 2 && toks[k-1].text == "." {
		qual, _ = toks[k-2].name()
	}
	b := binding{colName: name}
	for _, r := range refs {
		if qual != "" && qual != r.alias && qual != r.name && !strings.HasSuffix(r.name, "."+qual) {
			continue
		}
		t := cat.table(r.name)
		if t == nil {
			continue
		}
		if c := t.column(name); c != nil {
			b.table, b.col = t, c
			return b
		}
	}
	return b
}

// inSet reports whether toks[i] is in an UPDATE's SET clause (or an
// ON DUPLICATE KEY UPDATE / ON CONFLICT DO UPDATE SET list).
func inSet(toks []tok, i int) bool {
	for k := i - 1; k >= 0; k-- {
		if toks[k].Depth != toks[i].Depth {
			continue
		}
		switch toks[k].text {
		case "SET":
			return true
		case "WHERE", "FROM", "SELECT", "VALUES":
			return false
		case "UPDATE":
			return k > 0 && toks[k-1].text == "KEY"
		}
	}
	return false
}

// insertColumn binds a placeholder that is an element of INSERT's VALUES
// tuple to the column of the same position in INSERT's column list.
func insertColumn(toks []tok, i int, refs []tableRef, cat *Catalog) (binding, bool) {
	if i+1 >= len(toks) || (toks[i+1].text != "," && toks[i+1].text != ")") {
		return binding{}, false
	}
	// the tuple's opening parenthesis and the element's position
	pos, k := 0, i-1
	for ; k >= 0; k-- {
		t := toks[k]
		if t.Kind == sqltext.Punct && t.text == "(" && t.Depth == toks[i].Depth-1 {
			break
		}
		if t.text == "," && t.Depth == toks[i].Depth {
			pos++
		}
	}
	if k < 1 || (toks[k-1].text != "VALUES" && toks[k-1].text != ",") {
		return binding{}, false
	}
	// INSERT INTO t (a, b, c)
	var cols []string
	var table string
	for j := 0; j+2 < k; j++ {
		if toks[j].text != "INTO" {
			continue
		}
		table, _ = toks[j+1].name()
		j += 2
		if j+1 < k && toks[j].text == "." {
			if n, ok := toks[j+1].name(); ok {
				table, j = table+"."+n, j+2
			}
		}
		if j < k && toks[j].text == "(" {
			for j++; j < k && toks[j].text != ")"; j++ {
				if n, ok := toks[j].name(); ok {
					cols = append(cols, n)
				}
			}
		}
		break
	}
	t := cat.table(table)
	if t == nil {
		return binding{role: roleInsert}, true
	}
	if cols == nil {
		for _, c := range t.Columns {
			cols = append(cols, c.Name)
		}
	}
	if pos >= len(cols) {
		return binding{role: roleInsert}, true
	}
	b := binding{role: roleInsert, table: t, colName: cols[pos], col: t.column(cols[pos])}
	return b, true
}

// digestList is MySQL's digest of a list of values: "(...)" (and "/* ,
// ... */" after a VALUES list of several rows).
var (
	digestList = regexp.MustCompile(`\(\s*\.\.\.\s*\)`)
	digestMore = regexp.MustCompile(`/\*\s*,\s*\.\.\.\s*\*/`)
	insertCols = regexp.MustCompile("(?i)INSERT\\s+(?:IGNORE\\s+)?INTO\\s+([`\"\\w.]+(?:\\s*\\.\\s*[`\"\\w]+)?)\\s*(\\([^)]*\\))?\\s*VALUES")
)

// expandDigest makes a MySQL digest runnable: a list collapsed to "(...)"
// becomes one placeholder per INSERT column, or one for IN. It returns
// false when it cannot tell how many values a collapsed VALUES row had.
// inList is what a digest's IN (...) becomes: a list of three values (its
// length is hidden: a guess the statement's comment says), so that a list
// stays a list.
const inList = "(?, ?, ?)"

func expandDigest(text string, cat *Catalog) (string, bool) {
	return expandDigestList(text, cat, 3)
}

// digestRun is MariaDB's digest of a run of values within a list: "?,
// ..." (the first value, then the rest).
var digestRun = regexp.MustCompile(`\?\s*,\s*\.\.\.`)

// expandDigestList is expandDigest with IN lists of inLen values (the
// length a log showed), and an INSERT's run of values ("?, ...") expanded
// to as many as its columns leave room for.
func expandDigestList(text string, cat *Catalog, inLen int) (string, bool) {
	text = digestMore.ReplaceAllString(text, "")
	text = expandRun(text)
	if !digestList.MatchString(text) {
		return text, digestRun.FindStringIndex(text) == nil
	}
	ok := true
	if m := insertCols.FindStringSubmatchIndex(text); m != nil {
		n := 0
		if m[4] >= 0 {
			n = strings.Count(text[m[4]:m[5]], ",") + 1
		} else {
			name := strings.NewReplacer("`", "", `"`, "", " ", "").Replace(text[m[2]:m[3]])
			if t := cat.table(name); t != nil {
				n = len(t.Columns)
			}
		}
		rest := text[m[1]:]
		if loc := digestList.FindStringIndex(rest); loc != nil && strings.TrimSpace(rest[:loc[0]]) == "" {
			if n == 0 {
				ok = false
			} else {
				text = text[:m[1]] + rest[:loc[0]] + "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")" + rest[loc[1]:]
			}
		}
	}
	list := inList
	if inLen > 0 && inLen != 3 {
		list = "(" + strings.TrimSuffix(strings.Repeat("?, ", inLen), ", ") + ")"
	}
	text = digestList.ReplaceAllString(text, list) // IN (...)
	return text, ok
}

// expandRun expands the run of values ("?, ...") of an INSERT's VALUES
// row whose column list says how many values it holds: the run stands for
// as many as the other items of the row leave (MariaDB writes "( ?, ...
// * ? )" for VALUES (1, 2, 3, 4 * 2.5) into four columns).
func expandRun(text string) string {
	m := insertCols.FindStringSubmatchIndex(text)
	if m == nil || m[4] < 0 {
		return text
	}
	cols := strings.Count(text[m[4]:m[5]], ",") + 1
	rest := text[m[1]:]
	open := strings.Index(rest, "(")
	run := digestRun.FindStringIndex(rest)
	if open < 0 || run == nil || strings.TrimSpace(rest[:open]) != "" {
		return text
	}
	end := matchingParen(rest, open)
	if end < 0 || run[0] > end {
		return text
	}
	// The row's items are those outside the run, the one it begins and
	// the one it ends in: the run stands for the values of the others.
	n := cols - topLevelCommas(rest[open+1:end]) + 1
	if n < 2 {
		return text
	}
	expanded := strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
	return text[:m[1]] + rest[:run[0]] + expanded + rest[run[1]:]
}

// matchingParen is the index of the ")" that closes s[open], or -1.
func matchingParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// topLevelCommas counts the commas of s outside parentheses.
func topLevelCommas(s string) int {
	n, depth := 0, 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// paramName is a parameter's name for a binding: the table and column,
// with the role.
func paramName(b binding) string {
	base := "todo"
	if b.table != nil {
		base = ident(b.table.Name) + "_" + ident(b.colName)
	} else if b.colName != "" {
		base = ident(b.colName)
	}
	switch b.role {
	case roleLo:
		return base + "_lo"
	case roleHi:
		return base + "_hi"
	case roleSet:
		return base + "_new"
	case roleDelta:
		return base + "_delta"
	case roleInsert:
		return "new_" + base
	case roleLimit:
		return "limit_n"
	case roleOffset:
		return "offset_n"
	}
	return base
}

// ident is s as a name the workload file takes: letters, digits and _,
// starting with a letter or _, at most 40 bytes.
func ident(s string) string {
	var b strings.Builder
	for i := 0; i < len(s) && b.Len() < 40; i++ {
		c := s[i]
		if sqltext.IdentChar(c) && c != '$' && c < 0x80 {
			b.WriteByte(c | 0x20*boolByte(c >= 'A' && c <= 'Z'))
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "t" + out
	}
	return out
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// describe is a binding in words, for comments.
func (b binding) describe() string {
	if b.table != nil {
		return fmt.Sprintf("%s.%s", b.table.Name, b.colName)
	}
	return b.colName
}

// SetRange records column's range in table from the server's statistics
// (Column.Range); an unknown table or column is ignored.
func (c *Catalog) SetRange(table, column string, min, max int64) {
	t := c.table(strings.ToLower(table))
	if t == nil || min > max {
		return
	}
	if col := t.column(column); col != nil {
		col.Range, col.Min, col.Max = true, min, max
	}
}
