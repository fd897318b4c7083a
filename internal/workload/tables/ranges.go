package tables

import (
	"strconv"
	"strings"
)

// FormatRanges writes the set indexes of done as ranges: "1-8,10".
func FormatRanges(done []bool) string {
	var b []byte
	for i := 0; i < len(done); i++ {
		if !done[i] {
			continue
		}
		j := i
		for j+1 < len(done) && done[j+1] {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(i), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(j), 10)
		}
		i = j
	}
	return string(b)
}

// ParseRanges reads FormatRanges' output into a set of n; ok is false when
// s is malformed or names an index outside [0, n).
func ParseRanges(s string, n int) (done []bool, count int, ok bool) {
	done = make([]bool, n)
	if s == "" {
		return done, 0, true
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, 0, false
			}
		}
		if a < 0 || b < a || b >= n {
			return nil, 0, false
		}
		for i := a; i <= b; i++ {
			if !done[i] {
				done[i] = true
				count++
			}
		}
	}
	return done, count, true
}
