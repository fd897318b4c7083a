package fileio

import (
	"strings"
	"testing"
)

func TestFioFlagsOverrideThePattern(t *testing.T) {
	o := DefaultOptions()
	o.NumJobs, o.IODepth, o.BS, o.RW, o.RWMixRead = 2, 8, "64k", "randrw", 70
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := o.pattern.String(); got != "t2 o8 b64k" || !o.random || len(o.mixes) != 1 || o.mixes[0] != 70 {
		t.Errorf("pattern %s random %v mixes %v, want t2 o8 b64k, random, [70]", got, o.random, o.mixes)
	}
	o = DefaultOptions()
	o.RW = "read"
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.random || o.mixes[0] != 100 {
		t.Errorf("--rw read: random %v mixes %v", o.random, o.mixes)
	}
}

func TestOptionErrorsAllAtOnce(t *testing.T) {
	o := DefaultOptions()
	o.PatternText, o.Read, o.Engine, o.Capacity, o.Random, o.Sequential = "t0 o1", "101", "aio", "2", true, true
	err := o.Validate()
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"t0", "read", "engine", "capacity", "--random and --sequential"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	o = DefaultOptions()
	o.IODepth = 100000
	if err := o.Validate(); err == nil {
		t.Error("--iodepth 100000 accepted")
	}
}
