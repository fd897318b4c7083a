package fileio

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// ErrInvalidValue is wrapped by every error of the parsers in this package
// (ParsePattern, ParseSize, ParseCapacity, ParseReadMix, ParseRW), so that a
// caller can tell a bad value from another failure with errors.Is. Its text
// is not repeated in their messages, which name the value and what is wanted.
var ErrInvalidValue = errors.New("invalid value")

// invalidf returns an error with the formatted message that wraps
// ErrInvalidValue.
func invalidf(format string, args ...any) error {
	return invalidValue(fmt.Sprintf(format, args...))
}

type invalidValue string

func (e invalidValue) Error() string { return string(e) }
func (e invalidValue) Unwrap() error { return ErrInvalidValue }

// Limits of a Pattern, checked by ParsePattern.
const (
	MaxThreads = 1024     // t: threads (fio's numjobs)
	MaxDepth   = 4096     // o: outstanding I/Os per thread (fio's iodepth)
	MinBlock   = 512      // b: smallest block, one sector
	MaxBlock   = 64 << 20 // b: largest block, 64 MiB
)

// Pattern is the seed study's pattern notation
// "t<threads> o<outstanding I/Os per thread> b<block size>", e.g. "t1 o32 b16k":
// 1 thread keeping 32 I/Os of 16 KiB in flight. In fio's terms Threads is
// numjobs, Depth is iodepth and Block is bs.
type Pattern struct {
	Threads int   // 1..MaxThreads
	Depth   int   // outstanding I/Os per thread, 1..MaxDepth
	Block   int64 // bytes, a multiple of 512 in MinBlock..MaxBlock
}

// ParsePattern parses the pattern notation: whitespace-separated tokens in any
// order, case-insensitive, each of t, o and b exactly once. t and o take a
// whole number; b takes a size as ParseSize reads it (binary: b16k is 16384
// bytes). Every problem is reported at once in one error wrapping
// ErrInvalidValue.
func ParsePattern(s string) (Pattern, error) {
	var p Pattern
	var problems []string
	seen := map[byte]string{}
	for _, tok := range strings.Fields(s) {
		key := asciiLower(tok[0])
		val := tok[1:]
		if key != 't' && key != 'o' && key != 'b' {
			problems = append(problems, fmt.Sprintf("token %q: want t<threads>, o<outstanding I/Os per thread> or b<block size>", tok))
			continue
		}
		if prev, dup := seen[key]; dup {
			problems = append(problems, fmt.Sprintf("token %q: %c given twice (already %q)", tok, key, prev))
			continue
		}
		seen[key] = tok
		if val == "" {
			problems = append(problems, fmt.Sprintf("token %q: %c needs a value with no space, e.g. %s", tok, key, patternExample(key)))
			continue
		}
		switch key {
		case 't':
			n, ok := parseCount(val, MaxThreads)
			if !ok {
				problems = append(problems, fmt.Sprintf("token %q: threads must be a whole number 1..%d", tok, MaxThreads))
			}
			p.Threads = n
		case 'o':
			n, ok := parseCount(val, MaxDepth)
			if !ok {
				problems = append(problems, fmt.Sprintf("token %q: outstanding I/Os per thread must be a whole number 1..%d", tok, MaxDepth))
			}
			p.Depth = n
		case 'b':
			n, err := ParseSize(val)
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("token %q: %v", tok, err))
			case n < MinBlock || n > MaxBlock || n%MinBlock != 0:
				problems = append(problems, fmt.Sprintf("token %q: block size %s must be a multiple of 512 bytes from 512 to 64m (e.g. b4k, b16k, b2m)", tok, FormatSize(n)))
			default:
				p.Block = n
			}
		}
	}
	for _, key := range []byte{'t', 'o', 'b'} {
		if _, ok := seen[key]; !ok {
			problems = append(problems, fmt.Sprintf("missing %s", patternExample(key)))
		}
	}
	if len(problems) > 0 {
		return Pattern{}, invalidf("pattern %q: %s", s, strings.Join(problems, "; "))
	}
	return p, nil
}

func patternExample(key byte) string {
	switch key {
	case 't':
		return "t<threads> (e.g. t1)"
	case 'o':
		return "o<outstanding I/Os per thread> (e.g. o32)"
	default:
		return "b<block size> (e.g. b16k)"
	}
}

// parseCount parses ASCII digits (no sign) as a number in 1..max.
func parseCount(s string, max int) (int, bool) {
	if !allDigits(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		return 0, false
	}
	return n, true
}

// String returns the canonical notation, e.g. "t1 o32 b16k", "t4 o1 b2m",
// "t1 o8 b1536": the block in the largest binary unit (k, m, g, ...) that
// holds it exactly, or in bytes without a unit. ParsePattern(p.String())
// returns p for every valid p.
func (p Pattern) String() string {
	return fmt.Sprintf("t%d o%d b%s", p.Threads, p.Depth, fioSize(p.Block))
}

