package datagen

import (
	"math/bits"
	"math/rand/v2"
)

// Source is a seeded pseudo-random source owned by one goroutine (one VU, one
// loader). It is not safe for concurrent use. The zero value is not usable;
// call NewSource.
type Source struct {
	pcg rand.PCG
}

// NewSource returns a Source seeded with seed. Two Sources with the same seed
// produce the same sequence.
func NewSource(seed uint64) *Source {
	s := &Source{}
	// The second PCG word is derived from the first so that one uint64 seed is
	// enough; the constant is the golden-ratio increment of splitmix64.
	s.pcg.Seed(seed, seed^0x9e3779b97f4a7c15)
	return s
}

// Uint64 returns 64 uniformly distributed random bits.
func (s *Source) Uint64() uint64 { return s.pcg.Uint64() }

// Float64 returns a uniformly distributed number in [0, 1), built from the top
// 53 bits of one draw (sysbench's sb_rand_uniform_double uses 52).
func (s *Source) Float64() float64 {
	return float64(s.pcg.Uint64()>>11) * (1.0 / (1 << 53))
}

// Uniform returns an integer in [a, b] with every value equally likely,
// computed as sysbench's sb_rand_uniform does: a + floor(u * (b-a+1)).
// If b < a it returns a.
func (s *Source) Uniform(a, b int64) int64 {
	if b <= a {
		return a
	}
	return a + int64(s.Float64()*float64(b-a+1))
}

// IntN returns a uniformly distributed integer in [0, n); 0 when n <= 0.
func (s *Source) IntN(n int) int {
	if n <= 0 {
		return 0
	}
	hi, _ := bits.Mul64(s.pcg.Uint64(), uint64(n))
	return int(hi)
}
