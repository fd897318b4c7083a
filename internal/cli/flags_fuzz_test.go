package cli

import (
	"math"
	"testing"
)

// FuzzPercentValue: history compare's --fail-if-slower never panics and
// holds a finite percentage from 0 that it prints and sets again.
func FuzzPercentValue(f *testing.F) {
	for _, s := range []string{"5%", "5", "0", "-1%", "abc", "NaN%", "Inf", " 12.5 % ", "%", "1e400%", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var p percentValue
		if err := p.Set(v); err != nil {
			if p.set {
				t.Fatalf("Set(%q) failed (%v) but set %v", v, err, p.pct)
			}
			return
		}
		if !p.set || p.pct < 0 || math.IsNaN(p.pct) || math.IsInf(p.pct, 0) {
			t.Fatalf("Set(%q) = %+v", v, p)
		}
		var q percentValue
		if err := q.Set(p.String()); err != nil || q != p {
			t.Fatalf("Set(%q) printed %q, which sets %+v, %v", v, p.String(), q, err)
		}
	})
}
