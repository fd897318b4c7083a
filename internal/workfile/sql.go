package workfile

import "github.com/rightsize/rightsize/internal/sqltext"

// This file reads a statement's SQL, through sqltext, far enough to find
// its :name references, what it writes and what a transaction may not
// run. sqltext's limits are documented in docs/workload-files.md.

// flavorOf is the lexical rules of a form's dialect.
func flavorOf(dialect string) sqltext.Flavor {
	switch dialect {
	case MySQL:
		return sqltext.MySQL
	case SQLite:
		return sqltext.SQLite
	}
	// PostgreSQL's rules also stand for the default form: its dollar
	// quotes are the only lexical form the others lack that portable SQL
	// could hold. `x` is an identifier in every form of a workload file,
	// as it is to MySQL and SQLite.
	fl := sqltext.Postgres
	fl.Backquote = true
	return fl
}

// analysis is what reading one form found.
type analysis struct {
	toks   []sqltext.Token
	refs   []sqltext.Ref
	writes []string
	opaque bool
	end    int      // where the statement ends (before a final ';')
	errs   []string // problems
	warns  []string
}

// analyze reads sql as dialect's SQL.
func analyze(sql, dialect string) analysis {
	var a analysis
	a.end = len(sql)
	toks, open := sqltext.Lex(sql, flavorOf(dialect))
	if open != "" {
		a.errs = append(a.errs, open+" is not closed")
		return a
	}
	for i, t := range toks {
		switch t.Kind {
		case sqltext.Qmark:
			a.errs = append(a.errs, "a bare ? is a placeholder to the database drivers: write parameters as :name")
		case sqltext.DollarN:
			a.errs = append(a.errs, t.Text+" is a placeholder: write parameters as :name (rightsize numbers them)")
		case sqltext.Punct:
			if t.Text != ";" {
				continue
			}
			if i == len(toks)-1 {
				a.end = t.Start
			} else {
				a.errs = append(a.errs, "more than one statement (a ; before the end): give each its own entry")
			}
		}
	}
	a.toks, a.refs = toks, sqltext.Refs(toks)
	if len(toks) == 0 || toks[0].Kind == sqltext.Punct && toks[0].Text == ";" {
		a.errs = append(a.errs, "no SQL")
		return a
	}
	a.classify()
	return a
}

// classify finds what the statement writes and what it may not do.
func (a *analysis) classify() {
	if a.toks[0].Kind != sqltext.Word {
		a.errs = append(a.errs, "does not start with a keyword")
		return
	}
	st := sqltext.Classify(a.toks)
	first := st.First
	switch st.Class {
	case sqltext.DDL:
		a.errs = append(a.errs, first+" is DDL, which a transaction may not run: declare tables under tables: (existing ones are never changed)")
		return
	case sqltext.Control:
		a.errs = append(a.errs, first+" is transaction control, which is rightsize's: set autocommit: on the transaction instead")
		return
	case sqltext.Opaque:
		a.opaque = true
		a.inspectOpaque(first)
	case sqltext.Unknown:
		a.opaque = true
		a.warns = append(a.warns, first+" statements are not recognized: the statement is counted as writing every table")
	}
	a.writes = st.Writes
	for range st.Unread {
		a.opaque = true
		a.warns = append(a.warns, "a write whose table rightsize cannot read: the statement is counted as writing every table")
	}
	if first == "SELECT" || first == "WITH" {
		a.checkSelectInto()
	}
}

// inspectOpaque looks inside a DO block's body and a CALL's (or
// EXECUTE's) string arguments for DDL words: rightsize cannot see what a
// procedure runs, but text that says DROP is refused.
func (a *analysis) inspectOpaque(first string) {
	for _, t := range a.toks[1:] {
		if t.Kind != sqltext.String {
			continue
		}
		if w := sqltext.DDLWord(t.Text); w != "" {
			what := "a string passed to " + first
			if first == "DO" {
				what = "the DO block"
			}
			a.errs = append(a.errs, what+" contains "+w+": DDL is refused in transactions (rightsize reads the text of a DO block and of a CALL's arguments, not what a procedure runs)")
			return
		}
	}
}

// columns counts the columns the statement returns (sqltext.Columns).
func (a *analysis) columns() int { return sqltext.Columns(a.toks) }

// checkSelectInto refuses PostgreSQL's SELECT ... INTO table (it creates
// a table) and MySQL's INTO OUTFILE/DUMPFILE (a file on the server); INTO
// @variable is left alone.
func (a *analysis) checkSelectInto() {
	i := sqltext.SelectInto(a.toks)
	if i < 0 {
		return
	}
	switch w := a.toks[i].Upper(); w {
	case "OUTFILE", "DUMPFILE":
		a.errs = append(a.errs, "SELECT ... INTO "+w+" writes a file on the database server")
	default:
		a.errs = append(a.errs, "SELECT ... INTO a table creates that table: keep a returned row with the statement's into: key instead")
	}
}
