// Package shard splits one run over several load generators (run --shard
// I/N) deterministically: every generator computes its own part from the
// same options, with no coordinator.
//
// A run drives Threads virtual users on each of Instances instances. When
// there are at least as many instances as shards, each shard drives every
// virtual user of a contiguous range of instances; otherwise each shard
// drives a contiguous range of every instance's virtual users. Virtual users
// keep their number in the whole run, so the shards together drive what one
// process would: the same TPC-C terminals on the same home warehouses, the
// same random streams for a given seed.
package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Spec is one shard of a run: Index of Count, Index counted from 0 (as
// Kubernetes' JOB_COMPLETION_INDEX is).
type Spec struct {
	Index, Count int
}

// MaxCount bounds the shards of one run.
const MaxCount = 10000

// Parse reads "I/N": shard I (0 .. N-1) of N.
func Parse(s string) (Spec, error) {
	is, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Spec{}, fmt.Errorf("invalid shard %q: want I/N, shard I (from 0) of N, e.g. 0/4", s)
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return Spec{}, fmt.Errorf("invalid shard %q: want I/N with whole numbers, e.g. 0/4", s)
	case n < 1 || n > MaxCount:
		return Spec{}, fmt.Errorf("invalid shard %q: the count must be 1..%d", s, MaxCount)
	case i < 0 || i >= n:
		return Spec{}, fmt.Errorf("invalid shard %q: the index counts from 0, so it must be 0..%d", s, n-1)
	}
	return Spec{Index: i, Count: n}, nil
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Part is what one shard drives.
type Part struct {
	// ByInstance: the run is split by instances (else by virtual users).
	ByInstance bool
	// FirstInstance, Instances: the instances this shard drives.
	FirstInstance, Instances int
	// FirstVU, VUs: the virtual users it drives on each of them.
	FirstVU, VUs int
}

// Split returns shard s's part of a run of instances instances with vus
// virtual users each. Every shard must get work: with fewer instances than
// shards, there must be at least as many virtual users per instance as
// shards.
func (s Spec) Split(instances, vus int) (Part, error) {
	if instances < 1 || vus < 1 {
		return Part{}, fmt.Errorf("nothing to shard: %d instance(s) of %d virtual user(s)", instances, vus)
	}
	if instances >= s.Count {
		first, n := Share(s.Index, s.Count, instances)
		return Part{ByInstance: true, FirstInstance: first, Instances: n, FirstVU: 0, VUs: vus}, nil
	}
	if vus < s.Count {
		return Part{}, fmt.Errorf("%d shards of %d instance(s) with %d virtual user(s) each: every shard needs an instance or a virtual user of its own (give at least %d threads, or fewer shards)",
			s.Count, instances, vus, s.Count)
	}
	first, n := Share(s.Index, s.Count, vus)
	return Part{FirstInstance: 0, Instances: instances, FirstVU: first, VUs: n}, nil
}

// Share is shard i's contiguous share of total things split over n shards,
// in order: the shares cover 0..total-1 and differ by at most one.
func Share(i, n, total int) (first, count int) {
	first = total * i / n
	return first, total*(i+1)/n - first
}
