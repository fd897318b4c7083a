package workfile

import (
	"fmt"
	"math/bits"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/datagen"
)

// ValueType is the type of a generated value.
type ValueType uint8

const (
	Unknown      ValueType = iota // a Sample's, until values are loaded
	IntValue                      // Value.Int
	DecimalValue                  // Value.Int in units of 10^-Value.Scale; Value.Text its text
	TextValue                     // Value.Text
	TimeValue                     // Value.Time
)

func (t ValueType) String() string {
	switch t {
	case IntValue:
		return "int"
	case DecimalValue:
		return "decimal"
	case TextValue:
		return "text"
	case TimeValue:
		return "time"
	}
	return "unknown"
}

// Value is one generated value. A generator reuses its Values: a Value is
// valid until the same parameter (or row) is drawn again, and Text must
// not be changed (it may share its bytes with the Spec or a sample).
//
// A runner binds a Value once per prepared statement through a pointer to
// the field its type uses (&v.Int, &v.Time; a DECIMAL's text or float
// form), so that drawing a new value costs no allocation.
type Value struct {
	Type  ValueType
	Null  bool      // a Sample with no values loaded
	Int   int64     // IntValue; DecimalValue: units of 10^-Scale
	Scale int       // DecimalValue
	Text  []byte    // TextValue; DecimalValue: the decimal as text ("-12.50")
	Time  time.Time // TimeValue
}

// IntOf returns an IntValue (a runner's sample values).
func IntOf(i int64) Value { return Value{Type: IntValue, Int: i} }

// TextOf returns a TextValue.
func TextOf(s string) Value { return Value{Type: TextValue, Text: []byte(s)} }

// TimeOf returns a TimeValue.
func TimeOf(t time.Time) Value { return Value{Type: TimeValue, Time: t} }

// Float returns a DecimalValue or IntValue as a float64.
func (v *Value) Float() float64 {
	f := float64(v.Int)
	for range v.Scale {
		f /= 10
	}
	return f
}

// String formats the value (it allocates: for tests and messages).
func (v *Value) String() string {
	switch {
	case v.Null:
		return "NULL"
	case v.Type == IntValue:
		return strconv.FormatInt(v.Int, 10)
	case v.Type == TimeValue:
		return v.Time.Format(time.RFC3339Nano)
	}
	return string(v.Text)
}

// appendDecimal appends units*10^-scale as text.
func appendDecimal(b []byte, units int64, scale int) []byte {
	u := uint64(units)
	if units < 0 {
		b = append(b, '-')
		u = -u
	}
	if scale == 0 {
		return strconv.AppendUint(b, u, 10)
	}
	var p uint64 = 1
	for range scale {
		p *= 10
	}
	b = strconv.AppendUint(b, u/p, 10)
	b = append(b, '.')
	frac := u % p
	for d := p / 10; d > 0; d /= 10 {
		b = append(b, '0'+byte(frac/d%10))
	}
	return b
}

// draw draws p into v. seq is a Seq's value; now is the time a Timestamp's
// offset is from.
func draw(p *Param, s *datagen.Source, now time.Time, seq int64, v *Value) {
	switch p.Kind {
	case Int:
		v.Int = p.dist.Next(s)
	case Decimal:
		v.Int = p.dist.Next(s)
		v.Text = appendDecimal(v.Text[:0], v.Int, p.Scale)
	case Seq:
		v.Int = seq
	case Choice:
		k := pick(p.cum, s)
		if p.choiceInt {
			v.Int = p.Choices[k].Int
		} else {
			v.Text = p.texts[k]
		}
	case Pattern:
		v.Text = fillPattern(v.Text[:0], p.pat, p.lit, s)
	case Timestamp:
		v.Time = now.Add(time.Duration(p.dist.Next(s)) * time.Second)
	}
}

// newValue returns p's Value with the room its draws need.
func newValue(p *Param) Value {
	v := Value{Type: p.Type()}
	switch p.Kind {
	case Decimal:
		v.Scale = p.Scale
		v.Text = make([]byte, 0, 24)
	case Pattern:
		v.Text = make([]byte, 0, len(p.pat))
	}
	return v
}

