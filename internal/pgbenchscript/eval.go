package pgbenchscript

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/rightsize/rightsize/internal/datagen"
)

// variable is one slot of a State: a value, or a text not yet read as a
// value (from \gset, \aset or -D), or nothing yet.
type variable struct {
	defined bool
	val     Value
	text    []byte // the text form, when hasText
	hasText bool
	parsed  bool // val holds text's value
}

// State is one client's variables and random stream: a virtual user's.
// It is not safe for concurrent use.
type State struct {
	prog *Program
	vars []variable
	rnd  *datagen.Source
	// Debug receives debug()'s lines; nil discards them.
	Debug io.Writer
	// Script and Command locate the command being evaluated (debug()).
	Script, Command int
}

// NewState returns a client's state: every variable undefined but the
// predefined ones the caller sets, drawing from rnd.
func (p *Program) NewState(rnd *datagen.Source) *State {
	return &State{prog: p, vars: make([]variable, len(p.names)), rnd: rnd}
}

// SetInt sets a variable to an integer.
func (s *State) SetInt(slot int, i int64) {
	v := &s.vars[slot]
	v.defined, v.val, v.hasText, v.parsed = true, IntValue(i), false, false
}

// SetValue sets a variable to a value.
func (s *State) SetValue(slot int, val Value) {
	v := &s.vars[slot]
	v.defined, v.val, v.hasText, v.parsed = true, val, false, false
}

// SetText sets a variable to a text, read as a value only when an
// expression uses it (pgbench's string variables); b is copied.
func (s *State) SetText(slot int, b []byte) {
	v := &s.vars[slot]
	v.defined, v.hasText, v.parsed = true, true, false
	v.text = append(v.text[:0], b...)
}

// Defined reports whether a variable has a value.
func (s *State) Defined(slot int) bool { return s.vars[slot].defined }

// Get returns a variable's value (its text read as a value).
func (s *State) Get(slot int) (Value, error) {
	v := &s.vars[slot]
	if !v.defined {
		return Value{}, fmt.Errorf("undefined variable %q", s.prog.names[slot])
	}
	if v.hasText && !v.parsed {
		val, err := ParseText(unsafe.String(unsafe.SliceData(v.text), len(v.text)))
		if err != nil {
			return Value{}, fmt.Errorf("malformed variable %q value: %q", s.prog.names[slot], v.text)
		}
		v.val, v.parsed = val, true
	}
	return v.val, nil
}

// AppendParam appends a variable as a statement's parameter gets it: its
// text as set, or its value as pgbench writes it (Value.AppendText).
// null reports a NULL value (no text).
func (s *State) AppendParam(b []byte, slot int) (out []byte, null bool, err error) {
	v := &s.vars[slot]
	switch {
	case !v.defined:
		return b, false, fmt.Errorf("undefined variable %q", s.prog.names[slot])
	case v.hasText:
		return append(b, v.text...), false, nil
	case v.val.K == Null:
		return b, true, nil
	}
	return v.val.AppendText(b), false, nil
}

// Arg returns a variable as a statement's parameter takes it: its text as
// set (from \gset, \aset or -D), else its value. The text is valid until
// the variable is set again.
// isText tells which of the two it is.
func (s *State) Arg(slot int) (v Value, text []byte, isText bool, err error) {
	x := &s.vars[slot]
	switch {
	case !x.defined:
		return Value{}, nil, false, fmt.Errorf("undefined variable %q", s.prog.names[slot])
	case x.hasText:
		return Value{}, x.text, true, nil
	}
	return x.val, nil, false, nil
}

// Eval evaluates e with the state's variables.
func (s *State) Eval(e *Expr) (Value, error) { return s.eval(e, e.root) }

func (s *State) eval(e *Expr, i int) (Value, error) {
	n := &e.nodes[i]
	switch n.kind {
	case nConst:
		return n.val, nil
	case nVar:
		return s.Get(n.slot)
	}
	switch n.f {
	case fAnd, fOr:
		a, err := s.eval(e, n.args[0])
		if err != nil || a.K == Null {
			return Value{}, err
		}
		ba, err := a.toBool()
		if err != nil {
			return Value{}, err
		}
		if n.f == fAnd && !ba || n.f == fOr && ba {
			return BoolValue(ba), nil
		}
		b, err := s.eval(e, n.args[1])
		if err != nil || b.K == Null {
			return Value{}, err
		}
		bb, err := b.toBool()
		return BoolValue(bb), err
	case fCase:
		for k := 0; k+1 < len(n.args); k += 2 {
			c, err := s.eval(e, n.args[k])
			if err != nil {
				return Value{}, err
			}
			if c.Truth() {
				return s.eval(e, n.args[k+1])
			}
		}
		return s.eval(e, n.args[len(n.args)-1])
	case fLeast, fGreatest:
		return s.extremum(e, n)
	}
	var args [3]Value
	hasNull := false
	for k, a := range n.args {
		v, err := s.eval(e, a)
		if err != nil {
			return Value{}, err
		}
		args[k] = v
		hasNull = hasNull || v.K == Null
	}
	if hasNull && n.f != fIs && n.f != fDebug {
		return Value{}, nil
	}
	return s.apply(n.f, &args)
}

