package pgbenchscript

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/rightsize/rightsize/internal/datagen"
)

// The constants of pgbench's hash functions (FNV-1a and MurmurHash2 on
// the 8 bytes of a 64-bit integer).
const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed).
func HashFNV1a(val int64, seed int64) int64 {
	h := uint64(fnvOffsetBasis) ^ uint64(seed)
	for range 8 {
		octet := uint64(val & 0xff)
		val >>= 8
		h ^= octet
		h *= fnvPrime
	}
	return int64(h)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed), also hash(val, seed).
func HashMurmur2(val int64, seed int64) int64 {
	h := uint64(seed) ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// prng is PostgreSQL's pg_prng: xoroshiro128** seeded by splitmix64. It
// drives permute, whose results must be pgbench's for the same seed.
type prng struct{ s0, s1 uint64 }

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97f4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

func newPRNG(seed uint64) prng {
	var p prng
	p.s0 = splitmix64(&seed)
	p.s1 = splitmix64(&seed)
	if p.s0 == 0 && p.s1 == 0 {
		p.s0, p.s1 = 0x5851F42D4C957F2D, 0x14057B7EF767814F
	}
	return p
}

func (p *prng) next() uint64 {
	s0 := p.s0
	sx := p.s1 ^ s0
	v := bits.RotateLeft64(s0*5, 7) * 9
	p.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	p.s1 = bits.RotateLeft64(sx, 37)
	return v
}

// rangeU is pg_prng_uint64_range(0, max): bitmask rejection.
func (p *prng) rangeU(max uint64) uint64 {
	if max == 0 {
		return 0
	}
	shift := uint(bits.LeadingZeros64(max))
	for {
		v := p.next() >> shift
		if v <= max {
			return v
		}
	}
}

// Permute is pgbench's permute(val, size, seed): a pseudorandom
// permutation of [0, size) applied to val mod size, the same as pgbench's
// for the same arguments. size must be positive.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	st := newPRNG(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for range 6 {
		m := st.next()&mask | 1
		r := st.next() & mask
		if v <= mask {
			v = (v*m ^ r) & mask
			v = (v<<1)&mask | v>>(masklen-1)
		}
		m = st.next()&mask | 1
		r = st.next() & mask
		t := size - 1 - v
		if t <= mask {
			t = (t*m ^ r) & mask
			t = (t<<1)&mask | t>>(masklen-1)
			v = size - 1 - t
		}
		r = st.rangeU(size - 1)
		v = (v + r) % size
	}
	return int64(v)
}

// The limits of pgbench's random functions' parameters.
const (
	minGaussian = 2.0
	minZipfian  = 1.001
	maxZipfian  = 1000.0
)

var errEmptyRange = errors.New("empty range given to random")

// randRange checks [min, max] and returns max-min+1.
func randRange(min, max int64) (uint64, error) {
	if min > max {
		return 0, errEmptyRange
	}
	d, o1 := subOverflow(max, min)
	if o1 || d == math.MaxInt64 {
		return 0, errors.New("random range is too large")
	}
	return uint64(d) + 1, nil
}

// uniform draws from [min, min+span).
func uniform(s *datagen.Source, min int64, span uint64) int64 {
	hi, _ := bits.Mul64(s.Uint64(), span)
	return min + int64(hi)
}

// exponential is random_exponential's draw, as pgbench maps it: with u
// uniform in (0, 1] and cut = exp(-parameter), r = -ln(cut + (1-cut)u) /
// parameter is in [0, 1), and the value is min + floor(span*r).
func exponential(s *datagen.Source, min int64, span uint64, parameter float64) int64 {
	cut := math.Exp(-parameter)
	u := 1 - s.Float64()
	r := -math.Log(cut+(1-cut)*u) / parameter
	return min + int64(float64(span)*r)
}

// gaussian is random_gaussian's draw: a standard normal redrawn until it
// is in [-parameter, parameter), mapped onto the range.
func gaussian(s *datagen.Source, min int64, span uint64, parameter float64) int64 {
	var z float64
	for {
		u1 := 1 - s.Float64()
		u2 := 1 - s.Float64()
		z = math.Sqrt(-2*math.Log(u1)) * math.Sin(2*math.Pi*u2)
		if z >= -parameter && z < parameter {
			break
		}
	}
	r := (z + parameter) / (parameter * 2)
	return min + int64(float64(span)*r)
}

// zipfian is random_zipfian's draw: value min+k-1 with probability
// proportional to 1/k^s, k in [1, span], by the rejection method pgbench
// uses (Devroye, Non-Uniform Random Variate Generation, p. 550).
func zipfian(src *datagen.Source, min int64, span uint64, s float64) int64 {
	n := float64(span)
	if span <= 1 {
		return min
	}
	b := math.Pow(2, s-1)
	var x float64
	for {
		u := src.Float64()
		v := src.Float64()
		x = math.Floor(math.Pow(u, -1/(s-1)))
		t := math.Pow(1+1/x, s-1)
		if v*x*(t-1)/(b-1) <= t/b && x <= n {
			break
		}
	}
	return min - 1 + int64(x)
}

func addOverflow(a, b int64) (int64, bool) {
	c := a + b
	return c, (a >= 0) == (b >= 0) && (c >= 0) != (a >= 0)
}

func subOverflow(a, b int64) (int64, bool) {
	c := a - b
	return c, (a >= 0) != (b >= 0) && (c >= 0) != (a >= 0)
}

func mulOverflow(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, false
	}
	c := a * b
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) || c/b != a {
		return c, true
	}
	return c, false
}

// paramError is a random function's parameter out of its range.
func paramError(format string, args ...any) error { return fmt.Errorf(format, args...) }
