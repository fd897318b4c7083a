package runplan

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
		s := Seconds{&d}
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
		if err := (Seconds{&back}).Set(s.String()); err != nil || back != d {
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
		var r Rate
		if err := (rateFlag{&r}).Set(v); err != nil {
			if r != (Rate{}) {
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
		var again Rate
		if err := (rateFlag{&again}).Set(r.String()); err != nil || again != r {
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
		c := &Flags{Baseline: Baseline{PerSec: 9}}
		b := baselineFlag{&c.Baseline}
		if err := b.Set(v); err != nil {
			if c.Baseline.PerSec != 9 || c.Baseline.Auto {
				t.Fatalf("Set(%q) failed (%v) but set %v %v", v, err, c.Baseline.PerSec, c.Baseline.Auto)
			}
			return
		}
		if !c.Baseline.Auto && !(c.Baseline.PerSec > 0 && !math.IsInf(c.Baseline.PerSec, 0)) {
			t.Fatalf("Set(%q) = %v", v, c.Baseline.PerSec)
		}
		c2 := &Flags{}
		if err := (baselineFlag{&c2.Baseline}).Set(b.String()); err != nil || c2.Baseline.PerSec != c.Baseline.PerSec || c2.Baseline.Auto != c.Baseline.Auto {
			t.Fatalf("Set(%q) printed %q, which sets %v %v, %v", v, b.String(), c2.Baseline.PerSec, c2.Baseline.Auto, err)
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
		ns, err := IntList(s)
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
		v, err := TargetFromEnv(raw, func(string) string { return value })
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
