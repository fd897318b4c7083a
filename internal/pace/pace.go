// Package pace holds pure arrival schedules for open-loop load and think-time
// distributions for closed-loop load.
//
// A Schedule is a sequence of intended start offsets from the start of a phase.
// It knows nothing of clocks: the runner turns offsets into absolute times, so
// that a schedule never drifts when the system under test falls behind and can
// be tested without sleeping.
package pace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is how open-loop starts are spaced.
type Arrival string

const (
	// Constant spaces starts exactly 1/rate apart.
	Constant Arrival = "constant"
	// Poisson draws exponential gaps of mean 1/rate (independent arrivals, as
	// many users acting on their own would produce).
	Poisson Arrival = "poisson"
)

// ParseArrival accepts "constant" or "poisson".
func ParseArrival(s string) (Arrival, error) {
	switch Arrival(s) {
	case Constant, Poisson:
		return Arrival(s), nil
	}
	return "", fmt.Errorf("arrival %q: want constant or poisson", s)
}

// Schedule yields intended start offsets in non-decreasing order. It is not
// safe for concurrent use.
type Schedule interface {
	// Next returns the next intended start, as an offset from the schedule's origin.
	Next() time.Duration
	// Skip consumes every start before until and returns how many there were
	// (starts that were due but never handed out: the runner counts them dropped).
	Skip(until time.Duration) int64
}

// maxOffset is where offsets saturate (about 292 years).
const maxOffset = time.Duration(math.MaxInt64)

// New returns a schedule of rate starts per second. rate must be > 0. seed
// makes Poisson schedules repeatable.
func New(a Arrival, rate float64, seed uint64) (Schedule, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, fmt.Errorf("rate %v: want a positive number of starts per second", rate)
	}
	switch a {
	case Constant, "":
		return &constant{rate: rate}, nil
	case Poisson:
		return &poisson{mean: float64(time.Second) / rate, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, nil
	}
	return nil, fmt.Errorf("arrival %q: want constant or poisson", a)
}

type constant struct {
	rate float64 // starts per second
	n    int64
}

// Next computes round(i / rate) from the index, so rounding never accumulates
// and offsets land on the exact nanosecond.
func (c *constant) Next() time.Duration {
	d := c.at(c.n)
	c.n++
	return d
}

func (c *constant) at(n int64) time.Duration {
	f := math.Round(float64(n) * float64(time.Second) / c.rate)
	if f >= float64(maxOffset) {
		return maxOffset
	}
	return time.Duration(f)
}

// Skip computes the count in closed form: no loop over a long backlog.
func (c *constant) Skip(until time.Duration) int64 {
	// First index at or past until, from the formula, then corrected for rounding.
	n := int64(math.Ceil(float64(until) * c.rate / float64(time.Second)))
	for n > 0 && c.at(n-1) >= until {
		n--
	}
	for c.at(n) < until {
		n++
	}
	if n <= c.n {
		return 0
	}
	skipped := n - c.n
	c.n = n
	return skipped
}

type poisson struct {
	mean float64 // ns
	at   float64
	rng  *rand.Rand
}

func (p *poisson) Next() time.Duration {
	d := maxOffset
	if p.at < float64(maxOffset) {
		d = time.Duration(p.at)
	}
	p.at += p.rng.ExpFloat64() * p.mean
	return d
}

// skipExact bounds the arrivals Skip draws one by one; past it the rest of
// the span is counted by its expected value (rate × time), which the law of
// large numbers makes exact to well under 0.1 % at that count.
const skipExact = 10_000_000

func (p *poisson) Skip(until time.Duration) int64 {
	var n int64
	for p.at < float64(until) {
		if n == skipExact {
			rest := (float64(until) - p.at) / p.mean
			p.at = float64(until)
			return n + int64(math.Round(rest))
		}
		p.at += p.rng.ExpFloat64() * p.mean
		n++
	}
	return n
}

// Think is a think-time distribution for closed-loop virtual users.
type Think struct {
	Mean time.Duration
	// Exponential draws think times from a negative exponential of mean Mean
	// (as TPC-C clause 5.2.5.4 asks); otherwise every think time is Mean.
	Exponential bool
}

// Draw returns one think time using rng (the VU's own source).
func (t Think) Draw(rng *rand.Rand) time.Duration {
	if t.Mean <= 0 {
		return 0
	}
	if !t.Exponential {
		return t.Mean
	}
	// Truncate at 10 means, as TPC-C does, so one draw cannot stall a VU.
	x := rng.ExpFloat64()
	if x > 10 {
		x = 10
	}
	return time.Duration(x * float64(t.Mean))
}
