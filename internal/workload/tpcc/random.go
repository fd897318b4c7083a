package tpcc

import (
	"math/bits"

	"github.com/rightsize/rightsize/internal/datagen"
)

// NURand's A values and ranges (clause 2.1.6): A is 255 for C_LAST over
// [0, 999], 1023 for C_ID over [1, 3000] and 8191 for OL_I_ID over
// [1, 100000]. C is a constant in [0, A] chosen once per run (and, for C_LAST,
// once for the load).
const (
	aLast = 255
	aCID  = 1023
	aItem = 8191
)

// Constants are the NURand C values of one run or load (clause 2.1.6).
type Constants struct {
	Last int64 `json:"c_last"`  // C for C_LAST, in [0, 255]
	CID  int64 `json:"c_id"`    // C for C_ID, in [0, 1023]
	Item int64 `json:"ol_i_id"` // C for OL_I_ID, in [0, 8191]
}

// NewLoadConstants draws the load's constants.
func NewLoadConstants(s *datagen.Source) Constants {
	return Constants{Last: s.Uniform(0, aLast), CID: s.Uniform(0, aCID), Item: s.Uniform(0, aItem)}
}

// validDelta reports whether C_run may be used with C_load for C_LAST:
// clause 2.1.6.1 requires 65 <= |C_run - C_load| <= 119, and neither 96 nor
// 112 (values that would make the run's and load's last-name sets line up).
func validDelta(run, load int64) bool {
	d := run - load
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// NewRunConstants draws a run's constants from the load's (clause 2.1.6.1):
// C_LAST differs from the load's by a valid delta; C_ID and OL_I_ID are drawn
// afresh in their own ranges.
func NewRunConstants(s *datagen.Source, load Constants) Constants {
	c := Constants{CID: s.Uniform(0, aCID), Item: s.Uniform(0, aItem)}
	load.Last = min(max(load.Last, 0), aLast) // a recorded value out of range cannot hang the draw
	// Every C_load in [0, 255] has valid values of C_run: draw until one is.
	for {
		c.Last = s.Uniform(0, aLast)
		if validDelta(c.Last, load.Last) {
			return c
		}
	}
}

// nurand is NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
func nurand(s *datagen.Source, a, c, x, y int64) int64 {
	return ((s.Uniform(0, a)|s.Uniform(x, y))+c)%(y-x+1) + x
}

// CustomerID draws a customer id for a transaction: NURand(1023, 1, 3000).
func (c Constants) CustomerID(s *datagen.Source) int64 {
	return nurand(s, aCID, c.CID, 1, customersPerDistrict)
}

// ItemID draws an item id: NURand(8191, 1, 100000).
func (c Constants) ItemID(s *datagen.Source) int64 { return nurand(s, aItem, c.Item, 1, items) }

// LastNameNumber draws the number a customer's last name is made from:
// NURand(255, 0, 999).
func (c Constants) LastNameNumber(s *datagen.Source) int64 { return nurand(s, aLast, c.Last, 0, 999) }

// syllables make last names (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// AppendLastName appends the last name of number n in [0, 999]: the
// syllables of its three digits.
func AppendLastName(dst []byte, n int64) []byte {
	return append(append(append(dst, syllables[n/100]...), syllables[n/10%10]...), syllables[n%10]...)
}

// LastName returns the last name of number n.
func LastName(n int64) string { return string(AppendLastName(make([]byte, 0, 15), n)) }

// alnum is the character set of random a-strings (clause 4.3.2.2: at least
// 26 lower case, 26 upper case letters and 10 digits).
const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendAString appends a random a-string of length in [lo, hi].
func appendAString(dst []byte, s *datagen.Source, lo, hi int) []byte {
	n := lo
	if hi > lo {
		n = int(s.Uniform(int64(lo), int64(hi)))
	}
	return appendChars(dst, s, n, alnum, 8)
}

// appendNString appends a random numeric string of length n.
func appendNString(dst []byte, s *datagen.Source, n int) []byte {
	return appendChars(dst, s, n, "0123456789", 14)
}

// appendChars appends n characters drawn uniformly from set, several from
// each 64-bit draw: the high word of r × len(set) is a character and the low
// word the remaining randomness (the multiply-shift method). per characters
// are taken from one draw, few enough that each stays uniform to about 2^-16.
func appendChars(dst []byte, s *datagen.Source, n int, set string, per int) []byte {
	m := uint64(len(set))
	for n > 0 {
		r := s.Uint64()
		for k := 0; k < per && n > 0; k++ {
			hi, lo := bits.Mul64(r, m)
			dst = append(dst, set[hi])
			r = lo
			n--
		}
	}
	return dst
}

// appendData appends an i_data or s_data value: an a-string of 26..50
// characters, with "ORIGINAL" at a random position in 10 % of them (clause
// 4.3.3.1).
func appendData(dst []byte, s *datagen.Source) []byte {
	start := len(dst)
	dst = appendAString(dst, s, 26, 50)
	if s.Uniform(1, 10) == 1 {
		n := len(dst) - start
		at := start + int(s.Uniform(0, int64(n-len(original))))
		copy(dst[at:], original)
	}
	return dst
}

const original = "ORIGINAL"

// appendZip appends a zip code: 4 random digits and "11111" (clause 4.3.2.7).
func appendZip(dst []byte, s *datagen.Source) []byte {
	return append(appendNString(dst, s, 4), "11111"...)
}

// cents draws a money amount in [lo, hi] cents and returns it in units, as
// the spec's random(x.xx, y.yy).
func cents(s *datagen.Source, lo, hi int64) float64 { return float64(s.Uniform(lo, hi)) / 100 }
