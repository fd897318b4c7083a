package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The formatting every renderer shares: numbers, times and words as a
// sentence or a table gives them.

// Num formats a throughput for a sentence: whole numbers from 100 up, three
// significant digits below.
func Num(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Ms formats a response time for a sentence: three significant digits up
// to 100 ms ("4.11 ms", "68.9 ms"), whole milliseconds up to 10 s ("689
// ms", "9974 ms"), seconds from 10 s on ("12.9 s").
func Ms(v float64) string {
	switch {
	case math.Abs(v) >= 10000:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + " s"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " ms"
}

// trimFloat writes s to one decimal, without a trailing ".0".
func trimFloat(s float64) string {
	out := fmt.Sprintf("%.1f", s)
	return strings.TrimSuffix(out, ".0")
}

// seconds writes a duration in seconds: "10 s", "2.5 s".
func seconds(s float64) string { return trimFloat(s) + " s" }

// pct writes a percentage to one decimal, or n/a when it is not a number.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f %%", x)
}

// plural is the verb's ending for n subjects: "agrees", "agree".
func plural(n int) string {
	if n > 1 {
		return ""
	}
	return "s"
}

// count is n and the noun, in the plural unless n is 1: "1 thread",
// "8 threads". The noun must make its plural with an s.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// upper capitalises the first letter of a sentence.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// stepAt names the step at x of a sweep over axis in a sentence: "4
// threads", "8 instances", "800/s" (a rate), "2x" (multiples of a
// baseline rate: the axis "multiple").
func stepAt(axis string, x float64) string {
	v := strconv.FormatFloat(x, 'g', -1, 64)
	switch axis {
	case "rate":
		return v + "/s"
	case "multiple":
		return v + "x"
	case "":
		return v
	}
	return v + " " + axis
}

// Grouped formats a throughput with thousands separators: whole numbers
// from 100 up ("7,436"), three significant digits below ("42.5").
func Grouped(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) < 100 {
		return Num(v)
	}
	return thousands(strconv.FormatFloat(v, 'f', 0, 64))
}

// number writes v with the given digits after the point, or n/a when it is
// not a finite number.
func number(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
}

// trimZeros drops a decimal number's trailing zeros and point ("2.50" ->
// "2.5", "3.0" -> "3"), and the sign of "-0".
func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}

// thousands puts commas into the integer part of a decimal number.
func thousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	frac := ""
	if i := strings.Index(s, "."); i >= 0 {
		s, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String() + frac
}
