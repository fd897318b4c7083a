package tpcc

import (
	"time"
	"unsafe"

	"github.com/rightsize/rightsize/internal/datagen"
)

// This file generates clause 4.3.3.1's initial population. The work is cut
// into units (the item table; each warehouse's stock, customers, orders and
// warehouse row), and each unit draws from its own Source, seeded from the
// load's seed, the unit's kind and its warehouse, so the rows do not depend
// on how many loaders there are or on the order they run in.

// unitKind is what one unit of prepare's work loads.
type unitKind uint8

const (
	unitItem      unitKind = iota // item (once)
	unitOrderLine                 // order_line of a warehouse
	unitStock                     // stock of a warehouse
	unitCustomer                  // customer and history of a warehouse
	unitOrders                    // orders and new_order of a warehouse
	unitWarehouse                 // warehouse and district of a warehouse
	numUnitKinds
)

// unitTables lists each kind's tables in the order it loads them.
var unitTables = [numUnitKinds][]string{
	unitItem:      {"item"},
	unitOrderLine: {"order_line"},
	unitStock:     {"stock"},
	unitCustomer:  {"customer", "history"},
	unitOrders:    {"orders", "new_order"},
	unitWarehouse: {"warehouse", "district"},
}

// loadUnit is one unit of work: kind k of warehouse w (0 for the item table).
type loadUnit struct {
	k unitKind
	w int
}

// meanOrderLines is the expected number of order lines of a warehouse (10
// an order); the generator knows the exact count.
const meanOrderLines = 10 * districtsPerWarehouse * ordersPerDistrict

// expectedRows is the number of rows the unit loads, with order_line counted
// at its mean.
func (u loadUnit) expectedRows() int64 {
	switch u.k {
	case unitItem:
		return items
	case unitOrderLine:
		return meanOrderLines
	case unitOrders:
		return districtsPerWarehouse * (ordersPerDistrict + newOrdersPerDistrict)
	case unitStock:
		return stockPerWarehouse
	case unitCustomer:
		return 2 * districtsPerWarehouse * customersPerDistrict
	default:
		return 1 + districtsPerWarehouse
	}
}

// splitmix64 is the finaliser of SplitMix64: a bijective mix of x's bits.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// constantsSalt derives the seed of the load's NURand constants.
const constantsSalt = 0xc0ffee

// unitSeed is the seed of the unit's Source under the load's seed.
func (u loadUnit) seed(seed uint64) uint64 {
	return splitmix64(splitmix64(seed^uint64(u.k+1)<<56) ^ uint64(u.w))
}

// loadConstantsFor are the NURand constants of a load with seed.
func loadConstantsFor(seed uint64) Constants {
	return NewLoadConstants(datagen.NewSource(splitmix64(seed ^ constantsSalt)))
}

// Values of constant columns, boxed once.
var (
	vNil      any
	vZero     any = int64(0)
	vOne      any = int64(1)
	vFive     any = int64(5)
	vOE       any = "OE"
	vBC       any = "BC"
	vGC       any = "GC"
	vCredLim  any = 50000.00
	vBalance  any = -10.00
	vTen      any = 10.00
	vZeroAmt  any = 0.00
	vWYTD     any = 300000.00
	vDYTD     any = 30000.00
	vNextOID  any = int64(ordersPerDistrict + 1)
	vDistrict     = func() (v [districtsPerWarehouse + 1]any) {
		for i := range v {
			v[i] = int64(i)
		}
		return v
	}()
)

const upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// Strings are carved from chunks of arenaChunk bytes (one allocation for
// hundreds of values); maxStr is the longest string generated (c_data).
const (
	arenaChunk = 64 << 10
	maxStr     = 500
)

// rowGen is a dialect.RowSource producing one table's rows of a unit. The
// rowGens of a unit share its Source and are consumed in order.
type rowGen struct {
	name string
	n    int             // rows to produce
	i    int             // rows produced so far; the current row is i-1
	fill func(*rowGen)   // sets vals for row i-1
	vals []any           // reused between rows
	s    *datagen.Source // the unit's
	buf  []byte          // the arena chunk strings are generated in

	w    int
	wv   any // w, boxed once
	now  any // the load time
	add  func(int64)
	done int64 // rows not yet reported
}

// progressEvery is how many rows a generator produces between reports.
const progressEvery = 1000

// Next generates the next row.
func (g *rowGen) Next() bool {
	if g.i >= g.n {
		g.flush()
		return false
	}
	g.i++
	g.fill(g)
	if g.done++; g.done >= progressEvery {
		g.flush()
	}
	return true
}

func (g *rowGen) flush() {
	if g.done > 0 && g.add != nil {
		g.add(g.done)
	}
	g.done = 0
}

// Values returns the current row; the slice is reused by the next row.
// Its strings are never overwritten: a dialect may keep them (MySQL's
// multi-row INSERT does, for a batch).
func (g *rowGen) Values() ([]any, error) { return g.vals, nil }

