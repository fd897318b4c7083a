package pgbenchscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the type of a Value, as pgbench types its values.
type Kind uint8

const (
	Null Kind = iota
	Bool
	Int
	Double
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "boolean"
	case Int:
		return "int"
	case Double:
		return "double"
	}
	return "null"
}

// Value is the result of an expression: NULL, a boolean, a 64-bit integer
// or a double. It is a plain value: copying it allocates nothing.
type Value struct {
	K Kind
	B bool
	I int64
	F float64
}

// IntValue, DoubleValue and BoolValue make values.
func IntValue(i int64) Value      { return Value{K: Int, I: i} }
func DoubleValue(f float64) Value { return Value{K: Double, F: f} }
func BoolValue(b bool) Value      { return Value{K: Bool, B: b} }

// AppendText appends v as pgbench writes a variable into SQL or a
// parameter: an integer in decimal, a double with 15 significant digits
// (%.15g), a boolean as true or false, NULL as NULL.
func (v Value) AppendText(b []byte) []byte {
	switch v.K {
	case Int:
		return strconv.AppendInt(b, v.I, 10)
	case Double:
		return appendG15(b, v.F)
	case Bool:
		if v.B {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	}
	return append(b, "NULL"...)
}

// String is AppendText's text.
func (v Value) String() string { return string(v.AppendText(nil)) }

// appendG15 formats f as C's printf("%.15g") does.
func appendG15(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', 15, 64)
}

// Truth is pgbench's valueTruth: what \if and CASE test. Non-zero numbers
// are true; NULL is false.
func (v Value) Truth() bool {
	switch v.K {
	case Bool:
		return v.B
	case Int:
		return v.I != 0
	case Double:
		return v.F != 0
	}
	return false
}

func (v Value) toBool() (bool, error) {
	if v.K == Bool {
		return v.B, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.K)
}

// toInt is pgbench's coerceToInt: a double is rounded to the nearest
// integer (half to even, as rint does).
func (v Value) toInt() (int64, error) {
	switch v.K {
	case Int:
		return v.I, nil
	case Double:
		d := math.RoundToEven(v.F)
		if math.IsNaN(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0 {
			return 0, fmt.Errorf("double to int overflow for %g", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.K)
}

func (v Value) toDouble() (float64, error) {
	switch v.K {
	case Double:
		return v.F, nil
	case Int:
		return float64(v.I), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.K)
}

// ParseText reads a variable's text (from \gset, \aset or -D) as pgbench
// does when an expression uses it: null, a boolean (true, yes, on, false,
// no, off and their prefixes), an integer, or a double.
func ParseText(s string) (Value, error) {
	if s == "" {
		return Value{}, fmt.Errorf("empty value")
	}
	n := len(s)
	switch {
	case strings.EqualFold(s, "null"):
		return Value{}, nil
	case prefixFold("true", s, n) || prefixFold("yes", s, n) || strings.EqualFold(s, "on"):
		return BoolValue(true), nil
	case prefixFold("false", s, n) || prefixFold("no", s, n) || strings.EqualFold(s, "off") || strings.EqualFold(s, "of"):
		return BoolValue(false), nil
	case isAnInt(s):
		i, err := strconv.ParseInt(strings.TrimLeft(s, " \t\n\r\f\v"), 10, 64)
		if err != nil {
			return Value{}, fmt.Errorf("value %q is out of range for type bigint", s)
		}
		return IntValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return Value{}, fmt.Errorf("malformed value %q", s)
	}
	return DoubleValue(f), nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// prefixFold: s is a non-empty prefix of word, ignoring case (pgbench
// accepts y, ye, yes...).
func prefixFold(word, s string, n int) bool {
	return n <= len(word) && strings.EqualFold(word[:n], s)
}

// isAnInt: optional leading spaces, an optional sign, then digits only.
func isAnInt(s string) bool {
	s = strings.TrimLeft(s, " \t\n\r\f\v")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
