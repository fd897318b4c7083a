package workfile

import (
	"slices"
	"strings"
)

// resolve ties what the file names to what it declares: references to
// parameters and returned values, written tables to declared ones,
// samples to their tables; and builds the mix.
func (p *parser) resolve(s *Spec) {
	params := map[string]int{}
	for i, prm := range s.Params {
		params[prm.Name] = i
	}
	used := make([]bool, len(s.Params))
	owner := map[string]string{} // an into name -> the transaction returning it (the first)
	for _, tx := range s.Transactions {
		for _, st := range tx.Statements {
			for _, name := range st.Into {
				if _, ok := owner[name]; !ok {
					owner[name] = tx.Name
				}
			}
		}
	}
	for ti := range s.Transactions {
		p.resolveTx(s, &s.Transactions[ti], params, used, owner)
	}
	for i, prm := range s.Params {
		if !used[i] {
			p.warn(prm.Line, "parameter %s: no statement uses it", prm.Name)
		}
	}
	for i := range s.Params {
		p.checkSample(s, &s.Params[i])
	}
	for ti := range s.Transactions {
		s.Transactions[ti].Actions = fileActions(&s.Transactions[ti])
	}
	s.buildMix()
}

// returned is a value a statement returns (into).
type returned struct{ stmt, col int }

func (p *parser) resolveTx(s *Spec, tx *Transaction, params map[string]int, used []bool, owner map[string]string) {
	later := map[string]int{} // an into name -> the statement returning it
	for si, st := range tx.Statements {
		for _, name := range st.Into {
			if _, ok := later[name]; !ok {
				later[name] = si
			}
		}
	}
	into := map[string]returned{}
	for si := range tx.Statements {
		st := &tx.Statements[si]
		what := st.what
		for fi := range st.Forms {
			fm := &st.Forms[fi]
			for ri := range fm.Slots {
				sl := &fm.Slots[ri]
				if r, ok := into[sl.Name]; ok {
					sl.Stmt, sl.Col = r.stmt, r.col
					continue
				}
				if i, ok := params[sl.Name]; ok {
					sl.Param = i
					used[i] = true
					continue
				}
				p.unresolved(fm.lines[ri], what, sl.Name, si, later, owner, tx.Name)
			}
			p.resolveWrites(s, st, fm, what)
		}
		for ci, name := range st.Into {
			if _, ok := params[name]; ok {
				p.add(st.Line, "%s: into %s: a parameter of that name is declared under params:", what, name)
			}
			if r, ok := into[name]; ok && r.stmt != si {
				p.add(st.Line, "%s: into %s: statement %s already returns it", what, name, tx.Statements[r.stmt].Name)
				continue
			}
			into[name] = returned{si, ci}
		}
	}
}

// unresolved reports a reference to nothing declared before it, saying
// what it refers to if it exists elsewhere.
func (p *parser) unresolved(line int, what, name string, si int, later map[string]int, owner map[string]string, tx string) {
	switch j, ok := later[name]; {
	case ok && j == si:
		p.add(line, "%s: uses :%s, which it returns itself (a value returned by into: is for later statements)", what, name)
	case ok:
		p.add(line, "%s: uses :%s before statement %d returns it", what, name, j+1)
	case owner[name] != "":
		p.add(line, "%s: uses :%s, returned by transaction %s: a returned value lives only within its transaction", what, name, owner[name])
	default:
		p.add(line, "%s: unknown parameter :%s (declare it under params:, or return it with into: from an earlier statement)", what, name)
	}
}

// resolveWrites maps the tables a form writes to declared tables.
func (p *parser) resolveWrites(s *Spec, st *Statement, fm *Form, what string) {
	if fm.opaque {
		st.Opaque = true
	}
	for _, w := range fm.writes {
		t := matchTable(s.Tables, w)
		if t == nil {
			p.add(fm.line, "%s: writes table %s, which tables: does not declare (a statement writes only declared tables)", what, w)
			continue
		}
		if !slices.Contains(st.Writes, strings.ToLower(t.Name)) {
			st.Writes = append(st.Writes, strings.ToLower(t.Name))
		}
	}
}

// matchTable finds the declared table a statement names: the same name,
// or the same table name where one of the two is qualified by a schema.
func matchTable(tables []Table, name string) *Table {
	name = strings.ToLower(name)
	last := func(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
	for i := range tables {
		d := strings.ToLower(tables[i].Name)
		if d == name {
			return &tables[i]
		}
	}
	for i := range tables {
		d := strings.ToLower(tables[i].Name)
		if (!strings.Contains(d, ".") || !strings.Contains(name, ".")) && last(d) == last(name) {
			return &tables[i]
		}
	}
	return nil
}

// checkSample checks that a sample's table is declared and, if rightsize
// creates it, has the column.
func (p *parser) checkSample(s *Spec, prm *Param) {
	if prm.Kind != Sample && prm.Kind != Seq || prm.Table == "" {
		return
	}
	what, does := "parameter "+prm.Name, "samples"
	if prm.Kind == Seq {
		does = "goes on after"
	}
	t := matchTable(s.Tables, prm.Table)
	if t == nil {
		p.add(prm.Line, "%s: %s %s.%s, but tables: does not declare %s", what, does, prm.Table, prm.Column, prm.Table)
		return
	}
	if !t.Existing && !slices.ContainsFunc(t.Columns, func(c Column) bool { return strings.EqualFold(c.Name, prm.Column) }) {
		p.add(prm.Line, "%s: %s %s.%s, but table %s has no column %s", what, does, prm.Table, prm.Column, t.Name, prm.Column)
	}
}