func (g *rowGen) Err() error { return nil }

// room returns the free part of the current arena chunk, starting a new
// chunk when fewer than maxStr bytes are left. Strings are generated there
// in place and never written again, so a dialect may keep them.
func (g *rowGen) room() []byte {
	if cap(g.buf)-len(g.buf) < maxStr {
		g.buf = make([]byte, 0, arenaChunk)
	}
	return g.buf[len(g.buf):]
}

// keep makes the bytes just generated in room (b) a string and moves the
// arena past them.
func (g *rowGen) keep(b []byte) any {
	if len(b) == 0 {
		return ""
	}
	g.buf = g.buf[:len(g.buf)+len(b)]
	return unsafe.String(&b[0], len(b))
}

func (g *rowGen) astr(lo, hi int) any { return g.keep(appendAString(g.room(), g.s, lo, hi)) }

func (g *rowGen) nstr(n int) any { return g.keep(appendNString(g.room(), g.s, n)) }

func (g *rowGen) state() any { return g.keep(appendChars(g.room(), g.s, 2, upper, 8)) }

func (g *rowGen) zip() any { return g.keep(appendZip(g.room(), g.s)) }

func (g *rowGen) data() any { return g.keep(appendData(g.room(), g.s)) }

// address fills the five columns of an address from v[0] on: street_1,
// street_2 and city (random a-strings of 10 to 20 characters), state and
// zip (clause 4.3.3.1).
func (g *rowGen) address(v []any) {
	v[0] = g.astr(10, 20)
	v[1] = g.astr(10, 20)
	v[2] = g.astr(10, 20)
	v[3] = g.state()
	v[4] = g.zip()
}

// tax draws a tax rate in [0.0000, 0.2000].
func (g *rowGen) tax() any { return float64(g.s.Uniform(0, 2000)) / 10000 }

// orderPlan is what the orders of a warehouse are drawn with, by
// (d-1)*3000 + (o_id-1). The orders and the order_line units both draw it
// from the orders unit's seed.
type orderPlan struct {
	cid     []int64 // o_c_id
	olCnt   []int8
	carrier []int8 // o_carrier_id of the delivered orders
	lines   int    // order lines in all
}

// unitGens returns the generators of unit u under seed, in load order,
// stamped with the load time now; add receives progress.
func unitGens(u loadUnit, seed uint64, now time.Time, add func(int64)) []*rowGen {
	s := datagen.NewSource(u.seed(seed))
	mk := func(name string, n int, fill func(*rowGen)) *rowGen {
		return &rowGen{name: name, n: n, fill: fill, s: s, w: u.w, wv: int64(u.w), now: now,
			vals: make([]any, len(tableByName(name).cols)), add: add}
	}
	switch u.k {
	case unitItem:
		return []*rowGen{mk("item", items, fillItem)}
	case unitStock:
		return []*rowGen{mk("stock", stockPerWarehouse, fillStock)}
	case unitWarehouse:
		return []*rowGen{mk("warehouse", 1, fillWarehouse), mk("district", districtsPerWarehouse, fillDistrict)}
	case unitCustomer:
		n := districtsPerWarehouse * customersPerDistrict
		c := loadConstantsFor(seed)
		cust := mk("customer", n, nil)
		cust.fill = func(g *rowGen) { fillCustomer(g, c) }
		return []*rowGen{cust, mk("history", n, fillHistory)}
	case unitOrders:
		plan := planOrders(s)
		o := mk("orders", districtsPerWarehouse*ordersPerDistrict, nil)
		o.fill = func(g *rowGen) { fillOrder(g, plan) }
		return []*rowGen{o, mk("new_order", districtsPerWarehouse*newOrdersPerDistrict, fillNewOrder)}
	case unitOrderLine:
		plan := planOrders(datagen.NewSource(loadUnit{unitOrders, u.w}.seed(seed)))
		ol := mk("order_line", plan.lines, nil)
		ol.fill = orderLineFiller(plan)
		return []*rowGen{ol}
	}
	panic("tpcc: unknown unit kind")
}

func fillItem(g *rowGen) {
	v, s := g.vals, g.s
	v[0] = int64(g.i)
	v[1] = s.Uniform(1, 10000)
	v[2] = g.astr(14, 24)
	v[3] = cents(s, 100, 10000)
	v[4] = g.data()
}

func fillWarehouse(g *rowGen) {
	v := g.vals
	v[0] = g.wv
	v[1] = g.astr(6, 10)
	g.address(v[2:7])
	v[7] = g.tax()
	v[8] = vWYTD
}

func fillDistrict(g *rowGen) {
	v := g.vals
	v[0] = vDistrict[g.i]
	v[1] = g.wv
	v[2] = g.astr(6, 10)
	g.address(v[3:8])
	v[8] = g.tax()
	v[9] = vDYTD
	v[10] = vNextOID
}

