package k8sjob

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
)

// Quantity is a Kubernetes resource quantity in the canonical form the API
// writes it in ("2", "1500m", "2Gi", "1e3"): ParseQuantity reads one as
// k8s.io/apimachinery's resource.ParseQuantity does and keeps the string
// that resource.Quantity's String gives. e2e/k8sjob_test.go checks the two
// agree, on the documented forms and on generated ones.
type Quantity string

// quantity formats, as resource.Format.
const (
	decimalExponent = iota // 1e3
	binarySI               // 1Ki, 1Gi
	decimalSI              // 1k, 1G, 500m
)

var (
	errFormat  = errors.New("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
	errSuffix  = errors.New("unable to parse quantity's suffix")
	errNumeric = errors.New("unable to parse quantity's numeric part")
)

// quantityValue is a parsed quantity: its value, exactly (mant * 10^exp),
// and its format; s is the string to write when the input was already
// canonical ("" to make the canonical form).
type quantityValue struct {
	neg    bool
	mant   *big.Int
	exp    int64
	format int
	s      string
}

// ParseQuantity reads str as a Kubernetes quantity and returns its
// canonical form and its sign (-1, 0 or 1).
func ParseQuantity(str string) (Quantity, int, error) {
	q, err := parseQuantity(str)
	if err != nil {
		return "", 0, err
	}
	sign := q.mant.Sign()
	if q.neg {
		sign = -sign
	}
	return Quantity(q.String()), sign, nil
}

// parseQuantity is resource.ParseQuantity on exact values.
func parseQuantity(str string) (quantityValue, error) {
	if str == "" {
		return quantityValue{}, errFormat
	}
	if str == "0" {
		return quantityValue{mant: new(big.Int), format: decimalSI, s: str}, nil
	}
	positive, value, num, denom, suf, err := splitQuantity(str)
	if err != nil {
		return quantityValue{}, err
	}
	base, exponent, format, ok := interpretSuffix(suf)
	if !ok {
		return quantityValue{}, errSuffix
	}

	// The fast path of resource.ParseQuantity: a value that fits an int64,
	// whose string is kept when it is canonical already.
	precision, scale, mantissa := int32(0), int32(0), int64(1)
	switch format {
	case decimalExponent, decimalSI:
		scale = exponent
		precision = 18 - int32(len(num)+len(denom))
	case binarySI:
		if exponent >= 0 && len(denom) == 0 {
			mantissa <<= uint64(exponent)
			precision = 15 - int32(len(num)) - int32(float32(exponent)*3/10) - 1
		} else {
			precision = -1
		}
	}
	if precision >= 0 {
		scale -= int32(len(denom))
		if scale >= -9 {
			shifted := num + denom
			v, err := strconv.ParseInt(shifted, 10, 64)
			if err != nil {
				return quantityValue{}, errNumeric
			}
			if result, ok := int64Multiply(v, mantissa); ok {
				q := quantityValue{neg: !positive && result != 0, mant: big.NewInt(result), exp: int64(scale), format: format}
				switch format {
				case binarySI:
					if exponent%10 == 0 && v&0x07 != 0 {
						q.s = str
					}
				default:
					if scale%3 == 0 && !strings.HasSuffix(shifted, "000") && shifted[0] != '0' {
						q.s = str
					}
				}
				return q, nil
			}
		}
	}

	// The exact path.
	neg, mant, exp, ok := parseDecimal(value)
	if !ok {
		return quantityValue{}, errNumeric
	}
	if base == 10 {
		exp += int64(exponent)
	} else {
		mant.Lsh(mant, uint(exponent))
	}
	if mant.Sign() != 0 && exp < -9 {
		// Rounded up to 1n: some resources, however few, are some.
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(-9-exp), nil)
		m, r := new(big.Int).QuoRem(mant, p, new(big.Int))
		if r.Sign() != 0 {
			m.Add(m, big.NewInt(1))
		}
		mant, exp = m, -9
	}
	maxInt64 := big.NewInt(1<<63 - 1)
	if format == binarySI && compareDecimal(mant, exp, maxInt64, 0) > 0 {
		mant, exp = maxInt64, 0
	}
	if format == binarySI && compareDecimal(mant, exp, big.NewInt(1), 0) < 0 && mant.Sign() > 0 {
		format = decimalSI
	}
	return quantityValue{neg: neg && mant.Sign() != 0, mant: mant, exp: exp, format: format}, nil
}

// String is the quantity's canonical form (resource.Quantity's
// CanonicalizeBytes).
func (q quantityValue) String() string {
	if q.s != "" {
		return q.s
	}
	if q.mant.Sign() == 0 {
		return "0"
	}
	sign := ""
	if q.neg {
		sign = "-"
	}
	format := q.format
	var whole *big.Int
	if format == binarySI {
		if compareDecimal(q.mant, q.exp, big.NewInt(1024), 0) < 0 {
			format = decimalSI
		} else {
			var exact bool
			if whole, exact = roundUpToInteger(q.mant, q.exp); !exact {
				format = decimalSI
			}
		}
	}
	if format == binarySI {
		amount, times := removeFactors(whole, big.NewInt(1024))
		suffix := ""
		if times > 0 {
			suffix, _ = binarySuffix(times * 10)
		}
		return sign + amount.String() + suffix
	}
	amount, times := removeFactors(new(big.Int).Set(q.mant), big.NewInt(10))
	exp := q.exp + int64(times)
	for exp%3 != 0 {
		amount.Mul(amount, big.NewInt(10))
		exp--
	}
	suffix := ""
	if format == decimalExponent {
		if exp != 0 {
			suffix = "e" + strconv.FormatInt(int64(int32(exp)), 10)
		}
	} else {
		suffix = decimalSuffix(exp)
	}
	return sign + amount.String() + suffix
}

