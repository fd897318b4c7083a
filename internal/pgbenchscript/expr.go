package pgbenchscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fn is a function or operator of pgbench's expressions.
type fn uint8

const (
	fAdd fn = iota
	fSub
	fMul
	fDiv
	fMod
	fAbs
	fLeast
	fGreatest
	fDebug
	fPi
	fSqrt
	fLn
	fExp
	fInt
	fDouble
	fRandom
	fRandomGaussian
	fRandomExponential
	fRandomZipfian
	fPow
	fAnd
	fOr
	fNot
	fBitAnd
	fBitOr
	fBitXor
	fShl
	fShr
	fEq
	fNe
	fLe
	fLt
	fIs
	fCase
	fHashMurmur2
	fHashFNV1a
	fPermute
)

// functions are the functions a script may call by name, with their
// number of arguments: -1 means one or more; hash and permute take an
// optional last seed (default_seed), written as min and max.
var functions = map[string]struct {
	f        fn
	min, max int
}{
	"abs":                {fAbs, 1, 1},
	"least":              {fLeast, 1, maxArgs},
	"greatest":           {fGreatest, 1, maxArgs},
	"debug":              {fDebug, 1, 1},
	"pi":                 {fPi, 0, 0},
	"sqrt":               {fSqrt, 1, 1},
	"ln":                 {fLn, 1, 1},
	"exp":                {fExp, 1, 1},
	"int":                {fInt, 1, 1},
	"double":             {fDouble, 1, 1},
	"random":             {fRandom, 2, 2},
	"random_gaussian":    {fRandomGaussian, 3, 3},
	"random_exponential": {fRandomExponential, 3, 3},
	"random_zipfian":     {fRandomZipfian, 3, 3},
	"pow":                {fPow, 2, 2},
	"power":              {fPow, 2, 2},
	"mod":                {fMod, 2, 2},
	"hash":               {fHashMurmur2, 1, 2},
	"hash_murmur2":       {fHashMurmur2, 1, 2},
	"hash_fnv1a":         {fHashFNV1a, 1, 2},
	"permute":            {fPermute, 2, 3},
}

// maxArgs is the most arguments a function takes (pgbench's MAX_FARGS).
const maxArgs = 16

type nodeKind uint8

const (
	nConst nodeKind = iota
	nVar
	nFunc
)

type node struct {
	kind nodeKind
	f    fn
	val  Value
	slot int
	args []int // indices of the argument nodes
}

// Expr is a compiled expression: its nodes, the root last.
type Expr struct {
	nodes []node
	root  int
	text  string
}

// String is the expression's text as written.
func (e *Expr) String() string { return e.text }

// token kinds of the expression lexer.
type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tDouble
	tVar
	tIdent
	tOp
)

type token struct {
	kind tokKind
	text string
	col  int // from 0
	i    uint64
	f    float64
}

// exprError is a problem found in an expression, at a column of it.
type exprError struct {
	msg string
	col int // -1: unknown
}

func (e *exprError) Error() string {
	if e.col >= 0 {
		return fmt.Sprintf("%s at column %d", e.msg, e.col+1)
	}
	return e.msg
}