// extremum is least and greatest: double when any argument is a double.
func (s *State) extremum(e *Expr, n *node) (Value, error) {
	double := false
	var vals [maxArgs]Value
	for k, a := range n.args {
		v, err := s.eval(e, a)
		if err != nil {
			return Value{}, err
		}
		if v.K == Null {
			return Value{}, nil
		}
		vals[k] = v
		double = double || v.K == Double
	}
	least := n.f == fLeast
	if double {
		x, err := vals[0].toDouble()
		if err != nil {
			return Value{}, err
		}
		for _, v := range vals[1:len(n.args)] {
			d, err := v.toDouble()
			if err != nil {
				return Value{}, err
			}
			if least == (d < x) && d != x {
				x = d
			}
		}
		return DoubleValue(x), nil
	}
	x, err := vals[0].toInt()
	if err != nil {
		return Value{}, err
	}
	for _, v := range vals[1:len(n.args)] {
		d, err := v.toInt()
		if err != nil {
			return Value{}, err
		}
		if least && d < x || !least && d > x {
			x = d
		}
	}
	return IntValue(x), nil
}

var errDivZero = errors.New("division by zero")

// apply runs a function of up to three evaluated arguments, none NULL but
// for IS and debug.
func (s *State) apply(f fn, a *[3]Value) (Value, error) {
	switch f {
	case fAdd, fSub, fMul, fDiv, fMod, fEq, fNe, fLe, fLt:
		return arith(f, a[0], a[1])
	case fBitAnd, fBitOr, fBitXor, fShl, fShr:
		return bitwise(f, a)
	case fNot:
		b, err := a[0].toBool()
		return BoolValue(!b), err
	case fPi:
		return DoubleValue(math.Pi), nil
	case fAbs:
		switch a[0].K {
		case Int:
			if a[0].I < 0 {
				return IntValue(-a[0].I), nil
			}
			return a[0], nil
		case Double:
			return DoubleValue(math.Abs(a[0].F)), nil
		}
		return Value{}, fmt.Errorf("cannot coerce %s to double", a[0].K)
	case fDebug:
		if s.Debug != nil {
			fmt.Fprintf(s.Debug, "debug(script=%d,command=%d): %s %s\n", s.Script, s.Command+1, a[0].K, a[0])
		}
		return a[0], nil
	case fDouble, fSqrt, fLn, fExp:
		return doubleFunc(f, a)
	case fInt:
		i, err := a[0].toInt()
		return IntValue(i), err
	case fPow:
		l, err := a[0].toDouble()
		if err != nil {
			return Value{}, err
		}
		r, err := a[1].toDouble()
		if err != nil {
			return Value{}, err
		}
		return DoubleValue(math.Pow(l, r)), nil
	case fIs:
		// pgbench's IS: the same type and the same boolean word.
		return BoolValue(a[0].K == a[1].K && (a[0].K != Bool || a[0].B == a[1].B)), nil
	case fHashMurmur2, fHashFNV1a:
		return hash(f, a)
	case fPermute:
		return permute(a)
	case fRandom, fRandomGaussian, fRandomExponential, fRandomZipfian:
		return s.random(f, a)
	}
	return Value{}, fmt.Errorf("unknown function %d", f)
}

// bitwise applies a bitwise operator or shift to two integers.
func bitwise(f fn, a *[3]Value) (Value, error) {
	l, err := a[0].toInt()
	if err != nil {
		return Value{}, err
	}
	r, err := a[1].toInt()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fBitAnd:
		return IntValue(l & r), nil
	case fBitOr:
		return IntValue(l | r), nil
	case fBitXor:
		return IntValue(l ^ r), nil
	case fShl:
		return IntValue(l << uint(r&63)), nil
	}
	return IntValue(l >> uint(r&63)), nil
}

// doubleFunc applies double(), sqrt(), ln() or exp() to a double.
func doubleFunc(f fn, a *[3]Value) (Value, error) {
	d, err := a[0].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fSqrt:
		d = math.Sqrt(d)
	case fLn:
		d = math.Log(d)
	case fExp:
		d = math.Exp(d)
	}
	return DoubleValue(d), nil
}

