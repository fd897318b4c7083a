package workfile

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

func (p *parser) transactions(n *yaml.Node) []Transaction {
	var out []Transaction
	seen := map[string]int{}
	for _, item := range p.listMax(n, "transactions", maxTransactions) {
		tx := p.transaction(item)
		if tx.Name == "" {
			continue
		}
		if line, ok := seen[tx.Name]; ok {
			p.add(tx.Line, "transaction %s declared twice (first at line %d)", tx.Name, line)
			continue
		}
		seen[tx.Name] = tx.Line
		out = append(out, tx)
	}
	if n != nil && (isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		p.add(n.Line, "transactions: empty (the mix needs at least one)")
	}
	var total int64
	for _, tx := range out {
		if total > math.MaxInt64-tx.Weight {
			p.add(n.Line, "transactions: the weights add up beyond 64-bit integers")
			return out
		}
		total += tx.Weight
	}
	if len(out) > 0 && total == 0 {
		p.add(n.Line, "transactions: every weight is 0: nothing would run")
	}
	return out
}

// reservedTx are names a transaction cannot have: the result's
// operations of a file's workload already have them (its event, and the
// BEGIN and COMMIT it times).
var reservedTx = []string{"transaction", "begin", "commit"}

func (p *parser) transaction(n *yaml.Node) Transaction {
	f := p.fields(n, "transaction", "name", "weight", "autocommit", "keying", "think", "think_dist", "statements")
	tx := Transaction{Line: n.Line, Weight: 1}
	if f["name"] == nil {
		p.add(n.Line, "transaction: name missing")
		return tx
	}
	tx.Name = p.name(f["name"], "transaction")
	what := "transaction " + tx.Name
	if slices.Contains(reservedTx, strings.ToLower(tx.Name)) {
		p.add(f["name"].Line, "%s: the name is the result's own (the event is transaction; begin and commit are the statements that open and end a transaction): name it otherwise", what)
	}
	if w := f["weight"]; w != nil {
		if v, ok := p.integer(w, what+": weight"); ok {
			switch {
			case v < 0:
				p.add(w.Line, "%s: weight %d is negative (want 0 or more: its share of the mix)", what, v)
			case v == 0:
				p.warn(w.Line, "%s: weight 0: it never runs", what)
			}
			tx.Weight = max(v, 0)
		}
	}
	tx.Autocommit = p.boolean(f["autocommit"], what+": autocommit")
	for _, k := range []string{"keying", "think"} {
		v := f[k]
		if v == nil {
			continue
		}
		d, ok := p.duration(v, what+": "+k)
		if ok && d < 0 {
			p.add(v.Line, "%s: %s %s is negative", what, k, d)
		}
		if k == "keying" {
			tx.Keying = max(d, 0)
		} else {
			tx.Think = max(d, 0)
		}
	}
	if td := f["think_dist"]; td != nil {
		switch s, _ := p.scalar(td, what+": think_dist"); s {
		case "fixed":
		case "exponential":
			tx.ThinkExponential = true
		default:
			p.add(td.Line, "%s: think_dist %q: want fixed or exponential", what, s)
		}
		if f["think"] == nil {
			p.add(td.Line, "%s: think_dist without think (the mean think time)", what)
		}
	}
	if f["statements"] == nil {
		p.add(n.Line, "%s: statements missing", what)
	}
	p.steps(p.listMax(f["statements"], what+": statements", maxStatements), &tx, map[string]bool{}, 0)
	if s := f["statements"]; s != nil && (isNull(s) || s.Kind == yaml.SequenceNode && len(s.Content) == 0) {
		p.add(p.keyLine(s), "%s: statements empty", what)
	}
	return tx
}