// pick returns the index of the weight a uniform draw falls on: cum holds
// cumulative weights, the last being the total (> 0).
func pick(cum []int64, s *datagen.Source) int {
	hi, _ := bits.Mul64(s.Uint64(), uint64(cum[len(cum)-1]))
	x := int64(hi)
	lo, up := 0, len(cum)-1
	for lo < up {
		m := (lo + up) / 2
		if cum[m] > x {
			up = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// fillPattern appends one instance of a pattern: '#' a digit, '@' a
// lowercase letter, a literal byte as it is.
func fillPattern(b, pat []byte, lit []bool, s *datagen.Source) []byte {
	for i, c := range pat {
		switch {
		case lit[i]:
			b = append(b, c)
		case c == '#':
			d, _ := bits.Mul64(s.Uint64(), 10)
			b = append(b, '0'+byte(d))
		default:
			d, _ := bits.Mul64(s.Uint64(), 26)
			b = append(b, 'a'+byte(d))
		}
	}
	return b
}

// Pick returns the index in Transactions of the next transaction to run,
// drawn by weight (with one transaction, that one, drawing nothing, as
// pgbench does with one script). It does not allocate.
func (s *Spec) Pick(src *datagen.Source) int {
	if len(s.cum) == 1 {
		return 0
	}
	return pick(s.cum, src)
}

// Gen draws the parameters of one virtual user. Each parameter is drawn
// once per event, at its first use after Begin, so that every reference to
// it in one transaction sees one value. It belongs to one goroutine and
// does not allocate while drawing.
type Gen struct {
	spec    *Spec
	src     *datagen.Source
	vals    []Value
	drawn   []uint64
	epoch   uint64
	now     time.Time
	next    []int64 // Seq: the VU's next value
	stride  []int64 // Seq: the VUs' count times the step
	samples [][]Value
	sdist   []*datagen.Pgbench
	seqs    *Seqs // shared sequences (NewSharedGen); nil: the VU's stride
}

// Seqs holds the Seq parameters of one instance, shared by its virtual
// users (NewSharedGen): each draw takes the next value of the instance,
// whatever the number of VUs, and a VU opened again (after a lost
// connection) or a later step of a sweep goes on where they are. Safe for
// concurrent use.
//
// In a run split over shards (several load generators), each shard draws
// its own share (Shard): the k-th draw of shard i of n is the sequence's
// (k*n + i)-th value, so no two shards draw one value. A sequence with
// After starts past a column's highest value (AfterMax), so that a run
// inserting its values goes on after the rows earlier runs inserted.
type Seqs struct {
	next          []atomic.Int64
	base          []int64 // values to skip (After)
	shard, shards int64
}

// NewSeqs returns the sequences of s, each at its first value.
func (s *Spec) NewSeqs() *Seqs {
	return &Seqs{next: make([]atomic.Int64, len(s.Params)), base: make([]int64, len(s.Params)), shards: 1}
}

// Shard makes the sequences draw shard index's share (from 0) of count
// shards. Call it before the first draw.
func (q *Seqs) Shard(index, count int) {
	if count > 0 && index >= 0 && index < count {
		q.shard, q.shards = int64(index), int64(count)
	}
}

// AfterMax starts sequence parameter i of spec past highest, its After
// column's highest value: its first value is the first of Start + k*Step
// above highest (Start itself when that is above). Call it before the
// first draw.
func (q *Seqs) AfterMax(spec *Spec, i int, highest int64) {
	p := &spec.Params[i]
	if p.Kind != Seq || p.Step <= 0 || highest < p.Start {
		return
	}
	q.base[i] = (highest-p.Start)/p.Step + 1
}

// NewSharedGen returns a virtual user's generator drawing from src whose
// Seq parameters take the instance's next values from seqs (a Spec's
// NewSeqs). It draws without allocation, as NewGen's does; a Seq costs
// one atomic add.
func (s *Spec) NewSharedGen(src *datagen.Source, seqs *Seqs) *Gen {
	g := s.NewGen(src, 0, 1)
	g.seqs = seqs
	return g
}

// NewGen returns the generator of virtual user vu (from 0) of vus, drawing
// from src. The VUs of one instance share each Seq: VU vu of vus takes
// Start + (vu + k*vus)*Step for k = 0, 1, ..., so no two VUs of the
// instance draw one value and none waits for another. (Instances, and
// runs, do not share: give each its own Start, or a Sample, where values
// must be unique across them.)
func (s *Spec) NewGen(src *datagen.Source, vu, vus int) *Gen {
	vus = max(vus, 1)
	g := &Gen{spec: s, src: src, vals: make([]Value, len(s.Params)), drawn: make([]uint64, len(s.Params)),
		next: make([]int64, len(s.Params)), stride: make([]int64, len(s.Params)),
		samples: make([][]Value, len(s.Params)), sdist: make([]*datagen.Pgbench, len(s.Params)), epoch: 1}
	for i := range s.Params {
		p := &s.Params[i]
		g.vals[i] = newValue(p)
		if p.Kind == Seq {
			g.next[i] = p.Start + int64(vu)*p.Step
			g.stride[i] = int64(vus) * p.Step
		}
		if p.Kind == Sample {
			g.vals[i].Null = true
		}
	}
	return g
}

// Begin starts an event at now (a Timestamp's origin): every parameter is
// drawn afresh at its next use.
func (g *Gen) Begin(now time.Time) {
	g.epoch++
	g.now = now
}

// Value returns parameter i's value in this event (i indexes the Spec's
// Params; Slot.Param), drawing it at its first use. A Sample without
// values (SetSample) is Null.
func (g *Gen) Value(i int) *Value {
	v := &g.vals[i]
	if g.drawn[i] == g.epoch {
		return v
	}
	g.drawn[i] = g.epoch
	p := &g.spec.Params[i]
	switch p.Kind {
	case Sample:
		if vals := g.samples[i]; len(vals) > 0 {
			*v = vals[g.sdist[i].Next(g.src)]
		} else if p.HasRange { // the column held nothing: its range
			v.Type, v.Null, v.Int = IntValue, false, p.dist.Next(g.src)
		}
	case Seq:
		if q := g.seqs; q != nil {
			// base rounded up to whole rounds of the shards, so that each
			// shard keeps its own values whatever highest value it read.
			base := (q.base[i] + q.shards - 1) / q.shards * q.shards
			k := base + (q.next[i].Add(1)-1)*q.shards + q.shard
			draw(p, g.src, g.now, p.Start+k*p.Step, v)
			break
		}
		draw(p, g.src, g.now, g.next[i], v)
		g.next[i] += g.stride[i]
	default:
		draw(p, g.src, g.now, 0, v)
	}
	return v
}

// SetSample gives Sample parameter i the values the runner loaded from its
// column; the generator draws their index with the parameter's
// distribution. values is shared, not copied: it must not change while
// the Gen is in use (several VUs' Gens may share it).
func (g *Gen) SetSample(i int, values []Value) error {
	p := &g.spec.Params[i]
	if p.Kind != Sample {
		return fmt.Errorf("parameter %s is a %s, not a sample", p.Name, p.Kind)
	}
	if len(values) == 0 {
		if p.HasRange {
			g.samples[i] = nil
			return nil
		}
		return fmt.Errorf("parameter %s: %s has no rows with a %s: nothing to sample (give the sample min and max: a range to draw from when its column holds no values)", p.Name, p.Table, p.Column)
	}
	d, err := datagen.NewPgbench(p.Dist, 0, int64(len(values)-1), p.Parameter)
	if err != nil {
		return fmt.Errorf("parameter %s: %w", p.Name, err)
	}
	g.samples[i], g.sdist[i] = values, d
	return nil
}

// Rows generates the rows of one created table for one loader. It belongs
// to one goroutine and does not allocate per row.
type Rows struct {
	t    *Table
	src  *datagen.Source
	now  time.Time
	vals []Value
}

// NewRows returns a row generator for t (a created table) drawing from
// src; now is the origin of Timestamp columns (the load's start, the same
// for every loader).
func (t *Table) NewRows(src *datagen.Source, now time.Time) *Rows {
	r := &Rows{t: t, src: src, now: now, vals: make([]Value, len(t.Columns))}
	for i, c := range t.Columns {
		if c.Gen == nil {
			r.vals[i] = Value{Null: true}
			continue
		}
		r.vals[i] = newValue(c.Gen)
	}
	return r
}

// Row returns the values of row i (from 0 to Rows-1) in the order of the
// table's Columns. A Seq column is Start + i*Step, so loaders may split the
// rows between them in any way; the other columns are drawn. The slice is
// reused by the next call.
func (r *Rows) Row(i int64) []Value {
	for c := range r.t.Columns {
		if g := r.t.Columns[c].Gen; g != nil {
			draw(g, r.src, r.now, g.Start+i*g.Step, &r.vals[c])
		}
	}
	return r.vals
}
