package workfile

import (
	"slices"
	"strconv"
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
		tx := &s.Transactions[ti]
		tx.Actions = fileActions(tx)
	}
	s.Vars = p.vars
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
	r := txResolver{p: p, s: s, tx: tx, params: params, used: used, owner: owner, later: later,
		into: map[string]returned{}, vars: map[string]int{}}
	for ai := range tx.Actions {
		switch a := &tx.Actions[ai]; a.Kind {
		case Run:
			r.statement(a.Stmt)
		case Set, Branch:
			r.loads(a)
		}
	}
}

// txResolver resolves one transaction's names in the order its steps run:
// a statement's references and an expression's inputs see the values
// returned (into) and the variables set before them.
type txResolver struct {
	p      *parser
	s      *Spec
	tx     *Transaction
	params map[string]int
	used   []bool
	owner  map[string]string
	later  map[string]int
	into   map[string]returned
	vars   map[string]int // a variable set so far -> its slot
}

func (r *txResolver) statement(si int) {
	p, tx := r.p, r.tx
	st := &tx.Statements[si]
	what := st.what
	for fi := range st.Forms {
		fm := &st.Forms[fi]
		for ri := range fm.Slots {
			sl := &fm.Slots[ri]
			if rt, ok := r.into[sl.Name]; ok {
				sl.Stmt, sl.Col = rt.stmt, rt.col
				continue
			}
			if i, ok := r.params[sl.Name]; ok {
				sl.Param = i
				r.used[i] = true
				continue
			}
			if v, ok := r.vars[sl.Name]; ok {
				sl.Stmt, sl.Var = -1, v
				continue
			}
			p.unresolved(fm.lines[ri], what, sl.Name, si, r.later, r.owner, tx.Name)
		}
		p.resolveWrites(r.s, st, fm, what)
	}
	for ci, name := range st.Into {
		if _, ok := r.params[name]; ok {
			p.add(st.Line, "%s: into %s: a parameter of that name is declared under params:", what, name)
		}
		if rt, ok := r.into[name]; ok && rt.stmt != si {
			p.add(st.Line, "%s: into %s: statement %s already returns it", what, name, tx.Statements[rt.stmt].Name)
			continue
		}
		r.into[name] = returned{si, ci}
	}
}

// loads resolves what a set's or an if's expression reads: a variable set
// before it, or a parameter or a returned value it loads; a set's own
// variable is set from then on.
func (r *txResolver) loads(a *Action) {
	what := "transaction " + r.tx.Name + ", line " + strconv.Itoa(a.Line)
	for _, rf := range a.refs {
		if slices.ContainsFunc(a.Loads, func(l Slot) bool { return l.Var == rf.slot }) {
			continue
		}
		if rt, ok := r.into[rf.name]; ok {
			a.Loads = append(a.Loads, Slot{Name: rf.name, Param: -1, Stmt: rt.stmt, Col: rt.col, Var: rf.slot})
			continue
		}
		if i, ok := r.params[rf.name]; ok {
			r.used[i] = true
			a.Loads = append(a.Loads, Slot{Name: rf.name, Param: i, Stmt: -1, Var: rf.slot})
			continue
		}
		if _, ok := r.vars[rf.name]; !ok {
			r.p.add(rf.line, "%s: the expression reads :%s, which is no parameter, no value an earlier statement returns and no variable an earlier set sets", what, rf.name)
		}
	}
	if a.Kind != Set {
		return
	}
	switch _, isParam := r.params[a.name]; {
	case isParam:
		r.p.add(a.Line, "%s: set %s: a parameter of that name is declared under params:", what, a.name)
	case slices.ContainsFunc(r.tx.Statements, func(st Statement) bool { return slices.Contains(st.Into, a.name) }):
		r.p.add(a.Line, "%s: set %s: a statement of the transaction returns a value of that name (into:)", what, a.name)
	}
	r.vars[a.name] = a.Var
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