// splitQuantity is resource's parseQuantityString: the sign, the number
// (value: as written; num and denom: its digits before and after the
// point, num without leading zeros) and the suffix.
func splitQuantity(str string) (positive bool, value, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	for i := pos; ; i++ { // leading zeros
		if i >= end {
			return positive, "0", "0", "", "", nil
		}
		if str[i] != '0' {
			break
		}
		pos++
	}
	digits := func(from int) int {
		i := from
		for i < end && str[i] >= '0' && str[i] <= '9' {
			i++
		}
		return i
	}
	i := digits(pos)
	if i >= end {
		return positive, str, str[pos:], "", "", nil
	}
	num, pos = str[pos:i], i
	if num == "" {
		num = "0"
	}
	if str[pos] == '.' {
		pos++
		i := digits(pos)
		if i >= end {
			return positive, str, num, str[pos:], "", nil
		}
		denom, pos = str[pos:i], i
	}
	value = str[:pos]
	suffixStart := pos
	for i := pos; ; i++ {
		if i >= end {
			return positive, value, num, denom, str[suffixStart:], nil
		}
		if !strings.ContainsAny(str[i:i+1], "eEinumkKMGTP") {
			pos = i
			break
		}
	}
	if str[pos] == '-' || str[pos] == '+' {
		pos++
	}
	if digits(pos) >= end {
		return positive, value, num, denom, str[suffixStart:], nil
	}
	return positive, value, num, denom, "", errFormat
}

// interpretSuffix is resource's suffixer: a suffix's base, exponent and
// format.
func interpretSuffix(s string) (base, exponent int32, format int, ok bool) {
	for e, d := range decimalSuffixes {
		if s == d {
			return 10, int32(e*3 - 9), decimalSI, true
		}
	}
	for e, b := range binarySuffixes {
		if s == b {
			return 2, int32(10 * (e + 1)), binarySI, true
		}
	}
	if len(s) > 1 && (s[0] == 'E' || s[0] == 'e') {
		parsed, err := strconv.ParseInt(s[1:], 10, 64)
		if err != nil {
			return 0, 0, decimalExponent, false
		}
		return 10, int32(parsed), decimalExponent, true
	}
	return 0, 0, decimalExponent, false
}

// decimalSuffixes are the SI suffixes from 10^-9 to 10^18, every third
// power; binarySuffixes those of 2^10 to 2^60, every tenth.
var (
	decimalSuffixes = []string{"n", "u", "m", "", "k", "M", "G", "T", "P", "E"}
	binarySuffixes  = []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
)

// decimalSuffix is the suffix of 10^exp, "" when there is none (as
// resource writes such a quantity: without one).
func decimalSuffix(exp int64) string {
	if i := (exp + 9) / 3; exp >= -9 && i < int64(len(decimalSuffixes)) {
		return decimalSuffixes[i]
	}
	return ""
}

func binarySuffix(exp int32) (string, bool) {
	if i := exp/10 - 1; i >= 0 && int(i) < len(binarySuffixes) {
		return binarySuffixes[i], true
	}
	return "", false
}

// parseDecimal reads [+-]digits[.digits] (a digit at least) as mant *
// 10^exp.
func parseDecimal(s string) (neg bool, mant *big.Int, exp int64, ok bool) {
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false, nil, 0, false
	}
	mant, ok = new(big.Int).SetString(digits, 10)
	return neg, mant, -int64(len(frac)), ok
}

// compareDecimal compares a * 10^ea with b * 10^eb (a, b >= 0).
func compareDecimal(a *big.Int, ea int64, b *big.Int, eb int64) int {
	x, y := new(big.Int).Set(a), new(big.Int).Set(b)
	if ea > eb {
		x.Mul(x, new(big.Int).Exp(big.NewInt(10), big.NewInt(ea-eb), nil))
	} else if eb > ea {
		y.Mul(y, new(big.Int).Exp(big.NewInt(10), big.NewInt(eb-ea), nil))
	}
	return x.Cmp(y)
}

// roundUpToInteger is mant * 10^exp rounded up to an integer, and whether
// that was exact.
func roundUpToInteger(mant *big.Int, exp int64) (*big.Int, bool) {
	if exp >= 0 {
		return new(big.Int).Mul(mant, new(big.Int).Exp(big.NewInt(10), big.NewInt(exp), nil)), true
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(-exp), nil)
	m, r := new(big.Int).QuoRem(mant, p, new(big.Int))
	if r.Sign() == 0 {
		return m, true
	}
	return m.Add(m, big.NewInt(1)), false
}

// removeFactors divides d by f while f divides it, and counts how often.
func removeFactors(d, f *big.Int) (*big.Int, int32) {
	var times int32
	q, m := new(big.Int), new(big.Int)
	for d.Sign() != 0 {
		q.QuoRem(d, f, m)
		if m.Sign() != 0 {
			break
		}
		times++
		d, q = q, d
	}
	return d, times
}

func int64Multiply(a, b int64) (int64, bool) {
	if a == 0 || b == 0 || a == 1 || b == 1 {
		return a * b, true
	}
	if a == -1<<63 || b == -1<<63 {
		return 0, false
	}
	c := a * b
	return c, c/b == a
}
