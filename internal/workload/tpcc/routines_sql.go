package tpcc

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"text/template"
)

// The five transactions as routines stored in the server, for --in-server,
// one file per transaction and dialect, named after the transaction
// (new_order.sql, ...):
//
//   - sql/pg: PL/pgSQL, each installed in two forms from one body: a
//     function (rs_tpcc_new_order, ...) called by a SELECT in its implicit
//     transaction, and a procedure (rs_tpcc_new_order_p, ...) called with
//     CALL, which returns its results in INOUT parameters. On the unused
//     item (clause 2.4.2.3) a function raises an exception whose message
//     starts with rollbackMarker, which undoes the transaction's work (a
//     function cannot roll back); a procedure rolls back and returns
//     rolled_back = 1.
//   - sql/mysql: MySQL/MariaDB stored procedures. Each call starts and
//     commits its own transaction and ends with one result row, so that a
//     transaction is one round trip. Any error rolls the transaction back
//     before it reaches the terminal (the EXIT handler), so that a deadlock
//     or a lock wait timeout leaves nothing open behind it; an unused item
//     rolls back the work before it and returns rolled_back = 1.
//
// Every routine has the profile of its client-side transaction (clause
// 2.4.2, 2.5.2, 2.6.2, 2.7.4, 2.8.2), and the terminal draws every input, as
// it does client-side. New-Order's lines arrive sorted by supplying
// warehouse and item (with their line numbers), so that concurrent
// New-Orders lock stock rows in one order.
//
// A file is a text/template whose output, less the file's final newline, is
// the CREATE statement the server receives, byte for byte
// (testdata/routines.golden.txt holds every one: a change of it raises
// routinesVersion; a MySQL file keeps the newline after its note, the first
// byte its statement has always had). Its templating is no more than
//
//	{{/* ... */}}                     a note on the file, not sent
//	{{.Routine "rs_tpcc_x"}}          pg: FUNCTION rs_tpcc_x, or PROCEDURE rs_tpcc_x_p
//	{{.Out "name type"}}              pg: OUT name type, or INOUT name type DEFAULT NULL
//	{{if .Function}}a{{else}}b{{end}} pg: text that differs between the forms
//
// The routine's identity and the statement that calls it are read back from
// the parameters of its CREATE statement (fromCreate).
//
//go:embed sql/pg/*.sql sql/mysql/*.sql
var sqlFiles embed.FS

// pgForm is the form a PostgreSQL routine's file is rendered in.
type pgForm struct {
	// Function is true for the function form, false for the procedure.
	Function bool
}

// Routine is what the CREATE statement creates: FUNCTION name, or
// PROCEDURE name_p.
func (f pgForm) Routine(name string) string {
	if f.Function {
		return "FUNCTION " + name
	}
	return "PROCEDURE " + name + "_p"
}

// Out declares the result parameter "name type": a function's OUT
// parameters make its one result row, without a further query; a
// procedure's INOUT ones are passed NULL by its CALL.
func (f pgForm) Out(param string) string {
	if f.Function {
		return "OUT " + param
	}
	return "INOUT " + param + " DEFAULT NULL"
}

// The routines of each dialect and form, by transaction.
var (
	pgFunctions     = mustLoad("pg", pgForm{Function: true})
	pgProcedures    = mustLoad("pg", pgForm{})
	mysqlProcedures = mustLoad("mysql", nil)
)

// mustLoad renders the files of sql/dir in form, by transaction. A missing
// or malformed file panics: the files are part of the program, compiled in,
// and every test of the package loads them all.
func mustLoad(dir string, form any) [numTx]routine {
	var out [numTx]routine
	for t, def := range txDefs {
		r, err := loadRoutine(dir, def.name+".sql", form)
		if err != nil {
			panic(err)
		}
		out[t] = r
	}
	return out
}

// loadRoutine renders the file sql/dir/file in form.
func loadRoutine(dir, file string, form any) (routine, error) {
	path := "sql/" + dir + "/" + file
	tmpl, err := template.ParseFS(sqlFiles, path)
	if err != nil {
		return routine{}, err
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, form); err != nil {
		return routine{}, err
	}
	r, err := fromCreate(strings.TrimSuffix(b.String(), "\n"), dir == "pg")
	if err != nil {
		return routine{}, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// fromCreate is the routine that create makes: its kind and name, its
// identity (typed: the name and the types of its parameters but the OUT
// ones, as PostgreSQL tells overloaded routines apart; else the name, as
// MySQL's procedures have a namespace of their own), and the statement that
// calls it, a ? for each input: SELECT the OUT parameters FROM a function,
// or CALL a procedure with NULL for each of its result (INOUT) parameters.
func fromCreate(create string, typed bool) (routine, error) {
	head, rest, ok := strings.Cut(create, "(")
	words := strings.Fields(head)
	if !ok || len(words) < 3 || words[0] != "CREATE" {
		return routine{}, fmt.Errorf("does not start with CREATE ... FUNCTION|PROCEDURE name(")
	}
	r := routine{what: words[len(words)-2], name: words[len(words)-1], create: create}
	params, err := splitParams(rest)
	if err != nil {
		return routine{}, err
	}
	var marks, types, outs []string
	nulls := 0
	for _, p := range params {
		f := strings.Fields(p)
		mode := "IN"
		if len(f) > 0 && (f[0] == "IN" || f[0] == "OUT" || f[0] == "INOUT") {
			mode, f = f[0], f[1:]
		}
		if len(f) < 2 {
			return routine{}, fmt.Errorf("parameter %q has no name and type", p)
		}
		typ := f[1:]
		if i := slices.Index(typ, "DEFAULT"); i >= 0 {
			typ = typ[:i]
		}
		switch mode {
		case "IN":
			marks = append(marks, "?")
		case "INOUT":
			nulls++
		}
		if mode != "IN" {
			outs = append(outs, f[0])
		}
		if mode != "OUT" {
			types = append(types, strings.Join(typ, " "))
		}
	}
	r.ident = r.name
	if typed {
		r.ident += "(" + strings.Join(types, ", ") + ")"
	}
	args := strings.Join(marks, ", ")
	if r.what == "FUNCTION" {
		r.call = "SELECT " + strings.Join(outs, ", ") + " FROM " + r.name + "(" + args + ")"
	} else {
		r.call = "CALL " + r.name + "(" + args + strings.Repeat(", NULL", nulls) + ")"
	}
	return r, nil
}

// splitParams splits the parameter list that s starts with, up to its
// closing parenthesis, at its top-level commas (DECIMAL(6,2) is one type).
func splitParams(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		case ')':
			if depth == 0 {
				return append(out, s[start:i]), nil
			}
			depth--
		}
	}
	return nil, fmt.Errorf("the parameter list does not end")
}