// binaryUnits are the unit letters of sizes, each 1024 times the one before.
const binaryUnits = "kmgtp"

// fioSize writes n in fio's shorthand: "16k", "2m", "1536".
func fioSize(n int64) string {
	s, u := largestExactUnit(n)
	if u < 0 {
		return strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(s, 10) + string(binaryUnits[u])
}

// largestExactUnit returns n divided by the largest power of 1024 (up to
// 1024^5) that divides it, and that power's index into binaryUnits, or
// (n, -1) when n is 0 or no power divides it.
func largestExactUnit(n int64) (int64, int) {
	u := -1
	for n != 0 && n%1024 == 0 && u < len(binaryUnits)-1 {
		n /= 1024
		u++
	}
	return n, u
}

// FormatSize writes a size in bytes for reports: in the largest binary unit
// that holds it exactly ("16KiB", "2MiB", "20GiB"), else in bytes ("1536B",
// "0B"). It never rounds, so ParseSize(FormatSize(n)) == n for n >= 0; the
// price is that 1.5 GiB is written "1536MiB".
func FormatSize(n int64) string {
	s, u := largestExactUnit(n)
	if u < 0 {
		return strconv.FormatInt(n, 10) + "B"
	}
	return strconv.FormatInt(s, 10) + strings.ToUpper(binaryUnits[u:u+1]) + "iB"
}

// ParseSize parses a block or file size in bytes as fio writes them: a number
// with an optional unit. The number is ASCII digits with an optional decimal
// fraction ("1.5k"), allowed only when the result is a whole number of bytes.
// The unit is k, m, g, t or p, optionally followed by b, i or ib ("4k", "4kb",
// "4KiB" and "4KB" are all 4096), in any case; b or no unit means bytes.
//
// All units are binary (1k = 1024), as fio reads k, kb, m, mb, ... with its
// default kb_base=1024. Note that fio in that default mode reads the IEC
// forms (kib, mib, ...) as decimal, for compatibility with old scripts;
// ParseSize reads them as binary, as IEC defines them and as FormatSize
// writes them. Vendors' decimal capacities belong to ParseCapacity.
//
// Negative numbers, signs, thousands separators, unknown units, fractions of
// a byte and values above 2^63-1 are rejected with an error wrapping
// ErrInvalidValue. Zero is returned as 0: whether it is allowed is the
// caller's decision.
func ParseSize(s string) (int64, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, invalidf("size %q: %s; want a number with an optional unit k, m, g, t or p (binary: 1k = 1024 bytes), e.g. 16k or 20g", s, err)
	}
	mult, ok := sizeUnit(unit)
	if !ok {
		return 0, invalidf("size %q: unknown unit %q; want k, m, g, t or p (also written kb, KiB, ...; binary: 1k = 1024 bytes), or b or none for bytes", s, unit)
	}
	n, err := num.times(mult)
	if err != nil {
		return 0, invalidf("size %q: %s", s, err)
	}
	return n, nil
}

// sizeUnit returns the multiplier of a ParseSize unit.
func sizeUnit(unit string) (int64, bool) {
	u := asciiLowerString(unit)
	if u == "" || u == "b" {
		return 1, true
	}
	i := strings.IndexByte(binaryUnits, u[0])
	if i < 0 {
		return 0, false
	}
	switch u[1:] {
	case "", "b", "i", "ib":
		return int64(1) << (10 * (i + 1)), true
	}
	return 0, false
}

// number is a non-negative decimal numeral: the digits of its integer part
// and of its fraction.
type number struct {
	whole, frac string
}

// String writes the number back as it was given, e.g. "1.92".
func (n number) String() string {
	if n.frac == "" {
		return n.whole
	}
	return n.whole + "." + n.frac
}

// splitNumber splits s (surrounding white space ignored) into its leading
// number and the unit after it (spaces between the two ignored). The error
// says what is wrong with the number, without naming s.
func splitNumber(s string) (number, string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return number{}, "", errors.New("empty")
	}
	if t[0] == '-' {
		return number{}, "", errors.New("negative values are not allowed")
	}
	end := 0
	for end < len(t) && (isDigit(t[end]) || t[end] == '.') {
		end++
	}
	numeral, unit := t[:end], strings.TrimLeft(t[end:], " \t")
	whole, frac, hasDot := strings.Cut(numeral, ".")
	switch {
	case numeral == "":
		return number{}, "", fmt.Errorf("%q does not start with a digit", t)
	case whole == "" || (hasDot && frac == ""):
		return number{}, "", fmt.Errorf("%q is not a number: write digits on both sides of the point, e.g. 0.5", numeral)
	case strings.Contains(frac, "."):
		return number{}, "", fmt.Errorf("%q is not a number: more than one point", numeral)
	case unit != "" && (unit[0] == ',' || unit[0] == '_' || unit[0] == '\'' || isDigit(unit[0])):
		return number{}, "", fmt.Errorf("%q is not a number: write it without separators", t)
	}
	return number{whole: whole, frac: frac}, unit, nil
}

