package workfile

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/pgbenchscript"
)

// maxDepth is how deep if may nest in a transaction.
const maxDepth = 16

// steps reads a transaction's steps in order into its Statements and the
// body of its Actions: a statement, or a mapping whose key is set, sleep
// or if (whose then and else are steps too). names are the statements'
// names so far.
func (p *parser) steps(items []*yaml.Node, tx *Transaction, names map[string]bool, depth int) {
	what := "transaction " + tx.Name
	for _, item := range items {
		if step := stepKey(item); step != "" {
			if len(tx.Actions) >= maxStatements {
				p.add(item.Line, "%s: more than %d steps", what, maxStatements)
				return
			}
			p.step(step, item, tx, names, depth)
			continue
		}
		st := p.statement(item, tx.Name, len(tx.Statements))
		if names[st.Name] {
			p.add(st.Line, "%s: statement %s named twice", what, st.Name)
		}
		names[st.Name] = true
		tx.Actions = append(tx.Actions, Action{Kind: Run, Line: st.Line, Stmt: len(tx.Statements), Var: -1})
		tx.Statements = append(tx.Statements, st)
	}
}

// stepKey is the key that makes a list item a step other than a
// statement: set, sleep or if.
func stepKey(n *yaml.Node) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "set" || k == "sleep" || k == "if" {
			return k
		}
	}
	return ""
}

// step reads one set, sleep or if.
func (p *parser) step(key string, n *yaml.Node, tx *Transaction, names map[string]bool, depth int) {
	what := "transaction " + tx.Name + ", " + key
	switch key {
	case "set":
		f := p.fields(n, "set", "set")
		for _, kv := range p.pairs(f["set"], what) {
			if len(tx.Actions) >= maxStatements {
				p.add(kv[0].Line, "transaction %s: more than %d steps", tx.Name, maxStatements)
				return
			}
			name := p.name(kv[0], what)
			if !validVar(name) {
				p.add(kv[0].Line, "%s: %q: a variable's name is letters, digits and _, not starting with a digit", what, name)
				continue
			}
			a := Action{Kind: Set, Line: kv[0].Line, Var: p.program().Slot(name)}
			a.Expr, a.refs = p.expr(kv[1], what+" "+name)
			a.name = name
			tx.Actions = append(tx.Actions, a)
		}
	case "sleep":
		f := p.fields(n, "sleep", "sleep")
		d, ok := p.duration(f["sleep"], what)
		if ok && d < 0 {
			p.add(n.Line, "%s: %s is negative", what, d)
		}
		tx.Actions = append(tx.Actions, Action{Kind: Sleep, Line: n.Line, Var: -1, Micros: max(d, 0).Microseconds()})
	case "if":
		f := p.fields(n, "if", "if", "then", "else")
		if depth >= maxDepth {
			p.add(n.Line, "%s: nested more than %d deep", what, maxDepth)
			return
		}
		br := len(tx.Actions)
		a := Action{Kind: Branch, Line: n.Line, Var: -1}
		a.Expr, a.refs = p.expr(f["if"], what)
		tx.Actions = append(tx.Actions, a)
		if f["then"] == nil {
			p.add(n.Line, "%s: then missing (the steps to run when the condition holds)", what)
		}
		p.steps(p.list(f["then"], what+": then"), tx, names, depth+1)
		if f["else"] != nil {
			jump := len(tx.Actions)
			tx.Actions = append(tx.Actions, Action{Kind: Jump, Line: n.Line, Var: -1})
			tx.Actions[br].Jump = len(tx.Actions)
			p.steps(p.list(f["else"], what+": else"), tx, names, depth+1)
			tx.Actions[jump].Jump = len(tx.Actions)
		} else {
			tx.Actions[br].Jump = len(tx.Actions)
		}
	}
}

// program is the file's script variables, made at the first set or if.
func (p *parser) program() *pgbenchscript.Program {
	if p.vars == nil {
		p.vars = pgbenchscript.NewProgram()
	}
	return p.vars
}

// expr reads an expression in pgbench's language and the names it reads.
func (p *parser) expr(n *yaml.Node, what string) (*pgbenchscript.Expr, []ref) {
	text, ok := p.scalar(n, what)
	if !ok {
		return nil, nil
	}
	var refs []ref
	e, err := p.program().ParseExpr(text, func(name string, slot int) {
		refs = append(refs, ref{name: name, slot: slot, line: n.Line})
	})
	if err != nil {
		p.add(n.Line, "%s: %v: %s", what, err, strings.Join(strings.Fields(text), " "))
		return nil, nil
	}
	return e, refs
}

// ref is a name an expression reads.
type ref struct {
	name       string
	slot, line int
}

// validVar reports whether name can be a variable in pgbench's language.
func validVar(name string) bool {
	return name != "" && !(name[0] >= '0' && name[0] <= '9') && !slices.ContainsFunc([]byte(name), func(c byte) bool {
		return !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	})
}