// hash applies hash_murmur2() or hash_fnv1a() to a value and a seed.
func hash(f fn, a *[3]Value) (Value, error) {
	v, err := a[0].toInt()
	if err != nil {
		return Value{}, err
	}
	seed, err := a[1].toInt()
	if err != nil {
		return Value{}, err
	}
	if f == fHashMurmur2 {
		return IntValue(HashMurmur2(v, seed)), nil
	}
	return IntValue(HashFNV1a(v, seed)), nil
}

// permute is permute(i, size, seed).
func permute(a *[3]Value) (Value, error) {
	var x [3]int64
	for k := range x {
		v, err := a[k].toInt()
		if err != nil {
			return Value{}, err
		}
		x[k] = v
	}
	if x[1] <= 0 {
		return Value{}, errors.New("permute size parameter must be greater than zero")
	}
	return IntValue(Permute(x[0], x[1], x[2])), nil
}

// random draws from one of the random functions' distributions.
func (s *State) random(f fn, a *[3]Value) (Value, error) {
	lo, err := a[0].toInt()
	if err != nil {
		return Value{}, err
	}
	hi, err := a[1].toInt()
	if err != nil {
		return Value{}, err
	}
	span, err := randRange(lo, hi)
	if err != nil {
		return Value{}, err
	}
	if f == fRandom {
		return IntValue(uniform(s.rnd, lo, span)), nil
	}
	p, err := a[2].toDouble()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fRandomGaussian:
		if p < minGaussian {
			return Value{}, paramError("gaussian parameter must be at least %f (not %f)", minGaussian, p)
		}
		return IntValue(gaussian(s.rnd, lo, span, p)), nil
	case fRandomZipfian:
		if p < minZipfian || p > maxZipfian {
			return Value{}, paramError("zipfian parameter must be in range [%.3f, %.0f] (not %f)", minZipfian, maxZipfian, p)
		}
		return IntValue(zipfian(s.rnd, lo, span, p)), nil
	}
	if p <= 0 {
		return Value{}, paramError("exponential parameter must be greater than zero (not %f)", p)
	}
	return IntValue(exponential(s.rnd, lo, span, p)), nil
}

// arith is the overloaded arithmetic and comparison: double when either
// side is a double (but for %, always integer), integer with overflow
// checks otherwise.
func arith(f fn, l, r Value) (Value, error) {
	if (l.K == Double || r.K == Double) && f != fMod {
		ld, err := l.toDouble()
		if err != nil {
			return Value{}, err
		}
		rd, err := r.toDouble()
		if err != nil {
			return Value{}, err
		}
		switch f {
		case fAdd:
			return DoubleValue(ld + rd), nil
		case fSub:
			return DoubleValue(ld - rd), nil
		case fMul:
			return DoubleValue(ld * rd), nil
		case fDiv:
			return DoubleValue(ld / rd), nil
		case fEq:
			return BoolValue(ld == rd), nil
		case fNe:
			return BoolValue(ld != rd), nil
		case fLe:
			return BoolValue(ld <= rd), nil
		}
		return BoolValue(ld < rd), nil
	}
	li, err := l.toInt()
	if err != nil {
		return Value{}, err
	}
	ri, err := r.toInt()
	if err != nil {
		return Value{}, err
	}
	switch f {
	case fAdd:
		v, o := addOverflow(li, ri)
		if o {
			return Value{}, errors.New("bigint add out of range")
		}
		return IntValue(v), nil
	case fSub:
		v, o := subOverflow(li, ri)
		if o {
			return Value{}, errors.New("bigint sub out of range")
		}
		return IntValue(v), nil
	case fMul:
		v, o := mulOverflow(li, ri)
		if o {
			return Value{}, errors.New("bigint mul out of range")
		}
		return IntValue(v), nil
	case fEq:
		return BoolValue(li == ri), nil
	case fNe:
		return BoolValue(li != ri), nil
	case fLe:
		return BoolValue(li <= ri), nil
	case fLt:
		return BoolValue(li < ri), nil
	}
	if ri == 0 {
		return Value{}, errDivZero
	}
	if ri == -1 {
		if f == fMod {
			return IntValue(0), nil
		}
		if li == math.MinInt64 {
			return Value{}, errors.New("bigint div out of range")
		}
		return IntValue(-li), nil
	}
	if f == fDiv {
		return IntValue(li / ri), nil
	}
	return IntValue(li % ri), nil
}