// statement reads statement i of transaction tx: its default SQL, its
// dialects' own and what it returns.
func (p *parser) statement(n *yaml.Node, tx string, i int) Statement {
	st := Statement{Line: n.Line, Name: fmt.Sprintf("%s_%d", tx, i+1)}
	what := fmt.Sprintf("transaction %s, statement %d", tx, i+1)
	st.what = what
	if n.Kind == yaml.ScalarNode && !isNull(n) {
		// A statement written as its SQL alone.
		st.Forms = append(st.Forms, p.form(n, "", what))
		return st
	}
	f := p.fields(p.dropOtherDialects(n, what), "statement", "name", "sql", "postgres", "mysql", "sqlite", "into")
	if v := f["name"]; v != nil {
		st.Name = p.name(v, what+": name")
		what += " (" + st.Name + ")"
		st.what = what
	}
	if v := f["sql"]; v != nil {
		st.Forms = append(st.Forms, p.form(v, "", what))
	}
	for _, d := range AllDialects {
		if v := f[d]; v != nil {
			st.Forms = append(st.Forms, p.form(v, d, what))
			if !slices.Contains(p.dialects, d) {
				p.warn(p.keyLine(v), "%s: a %s variant, but the file runs on %s only", what, d, strings.Join(p.dialects, ", "))
			}
		}
	}
	p.checkForms(&st, n, f, what)
	seen := map[string]bool{}
	for _, item := range p.list(f["into"], what+": into") {
		name := p.name(item, what+": into")
		if seen[name] {
			p.add(item.Line, "%s: into %s named twice", what, name)
		}
		seen[name] = true
		st.Into = append(st.Into, name)
	}
	if len(st.Into) > 0 {
		for _, fm := range st.Forms {
			if fm.columns >= 0 && fm.columns != len(st.Into) && fm.SQL != "" {
				p.add(fm.line, "%s: into names %d (%s), but the statement returns %d column%s: name one per column, in order", what, len(st.Into), strings.Join(st.Into, ", "), fm.columns, plural(fm.columns))
			}
		}
	}
	return st
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// dropOtherDialects reports keys that name a database rightsize does not
// run on (or by another name) and returns n without them.
func (p *parser) dropOtherDialects(n *yaml.Node, what string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if hint, ok := otherDialects[strings.ToLower(k.Value)]; ok {
			if hint != "" {
				hint += "; "
			}
			p.add(k.Line, "%s: no dialect %q for a variant (%svariants are postgres, mysql and sqlite)", what, k.Value, hint)
			continue
		}
		out.Content = append(out.Content, k, n.Content[i+1])
	}
	return &out
}

// checkForms checks that every dialect of the file has SQL.
func (p *parser) checkForms(st *Statement, n *yaml.Node, f map[string]*yaml.Node, what string) {
	if st.Form("") != nil || n.Kind != yaml.MappingNode {
		return
	}
	var missing []string
	for _, d := range p.dialects {
		if f[d] == nil {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		p.add(n.Line, "%s: sql missing (and no variant for %s)", what, strings.Join(missing, ", "))
	}
}

// form reads one SQL text and analyzes it.
func (p *parser) form(n *yaml.Node, dialect, what string) Form {
	label := what
	if dialect != "" {
		label += " (" + dialect + ")"
	}
	fm := Form{Dialect: dialect, line: n.Line}
	sql, ok := p.scalar(n, label)
	if !ok {
		return fm
	}
	if strings.ContainsFunc(sql, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }) {
		p.add(n.Line, "%s: control characters in SQL", label)
		return fm
	}
	a := analyze(sql, dialect)
	for _, e := range a.errs {
		p.add(n.Line, "%s: %s", label, e)
	}
	for _, w := range a.warns {
		p.warn(n.Line, "%s: %s", label, w)
	}
	fm.SQL = strings.TrimRightFunc(sql[:a.end], unicode.IsSpace)
	fm.refs = a.refs
	for _, r := range a.refs {
		fm.Slots = append(fm.Slots, Slot{Name: r.Name, Param: -1})
		fm.lines = append(fm.lines, refLine(n, sql, r.Start))
	}
	fm.writes, fm.opaque, fm.columns = a.writes, a.opaque, a.columns()
	return fm
}

// refLine is the line of the byte at off of n's text: exact in a literal
// block (|), the scalar's own line otherwise (YAML folds the others' line
// breaks).
func refLine(n *yaml.Node, text string, off int) int {
	if n.Style&yaml.LiteralStyle != 0 {
		return n.Line + 1 + strings.Count(text[:off], "\n")
	}
	if n.Style&yaml.FoldedStyle != 0 {
		return n.Line + 1
	}
	return n.Line
}
