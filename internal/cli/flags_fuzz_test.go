package cli

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzSeconds: --time and the other duration flags never panic, keep their
// value on an error, never turn a number of seconds into a duration of the
// other sign, and print a duration that sets the same value again.
func FuzzSeconds(f *testing.F) {
	for _, s := range []string{"30s", "2m", "1h", "60", "1.5", "-1s", "0", "soon", "NaN", "Inf", "-Inf", "1e400",
		"9999999999999", "9223372036", "9223372037", "-9223372037", "0x10", " 5 ", "1_000", "1e-12", "5ms", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		const sentinel = 7 * time.Second
		d := sentinel
		s := seconds{&d}
		if err := s.Set(v); err != nil {
			if d != sentinel {
				t.Fatalf("Set(%q) failed (%v) but changed the value to %v", v, err, d)
			}
			return
		}
		if n, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			if math.IsNaN(n) || math.IsInf(n, 0) {
				t.Fatalf("Set(%q) accepted %v as %v", v, n, d)
			}
			if (n > 0 && d < 0) || (n < 0 && d > 0) {
				t.Fatalf("Set(%q) = %v: the sign flipped", v, d)
			}
			if want := n * 1e9; math.Abs(float64(d)-want) > math.Max(1, math.Abs(want)*1e-9) {
				t.Fatalf("Set(%q) = %v, want %v ns", v, d, want)
			}
		}
		back := time.Duration(0)
		if err := (seconds{&back}).Set(s.String()); err != nil || back != d {
			t.Fatalf("Set(%q) = %v, printed %q, which sets %v, %v", v, d, s.String(), back, err)
		}
	})
}

// FuzzRateValue: --rate never panics; an accepted rate is finite and not
// negative, a multiple (Nx) above 0 and only then; its text sets it again.
func FuzzRateValue(f *testing.F) {
	for _, s := range []string{"50", "12.5", "2x", "1.5X", "0", "0x", "-5", "abc", "x", "NaN", "Infx", "1e308x", " 3x ", "0x10", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		var r rateValue
		if err := r.Set(v); err != nil {
			if r != (rateValue{}) {
				t.Fatalf("Set(%q) failed (%v) but set %+v", v, err, r)
			}
			return
		}
		for _, x := range []float64{r.perSec, r.multiple} {
			if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("Set(%q) = %+v", v, r)
			}
		}
		isMult := strings.HasSuffix(strings.ToLower(strings.TrimSpace(v)), "x")
		if isMult != (r.multiple > 0) || (isMult && r.perSec != 0) {
			t.Fatalf("Set(%q) = %+v: a multiple is given as Nx with N above 0", v, r)
		}
		var again rateValue
		if err := again.Set(r.String()); err != nil || again != r {
			t.Fatalf("Set(%q) = %+v, printed %q, which sets %+v, %v", v, r, r.String(), again, err)
		}
	})
}

// FuzzBaselineValue: --baseline-rate never panics; it is auto, or a finite
// rate above 0, and prints as something that sets it again.
func FuzzBaselineValue(f *testing.F) {
	for _, s := range []string{"auto", "AUTO", "20", "0", "-3", "1e-300", "NaN", "Inf", "abc", " 7.5 ", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c := &commonFlags{baseline: 9}
		b := baselineValue{c}
		if err := b.Set(v); err != nil {
			if c.baseline != 9 || c.baselineAuto {
				t.Fatalf("Set(%q) failed (%v) but set %v %v", v, err, c.baseline, c.baselineAuto)
			}
			return
		}
		if !c.baselineAuto && !(c.baseline > 0 && !math.IsInf(c.baseline, 0)) {
			t.Fatalf("Set(%q) = %v", v, c.baseline)
		}
		c2 := &commonFlags{}
		if err := (baselineValue{c2}).Set(b.String()); err != nil || c2.baseline != c.baseline || c2.baselineAuto != c.baselineAuto {
			t.Fatalf("Set(%q) printed %q, which sets %v %v, %v", v, b.String(), c2.baseline, c2.baselineAuto, err)
		}
	})
}

// FuzzIntList: sweep's --threads and --instances lists never panic; an
// accepted list rises strictly and holds whole numbers from 1.
func FuzzIntList(f *testing.F) {
	for _, s := range []string{"1,2,4,8", "8,4,4,1", "0", "-1", "1,x", "", ",", " 2 , 3 ", "99999999999999999999", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := intList(s)
		if err != nil {
			if ns != nil {
				t.Fatalf("intList(%q) = %v with %v", s, ns, err)
			}
			return
		}
		if len(ns) == 0 || ns[0] < 1 || !slices.IsSorted(ns) || len(slices.Compact(slices.Clone(ns))) != len(ns) {
			t.Fatalf("intList(%q) = %v", s, ns)
		}
	})
}

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

// FuzzTargetFromEnv: --target env:VAR never panics and never puts the
// variable's value in an error.
func FuzzTargetFromEnv(f *testing.F) {
	for _, s := range [][2]string{{"env:T", "postgres://u:SECRETPW@h/db"}, {"env:", "x"}, {"env:T", ""}, {"env:T", "env:T"},
		{"env:1", "SECRETPW"}, {"postgres://u@h/db", "SECRETPW"}, {"env:T-1", "SECRETPW"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, raw, value string) {
		if value != "" {
			value = "V{" + value + "}" // never a word of a message
		}
		if strings.Contains(raw, "V{") {
			t.Skip()
		}
		v, err := targetFromEnv(raw, func(string) string { return value })
		if err != nil {
			if v != "" || value != "" && strings.Contains(err.Error(), value) {
				t.Fatalf("targetFromEnv(%q) = %q, %v", raw, v, err)
			}
			return
		}
		if _, ref := strings.CutPrefix(raw, "env:"); ref && v != strings.TrimSpace(value) || !ref && v != raw {
			t.Fatalf("targetFromEnv(%q) = %q", raw, v)
		}
	})
}
