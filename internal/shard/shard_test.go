package shard

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"0/1", Spec{0, 1}, ""},
		{"3/8", Spec{3, 8}, ""},
		{" 7 / 8 ", Spec{7, 8}, ""},
		{"8/8", Spec{}, "0..7"},
		{"-1/4", Spec{}, "0..3"},
		{"1/0", Spec{}, "count must be"},
		{"3", Spec{}, "want I/N"},
		{"a/4", Spec{}, "whole numbers"},
		{"1/99999", Spec{}, "count must be"},
	} {
		got, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, %v; want an error with %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestSplitCoversEveryVirtualUserOnce: for every shape, the shards' parts
// cover each (instance, virtual user) of the run exactly once.
func TestSplitCoversEveryVirtualUserOnce(t *testing.T) {
	for n := 1; n <= 9; n++ {
		for inst := 1; inst <= 10; inst++ {
			for vus := 1; vus <= 12; vus++ {
				seen := map[[2]int]int{}
				ok := true
				for i := range n {
					p, err := Spec{i, n}.Split(inst, vus)
					if err != nil {
						if inst >= n || vus >= n {
							t.Fatalf("%d/%d of %d×%d: %v", i, n, inst, vus, err)
						}
						ok = false
						break
					}
					if p.Instances < 1 || p.VUs < 1 {
						t.Fatalf("%d/%d of %d×%d: an empty part %+v", i, n, inst, vus, p)
					}
					for a := p.FirstInstance; a < p.FirstInstance+p.Instances; a++ {
						for b := p.FirstVU; b < p.FirstVU+p.VUs; b++ {
							seen[[2]int{a, b}]++
						}
					}
				}
				if !ok {
					continue
				}
				if len(seen) != inst*vus {
					t.Fatalf("%d shards of %d×%d cover %d pairs", n, inst, vus, len(seen))
				}
				for k, c := range seen {
					if c != 1 || k[0] >= inst || k[1] >= vus {
						t.Fatalf("%d shards of %d×%d: %v driven %d times", n, inst, vus, k, c)
					}
				}
			}
		}
	}
}

func TestSplitByWhat(t *testing.T) {
	p, _ := Spec{3, 8}.Split(1, 300) // TPC-C: 300 terminals, one database
	if p.ByInstance || p.FirstVU != 112 || p.VUs != 38 {
		t.Errorf("3/8 of 300 VUs: %+v, want VUs 112..149", p)
	}
	p, _ = Spec{1, 4}.Split(32, 8) // 32 instances over 4 generators
	if !p.ByInstance || p.FirstInstance != 8 || p.Instances != 8 || p.VUs != 8 {
		t.Errorf("1/4 of 32 instances: %+v", p)
	}
	if _, err := (Spec{0, 4}).Split(2, 3); err == nil || !strings.Contains(err.Error(), "at least 4 threads") {
		t.Errorf("4 shards of 2×3: %v", err)
	}
}

// FuzzParse: no input panics; an accepted one is a valid shard that prints
// back to itself and splits any run it can without an empty part.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0/1", "3/8", " 7 / 8 ", "8/8", "-1/4", "1/0", "3", "a/4", "9999/10000", "1/99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := Parse(s)
		if err != nil {
			return
		}
		if sp.Count < 1 || sp.Count > MaxCount || sp.Index < 0 || sp.Index >= sp.Count {
			t.Fatalf("Parse(%q) = %+v", s, sp)
		}
		if back, err := Parse(sp.String()); err != nil || back != sp {
			t.Fatalf("Parse(%q) = %v; its String %q parses to %v, %v", s, sp, sp.String(), back, err)
		}
		if p, err := sp.Split(1, sp.Count); err != nil || p.VUs != 1 || p.FirstVU != sp.Index {
			t.Fatalf("%v of 1×%d: %+v, %v", sp, sp.Count, p, err)
		}
	})
}
