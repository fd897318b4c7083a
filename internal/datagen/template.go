package datagen

import (
	"math/bits"
	"sync/atomic"
)

// Template is a sysbench string template (sb_rand_str): every '#' becomes a
// random decimal digit, every '@' a random lowercase letter, and every other
// byte is copied. It is immutable and safe for concurrent use.
//
// Fill is the hot path of row generation, so it draws one 64-bit number for
// up to 12 digits (extracting them as successive base-10 "decimals" of the
// draw read as a fraction in [0, 1)) instead of one draw per character.
type Template struct {
	text   []byte
	digits int // number of '#' and '@' placeholders
}

// Sysbench's OLTP column templates: 11-digit groups joined by '-'.
const (
	// CTemplate is the value template of column c: 10 groups, 119 bytes.
	CTemplate = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	// PadTemplate is the value template of column pad: 5 groups, 59 bytes.
	PadTemplate = "###########-###########-###########-###########-###########"
)

// NewTemplate returns the template t.
func NewTemplate(t string) *Template {
	tp := &Template{text: []byte(t)}
	for _, c := range tp.text {
		if c == '#' || c == '@' {
			tp.digits++
		}
	}
	return tp
}

// Len is the length in bytes of every string the template produces.
func (t *Template) Len() int { return len(t.text) }

// String returns the template text.
func (t *Template) String() string { return string(t.text) }

// perDraw is how many base-10 digits one 64-bit draw yields: after 12
// extractions about 24 bits of the draw remain, so each digit is uniform to
// within 1e-6.
const perDraw = 12

// Fill writes one random instance of the template into dst[:t.Len()] and
// returns that slice. dst must have room for Len bytes (it is grown otherwise).
// It does not allocate when cap(dst) >= Len.
func (t *Template) Fill(s *Source, dst []byte) []byte {
	if cap(dst) < len(t.text) {
		dst = make([]byte, len(t.text))
	}
	dst = dst[:len(t.text)]
	var x uint64
	left := 0
	for i, c := range t.text {
		var hi uint64
		switch c {
		case '#':
			if left == 0 {
				x, left = s.Uint64(), perDraw
			}
			hi, x = bits.Mul64(x, 10)
			left--
			dst[i] = '0' + byte(hi)
		case '@':
			if left == 0 {
				x, left = s.Uint64(), perDraw
			}
			// 26 consumes more bits than 10; count it as two digits.
			hi, x = bits.Mul64(x, 26)
			left = max(left-2, 0)
			dst[i] = 'a' + byte(hi)
		default:
			dst[i] = c
		}
	}
	return dst
}

// Unique produces distinct 32-bit values in a scrambled order, as sysbench's
// sb_rand_unique does (Preshing's quadratic-residue permutation of a counter):
// the first 2^32 - 5 calls never repeat. It is safe for concurrent use (one per
// instance, shared by its VUs).
type Unique struct {
	index  atomic.Uint32
	offset uint32
}

// NewUnique returns a generator whose sequence is fixed by seed.
func NewUnique(seed uint64) *Unique {
	u := &Unique{}
	u.index.Store(permute(permute(uint32(seed)) + 0x682f0161))
	u.offset = permute(permute(uint32(seed>>32)) + 0x46790905)
	return u
}

// Next returns the next value of the sequence.
func (u *Unique) Next() uint32 {
	i := u.index.Add(1) - 1
	return permute((permute(i) + u.offset) ^ 0x5bf03635)
}

// permute is a bijection on [0, 2^32): x -> x^2 mod p (or p minus it for the
// upper half) with p the largest 32-bit prime; the 5 values >= p map to themselves.
func permute(x uint32) uint32 {
	const prime = 4294967291
	if x >= prime {
		return x
	}
	residue := uint32(uint64(x) * uint64(x) % prime)
	if x <= prime/2 {
		return residue
	}
	return prime - residue
}