// times returns the number times mult, exactly; an error when that is not a
// whole number or does not fit in an int64.
func (n number) times(mult int64) (int64, error) {
	v, ok := new(big.Int).SetString(n.whole+n.frac, 10)
	if !ok { // cannot happen: splitNumber checked the digits
		return 0, errors.New("not a number")
	}
	v.Mul(v, big.NewInt(mult))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(n.frac))), nil)
	q, r := new(big.Int).QuoRem(v, den, new(big.Int))
	if !q.IsInt64() {
		return 0, errors.New("too large: more than 2^63-1 bytes (8 EiB)")
	}
	if r.Sign() != 0 {
		exact := new(big.Rat).SetFrac(v, den).FloatString(len(n.frac)) // exact: den is 10^len(frac)
		return 0, fmt.Errorf("%s bytes is not a whole number of bytes", strings.TrimRight(exact, "0"))
	}
	return q.Int64(), nil
}

// ParseReadMix parses a comma-separated list of read percentages, e.g.
// "100,90,70" for 100 % read, then 90/10 and 70/30 read/write (fio's
// rwmixread). Each is a whole number 0..100; there is at least one and none
// twice. The order is kept. Every problem is reported at once in one error
// wrapping ErrInvalidValue.
func ParseReadMix(s string) ([]int, error) {
	var mix []int
	var problems []string
	seen := map[int]bool{}
	if strings.TrimSpace(s) == "" {
		problems = append(problems, "empty")
	} else {
		for i, part := range strings.Split(s, ",") {
			p := strings.TrimSpace(part)
			n, err := strconv.Atoi(p)
			switch {
			case p == "":
				problems = append(problems, fmt.Sprintf("item %d is empty", i+1))
			case !allDigits(p) || err != nil || n > 100:
				problems = append(problems, fmt.Sprintf("%q is not a whole number 0..100", p))
			case seen[n]:
				problems = append(problems, fmt.Sprintf("%d given twice", n))
			default:
				seen[n] = true
				mix = append(mix, n)
			}
		}
	}
	if len(problems) > 0 {
		return nil, invalidf("read mix %q: %s (want read percentages 0..100 separated by commas, e.g. 100,90,70)", s, strings.Join(problems, "; "))
	}
	return mix, nil
}

// DefaultReadPct is the read percentage ParseRW returns for a mixed rw value:
// fio's default rwmixread of 50.
const DefaultReadPct = 50

// ParseRW parses a value of fio's --rw (alias --readwrite): read, write,
// randread, randwrite, rw or readwrite (sequential mixed) and randrw (random
// mixed), case-insensitive. random tells random from sequential offsets;
// readPct is 100 for reads, 0 for writes, and DefaultReadPct for the mixed
// values, which also return mixed = true: their read share comes from
// --rwmixread. trim, randtrim, trimwrite and randtrimwrite are not supported,
// nor fio's ":<n>" offset modifiers; the error wraps ErrInvalidValue.
func ParseRW(rw string) (random bool, readPct int, mixed bool, err error) {
	v := asciiLowerString(strings.TrimSpace(rw))
	switch v {
	case "read":
		return false, 100, false, nil
	case "write":
		return false, 0, false, nil
	case "randread":
		return true, 100, false, nil
	case "randwrite":
		return true, 0, false, nil
	case "rw", "readwrite":
		return false, DefaultReadPct, true, nil
	case "randrw":
		return true, DefaultReadPct, true, nil
	case "trim", "randtrim", "trimwrite", "randtrimwrite":
		return false, 0, false, invalidf("rw %q: trims (discards) are not supported; want read, write, randread, randwrite, rw, readwrite or randrw", rw)
	}
	if base, mod, ok := strings.Cut(v, ":"); ok {
		if _, _, _, err := ParseRW(base); err == nil {
			return false, 0, false, invalidf("rw %q: fio's offset modifier %q is not supported; write %q alone", rw, ":"+mod, base)
		}
	}
	return false, 0, false, invalidf("rw %q: want read, write, randread, randwrite, rw, readwrite or randrw", rw)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// asciiLower lowers A-Z only: units and keys are ASCII, and Unicode case
// folding would let look-alikes such as the Kelvin sign pass for k.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func asciiLowerString(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = asciiLower(b[i])
	}
	return string(b)
}