func lexExpr(s string) ([]token, error) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			i++
		case c == '\\' && (strings.HasPrefix(s[i:], "\\\n") || strings.HasPrefix(s[i:], "\\\r\n")):
			i += 2 // a continuation line
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			isDouble := false
			if j < len(s) && s[j] == '.' {
				isDouble = true
				j++
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					isDouble = true
					for k < len(s) && isDigit(s[k]) {
						k++
					}
					j = k
				}
			}
			t := token{text: s[i:j], col: i}
			if isDouble {
				f, err := strconv.ParseFloat(t.text, 64)
				if err != nil && !isRangeErr(err) {
					return nil, &exprError{"invalid number " + t.text, i}
				}
				t.kind, t.f = tDouble, f
			} else {
				u, err := strconv.ParseUint(t.text, 10, 64)
				if err != nil || u > 1<<63 {
					return nil, &exprError{"bigint constant overflow (" + t.text + ")", i}
				}
				t.kind, t.i = tInt, u
			}
			out = append(out, t)
			i = j
		case c == ':':
			j := i + 1
			if j < len(s) && isNameStart(s[j]) {
				j++
				for j < len(s) && isNameChar(s[j]) {
					j++
				}
				out = append(out, token{kind: tVar, text: s[i+1 : j], col: i})
				i = j
				continue
			}
			return nil, &exprError{"unexpected character \":\"", i}
		case isNameStart(c):
			j := i + 1
			for j < len(s) && isNameChar(s[j]) {
				j++
			}
			out = append(out, token{kind: tIdent, text: s[i:j], col: i})
			i = j
		default:
			for _, op := range []string{"<>", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "&", "|", "#", "~", "<", ">", "=", "(", ")", ","} {
				if strings.HasPrefix(s[i:], op) {
					out = append(out, token{kind: tOp, text: op, col: i})
					i += len(op)
					goto next
				}
			}
			return nil, &exprError{fmt.Sprintf("unexpected character %q", string(c)), i}
		next:
		}
	}
	return append(out, token{kind: tEOF, col: len(s)}), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}
func isNameChar(c byte) bool { return isNameStart(c) || isDigit(c) }

// Precedence levels, lowest first, as pgbench's grammar declares them.
const (
	pOr = iota + 1
	pAnd
	pNot
	pIs
	pCmp
	pBit
	pAdd
	pMul
	pUnary
)

// parser builds an Expr from tokens; vars resolves a variable's name to
// its slot.
type parser struct {
	toks  []token
	pos   int
	depth int // nesting of prefix (parentheses, unary signs, function arguments)
	nodes []node
	vars  func(name string) int
}

// parseExpr parses s, a whole expression (\set's or \if's).
func parseExpr(s string, vars func(string) int) (*Expr, error) {
	toks, err := lexExpr(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, vars: vars}
	root, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.syntax(t)
	}
	return &Expr{nodes: p.nodes, root: root, text: strings.TrimSpace(s)}, nil
}

func (p *parser) peek() token { return p.toks[p.pos] }
func (p *parser) next() token { t := p.toks[p.pos]; p.pos++; return t }

func (p *parser) syntax(t token) error {
	if t.kind == tEOF {
		return &exprError{"syntax error: unexpected end of expression", t.col}
	}
	return &exprError{fmt.Sprintf("syntax error: unexpected %q", t.text), t.col}
}

func (p *parser) add(n node) int {
	p.nodes = append(p.nodes, n)
	return len(p.nodes) - 1
}

func (p *parser) call(f fn, args ...int) int {
	return p.add(node{kind: nFunc, f: f, args: args})
}

func (p *parser) constant(v Value) int { return p.add(node{kind: nConst, val: v}) }

