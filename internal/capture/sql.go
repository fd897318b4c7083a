package capture

import (
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/sqltext"
)

// This file reads a normalized statement, through sqltext, far enough to
// rewrite its placeholders as named parameters and to tell what each is
// compared with. It is a few patterns over tokens, not a parser.

// tok is a token with the text capture's patterns compare.
type tok struct {
	sqltext.Token
	// text is a word in upper case, a quoted identifier in lower case
	// without its quotes, punctuation as written, and "" for a literal, a
	// placeholder or a :name.
	text string
}

// withNames are the names a statement's WITH clauses give their common
// table expressions: WITH [RECURSIVE] name [(columns)] AS [[NOT]
// MATERIALIZED] (...), ...
func withNames(toks []tok) map[string]bool {
	var names map[string]bool
	skip := func(i int) int { // past the parenthesis that opens at i
		depth := 0
		for ; i < len(toks); i++ {
			switch toks[i].text {
			case "(":
				depth++
			case ")":
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i := 0; i < len(toks); i++ {
		if toks[i].text != "WITH" {
			continue
		}
		j := i + 1
		if j < len(toks) && toks[j].text == "RECURSIVE" {
			j++
		}
		for j < len(toks) {
			n, ok := toks[j].name()
			if !ok {
				break
			}
			j++
			if j < len(toks) && toks[j].text == "(" {
				j = skip(j)
			}
			if j >= len(toks) || toks[j].text != "AS" {
				break
			}
			for j++; j < len(toks) && (toks[j].text == "NOT" || toks[j].text == "MATERIALIZED"); j++ {
			}
			if j >= len(toks) || toks[j].text != "(" {
				break
			}
			if names == nil {
				names = map[string]bool{}
			}
			names[n] = true
			if j = skip(j); j >= len(toks) || toks[j].text != "," {
				break
			}
			j++
		}
	}
	return names
}

// placeholder reports whether t is a placeholder ($n or ?).
func (t tok) placeholder() bool { return t.Kind == sqltext.Qmark || t.Kind == sqltext.DollarN }

// flavor is the lexical rules of a statement's dialect.
func flavor(mysql bool) sqltext.Flavor {
	if mysql {
		return sqltext.MySQL
	}
	return sqltext.Postgres
}

// lex splits sql into tokens by its dialect's rules (mysql: MySQL's, else
// PostgreSQL's). It returns nil for a statement with a literal,
// identifier or comment left open (a digest cut at its maximum length):
// not one capture can rewrite; and for one with no token.
func lex(sql string, mysql bool) []tok {
	toks, open := sqltext.Lex(sql, flavor(mysql))
	if open != "" {
		return nil
	}
	var out []tok
	for _, t := range toks {
		u := tok{Token: t}
		switch t.Kind {
		case sqltext.Word:
			u.text = strings.ToUpper(t.Text)
		case sqltext.Ident:
			u.text = strings.ToLower(strings.Trim(sql[t.Start:t.End], "\"`"))
		case sqltext.Punct:
			u.text = t.Text
		}
		out = append(out, u)
	}
	return out
}

// name is a table or column name token: a word that is not a keyword, or
// a quoted identifier.
func (t tok) name() (string, bool) {
	switch t.Kind {
	case sqltext.Ident:
		return t.text, true
	case sqltext.Word:
		if !keywords[t.text] {
			return strings.ToLower(t.Text), true
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

// classOf is the class of a statement (sqltext.Classify): a query, a
// write (a WITH with a data-modifying clause too), or anything else.
func classOf(toks []tok) string {
	raw := make([]sqltext.Token, len(toks))
	for i := range toks {
		raw[i] = toks[i].Token
	}
	switch sqltext.Classify(raw).Class {
	case sqltext.Read:
		return classRead
	case sqltext.Write:
		return classWrite
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
	if strings.Contains(text, Marker) || strings.HasPrefix(strings.TrimSpace(text), strings.TrimSpace(sqltext.Own)) {
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
		if t.Kind == sqltext.Punct && t.text == "@" { // SELECT @@version and the like
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
	// A common table expression's name is the statement's own, not a table
	// of the database (issue 49: one was declared existing).
	ctes := withNames(toks)
	return slices.DeleteFunc(named(toks), func(r tableRef) bool { return ctes[r.name] })
}

// named are the names that FROM, JOIN, UPDATE and INTO give (tables).
func named(toks []tok) []tableRef {
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