func fillStock(g *rowGen) {
	v, s := g.vals, g.s
	v[0] = int64(g.i)
	v[1] = g.wv
	v[2] = s.Uniform(10, 100)
	for k := 3; k < 13; k++ {
		v[k] = g.astr(24, 24)
	}
	v[13], v[14], v[15] = vZero, vZero, vZero
	v[16] = g.data()
}

// fillCustomer: c_last of customers 1..1000 is the name of c_id-1, the
// others' is drawn with NURand(255, 0, 999) and the load's C_LAST.
func fillCustomer(g *rowGen, c Constants) {
	v, s := g.vals, g.s
	_, id := g.districtKey(g.i-1, customersPerDistrict)
	v[3] = g.astr(8, 16)
	v[4] = vOE
	n := int64(id - 1)
	if id > 1000 {
		n = c.LastNameNumber(s)
	}
	v[5] = g.keep(AppendLastName(g.room(), n))
	g.address(v[6:11])
	v[11] = g.nstr(16)
	v[12] = g.now
	if s.Uniform(1, 10) == 1 {
		v[13] = vBC
	} else {
		v[13] = vGC
	}
	v[14] = vCredLim
	v[15] = float64(s.Uniform(0, 5000)) / 10000
	v[16] = vBalance
	v[17] = vTen
	v[18] = vOne
	v[19] = vZero
	v[20] = g.astr(300, 500)
}

func fillHistory(g *rowGen) {
	v := g.vals
	d, _ := g.districtKey(g.i-1, customersPerDistrict)
	v[3] = vDistrict[d]
	v[4] = g.wv
	v[5] = g.now
	v[6] = vTen
	v[7] = g.astr(12, 24)
}

// planOrders draws each district's customer permutation (Fisher-Yates),
// then each order's line count and carrier (clause 4.3.3.1: o_carrier_id
// random within [1, 10] if o_id < 2101, else null).
func planOrders(s *datagen.Source) *orderPlan {
	const n = districtsPerWarehouse * ordersPerDistrict
	p := &orderPlan{cid: make([]int64, n), olCnt: make([]int8, n), carrier: make([]int8, n)}
	for d := range districtsPerWarehouse {
		perm := p.cid[d*ordersPerDistrict : (d+1)*ordersPerDistrict]
		for i := range perm {
			perm[i] = int64(i + 1)
		}
		for i := len(perm) - 1; i > 0; i-- {
			j := s.IntN(i + 1)
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	for i := range p.olCnt {
		c := s.Uniform(5, 15)
		p.olCnt[i] = int8(c)
		p.lines += int(c)
		if i%ordersPerDistrict+1 < firstNewOrder {
			p.carrier[i] = int8(s.Uniform(1, 10))
		}
	}
	return p
}

func fillOrder(g *rowGen, p *orderPlan) {
	v := g.vals
	r := g.i - 1
	_, id := g.districtKey(r, ordersPerDistrict)
	v[3] = p.cid[r]
	v[4] = g.now
	if id < firstNewOrder {
		v[5] = int64(p.carrier[r])
	} else {
		v[5] = vNil
	}
	v[6] = int64(p.olCnt[r])
	v[7] = vOne
}

// orderLineFiller walks the orders of p and their lines.
func orderLineFiller(p *orderPlan) func(*rowGen) {
	order, line := 0, 0 // order index; lines of it produced
	return func(g *rowGen) {
		if line == int(p.olCnt[order]) {
			order, line = order+1, 0
		}
		line++
		v, s := g.vals, g.s
		_, id := g.districtKey(order, ordersPerDistrict)
		v[3] = int64(line)
		v[4] = s.Uniform(1, items)
		v[5] = g.wv
		if id < firstNewOrder {
			v[6] = g.now
			v[8] = vZeroAmt
		} else {
			v[6] = vNil
			v[8] = cents(s, 1, 999999)
		}
		v[7] = vFive
		v[9] = g.astr(24, 24)
	}
}

func fillNewOrder(g *rowGen) {
	v := g.vals
	r := g.i - 1
	v[0] = int64(firstNewOrder + r%newOrdersPerDistrict)
	v[1] = vDistrict[r/newOrdersPerDistrict+1]
	v[2] = g.wv
}

// districtKey sets the first three columns, a row's key, to the id,
// district and warehouse of the warehouse's r-th row (from 0) of a table
// with perDistrict rows a district, in district order; it returns the
// district and the id.
func (g *rowGen) districtKey(r, perDistrict int) (d, id int) {
	d, id = r/perDistrict+1, r%perDistrict+1
	g.vals[0], g.vals[1], g.vals[2] = int64(id), vDistrict[d], g.wv
	return d, id
}

// Rows is how many rows g yields (tables.Source).
func (g *rowGen) Rows() int64 { return int64(g.n) }

// Flush reports the rows generated and not yet reported (tables.Source).
func (g *rowGen) Flush() { g.flush() }