// keyword reports whether t is the keyword kw (case-insensitive).
func keyword(t token, kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

func isKeyword(t token) bool {
	for _, kw := range []string{"and", "or", "not", "is", "isnull", "notnull", "case", "when", "then", "else", "end", "null", "true", "false"} {
		if keyword(t, kw) {
			return true
		}
	}
	return false
}

// binary returns the infix operator at t and its level, if t is one.
func binary(t token) (op string, level int, ok bool) {
	switch {
	case keyword(t, "or"):
		return "or", pOr, true
	case keyword(t, "and"):
		return "and", pAnd, true
	case keyword(t, "is"), keyword(t, "isnull"), keyword(t, "notnull"):
		return strings.ToLower(t.text), pIs, true
	case t.kind != tOp:
		return "", 0, false
	}
	switch t.text {
	case "<", ">", "=", "<=", ">=", "<>", "!=":
		return t.text, pCmp, true
	case "|", "#", "&", "<<", ">>":
		return t.text, pBit, true
	case "+", "-":
		return t.text, pAdd, true
	case "*", "/", "%":
		return t.text, pMul, true
	}
	return "", 0, false
}

// expr parses an expression whose operators bind at least as tightly as
// min (precedence climbing over pgbench's levels).
func (p *parser) expr(min int) (int, error) {
	left, err := p.prefix()
	if err != nil {
		return 0, err
	}
	lastNonAssoc := 0 // the non-associative level just used (comparison, IS)
	for {
		t := p.peek()
		op, level, ok := binary(t)
		if !ok || level < min {
			return left, nil
		}
		if (level == pCmp || level == pIs) && lastNonAssoc == level {
			return 0, p.syntax(t)
		}
		p.next()
		if level == pIs {
			left, err = p.is(op, left)
			if err != nil {
				return 0, err
			}
			lastNonAssoc = pIs
			continue
		}
		right, err := p.expr(level + 1)
		if err != nil {
			return 0, err
		}
		switch op {
		case "or":
			left = p.call(fOr, left, right)
		case "and":
			left = p.call(fAnd, left, right)
		case "<":
			left = p.call(fLt, left, right)
		case ">":
			left = p.call(fLt, right, left)
		case "<=":
			left = p.call(fLe, left, right)
		case ">=":
			left = p.call(fLe, right, left)
		case "=":
			left = p.call(fEq, left, right)
		case "<>", "!=":
			left = p.call(fNe, left, right)
		case "|":
			left = p.call(fBitOr, left, right)
		case "#":
			left = p.call(fBitXor, left, right)
		case "&":
			left = p.call(fBitAnd, left, right)
		case "<<":
			left = p.call(fShl, left, right)
		case ">>":
			left = p.call(fShr, left, right)
		case "+":
			left = p.call(fAdd, left, right)
		case "-":
			left = p.call(fSub, left, right)
		case "*":
			left = p.call(fMul, left, right)
		case "/":
			left = p.call(fDiv, left, right)
		case "%":
			left = p.call(fMod, left, right)
		}
		if level == pCmp {
			lastNonAssoc = pCmp
		} else {
			lastNonAssoc = 0
		}
	}
}

// is parses what follows IS (NULL, NOT NULL, TRUE, NOT FALSE...), or
// applies ISNULL and NOTNULL.
func (p *parser) is(op string, left int) (int, error) {
	switch op {
	case "isnull":
		return p.call(fIs, left, p.constant(Value{})), nil
	case "notnull":
		return p.call(fNot, p.call(fIs, left, p.constant(Value{}))), nil
	}
	not := false
	if keyword(p.peek(), "not") {
		p.next()
		not = true
	}
	t := p.next()
	var v Value
	switch {
	case keyword(t, "null"):
	case keyword(t, "true"):
		v = BoolValue(true)
	case keyword(t, "false"):
		v = BoolValue(false)
	default:
		return 0, p.syntax(t)
	}
	n := p.call(fIs, left, p.constant(v))
	if not {
		n = p.call(fNot, n)
	}
	return n, nil
}

// prefix parses an operand: a constant, a variable, a function call, a
// CASE, a parenthesised expression, or a prefix operator and its operand.
// MaxDepth is how deeply an expression may nest (parentheses, unary
// signs, function calls, CASE): the depth of pgbench's parser stack
// (bison's YYMAXDEPTH), past which pgbench says "memory exhausted".
const MaxDepth = 10000

func (p *parser) prefix() (int, error) {
	t := p.next()
	if p.depth++; p.depth > MaxDepth {
		return 0, &exprError{fmt.Sprintf("memory exhausted: the expression nests more than %d levels deep", MaxDepth), t.col}
	}
	defer func() { p.depth-- }()
	switch t.kind {
	case tInt:
		if t.i > math.MaxInt64 {
			return 0, &exprError{"bigint constant overflow (" + t.text + ")", t.col}
		}
		return p.constant(IntValue(int64(t.i))), nil
	case tDouble:
		return p.constant(DoubleValue(t.f)), nil
	case tVar:
		return p.add(node{kind: nVar, slot: p.vars(t.text)}), nil
	case tOp:
		switch t.text {
		case "(":
			n, err := p.expr(0)
			if err != nil {
				return 0, err
			}
			if c := p.next(); c.kind != tOp || c.text != ")" {
				return 0, p.syntax(c)
			}
			return n, nil
		case "+":
			return p.expr(pUnary)
		case "-":
			// -9223372036854775808 is the one integer whose absolute value
			// does not fit.
			if n := p.peek(); n.kind == tInt && n.i == 1<<63 {
				p.next()
				return p.constant(IntValue(math.MinInt64)), nil
			}
			operand, err := p.expr(pUnary)
			if err != nil {
				return 0, err
			}
			return p.call(fSub, p.constant(IntValue(0)), operand), nil
		case "~":
			operand, err := p.expr(pBit + 1)
			if err != nil {
				return 0, err
			}
			return p.call(fBitXor, p.constant(IntValue(-1)), operand), nil
		}
	case tIdent:
		switch {
		case keyword(t, "null"):
			return p.constant(Value{}), nil
		case keyword(t, "true"):
			return p.constant(BoolValue(true)), nil
		case keyword(t, "false"):
			return p.constant(BoolValue(false)), nil
		case keyword(t, "not"):
			operand, err := p.expr(pNot)
			if err != nil {
				return 0, err
			}
			return p.call(fNot, operand), nil
		case keyword(t, "case"):
			return p.caseExpr()
		case isKeyword(t):
			return 0, p.syntax(t)
		}
		return p.function(t)
	}
	return 0, p.syntax(t)
}

// function parses a call: name ( [expr {, expr}] ).
func (p *parser) function(name token) (int, error) {
	if c := p.next(); c.kind != tOp || c.text != "(" {
		return 0, p.syntax(c)
	}
	var args []int
	if c := p.peek(); c.kind == tOp && c.text == ")" {
		p.next()
	} else {
		for {
			a, err := p.expr(0)
			if err != nil {
				return 0, err
			}
			args = append(args, a)
			c := p.next()
			if c.kind == tOp && c.text == ")" {
				break
			}
			if c.kind != tOp || c.text != "," {
				return 0, p.syntax(c)
			}
		}
	}
	def, ok := functions[strings.ToLower(name.text)]
	if !ok {
		return 0, &exprError{"unexpected function name (" + name.text + ")", name.col}
	}
	switch {
	case def.min == 1 && def.max == maxArgs && len(args) == 0:
		return 0, &exprError{"at least one argument expected (" + name.text + ")", name.col}
	case len(args) > maxArgs:
		return 0, &exprError{fmt.Sprintf("too many function arguments, maximum is %d (%s)", maxArgs, name.text), name.col}
	case len(args) < def.min || len(args) > def.max:
		return 0, &exprError{"unexpected number of arguments (" + name.text + ")", name.col}
	}
	if (def.f == fHashMurmur2 || def.f == fHashFNV1a || def.f == fPermute) && len(args) < def.max {
		args = append(args, p.add(node{kind: nVar, slot: p.vars("default_seed")}))
	}
	return p.call(def.f, args...), nil
}

// caseExpr parses CASE WHEN c THEN v {WHEN c THEN v} [ELSE e] END (the
// CASE keyword read): its arguments are c1, v1, c2, v2, ..., else.
func (p *parser) caseExpr() (int, error) {
	var args []int
	for keyword(p.peek(), "when") {
		p.next()
		c, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		if t := p.next(); !keyword(t, "then") {
			return 0, p.syntax(t)
		}
		v, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		args = append(args, c, v)
	}
	if len(args) == 0 {
		return 0, p.syntax(p.peek())
	}
	els := -1
	if keyword(p.peek(), "else") {
		p.next()
		e, err := p.expr(0)
		if err != nil {
			return 0, err
		}
		els = e
	}
	if t := p.next(); !keyword(t, "end") {
		return 0, p.syntax(t)
	}
	if els < 0 {
		els = p.constant(Value{})
	}
	return p.call(fCase, append(args, els)...), nil
}
