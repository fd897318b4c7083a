package tpcc

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// txType is one of the five transactions; its value indexes Meta.Ops.
type txType int

const (
	newOrder txType = iota
	payment
	orderStatus
	delivery
	stockLevel
	numTx
)

// txDef describes a transaction type: its name, the spec's minimum share of
// the mix (clause 5.2.3; New-Order has none: it is what is left), its keying
// time and mean think time (clause 5.2.5.7, seconds) and its 90th-percentile
// response-time limit (clause 5.2.5.3, seconds; Delivery's is for the
// deferred queueing, applied here to the whole transaction, which rightsize
// runs inline).
type txDef struct {
	name          string
	minPct        float64
	keying, think float64
	p90Limit      float64
	readOnly      bool
}

var txDefs = [numTx]txDef{
	newOrder:    {name: "new_order", keying: 18, think: 12, p90Limit: 5},
	payment:     {name: "payment", minPct: 43, keying: 3, think: 12, p90Limit: 5},
	orderStatus: {name: "order_status", minPct: 4, keying: 2, think: 10, p90Limit: 5, readOnly: true},
	delivery:    {name: "delivery", minPct: 4, keying: 2, think: 5, p90Limit: 5},
	stockLevel:  {name: "stock_level", minPct: 4, keying: 2, think: 5, p90Limit: 20, readOnly: true},
}

// defaultWeights is the usual mix, 45/43/4/4/4 (New-Order, Payment,
// Order-Status, Delivery, Stock-Level), which meets clause 5.2.3's minimums.
var defaultWeights = [numTx]float64{45, 43, 4, 4, 4}

// Options are the TPC-C workload's options. The result records them as
// they are, keyed by flag name (the JSON form), and Summarize reads them
// back; --warehouses shapes the data prepare loads (workload.Option).
type Options struct {
	Warehouses int     `json:"warehouses" data:"true"` // --warehouses
	ThinkScale float64 `json:"think-scale"`            // --think-scale: 1 = the spec's keying and think times, 0 = none
	InServer   string  `json:"in-server,omitempty"`    // --in-server[=functions|procedures]: each transaction is one call of a routine stored in the database
	Weights    string  `json:"weights"`                // --weights: the mix, five numbers

	weights [numTx]float64 // parsed Weights, in percent (sum 100)
}

// DefaultOptions returns the defaults: 1 warehouse, no keying or think time
// (as HammerDB and go-tpc run by default), the 45/43/4/4/4 mix.
func DefaultOptions() Options {
	return Options{Warehouses: 1, ThinkScale: 0, Weights: "45,43,4,4,4", weights: defaultWeights}
}

// MaxWarehouses bounds --warehouses (ids stay far inside 32-bit integers).
const MaxWarehouses = 100000

func (o *Options) bind(fs *pflag.FlagSet) {
	fs.IntVar(&o.Warehouses, "warehouses", o.Warehouses, "number of warehouses W (scale: each has 10 districts, 30,000 customers and 100,000 stock rows; about 100 MB)")
	fs.Float64Var(&o.ThinkScale, "think-scale", o.ThinkScale, "run: multiply the spec's keying and think times (clause 5.2.5): 1 = the spec, 0.25 = a quarter, 0 = none (throughput test)")
	fs.StringVar(&o.InServer, "in-server", o.InServer, "prepare: also install the five transactions in the database (PostgreSQL functions and procedures, MySQL/MariaDB stored procedures), or on another tool's TPC-C tables (HammerDB's) install only them and keep the tables; run: run each transaction as one call of its routine, one round trip, as HammerDB does; =procedures on PostgreSQL calls the procedures (CALL) instead of the functions (not on SQLite)")
	fs.Lookup("in-server").NoOptDefVal = "on"
	fs.StringVar(&o.Weights, "weights", o.Weights, "run: transaction mix in percent, New-Order,Payment,Order-Status,Delivery,Stock-Level (the spec's minimums: Payment 43, the other three 4 each)")
}

// parseWeights parses five non-negative numbers and scales them to 100.
func parseWeights(s string) ([numTx]float64, error) {
	var w [numTx]float64
	parts := strings.Split(s, ",")
	if len(parts) != int(numTx) {
		return w, fmt.Errorf("weights %q: want five numbers (New-Order,Payment,Order-Status,Delivery,Stock-Level)", s)
	}
	var sum float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return w, fmt.Errorf("weights %q: %q is not a non-negative number", s, p)
		}
		w[i] = v
		sum += v
	}
	if sum <= 0 || math.IsInf(sum, 0) {
		return w, fmt.Errorf("weights %q: at least one must be positive, and their sum finite", s)
	}
	for i := range w {
		w[i] = w[i] / sum * 100
	}
	return w, nil
}

// Validate checks every option and returns every problem at once.
func (o *Options) Validate() error {
	var errs []error
	if o.Warehouses < 1 || o.Warehouses > MaxWarehouses {
		errs = append(errs, fmt.Errorf("warehouses %d: want 1..%d", o.Warehouses, MaxWarehouses))
	}
	if o.ThinkScale < 0 || o.ThinkScale > 100 || math.IsNaN(o.ThinkScale) {
		errs = append(errs, fmt.Errorf("think-scale %v: want 0..100 (1 = the spec's times)", o.ThinkScale))
	}
	switch o.InServer {
	case "", "on", kindFunctions, kindProcedures:
	default:
		errs = append(errs, fmt.Errorf("in-server %q: want on (the database's usual form), functions or procedures", o.InServer))
	}
	if w, err := parseWeights(o.Weights); err != nil {
		errs = append(errs, err)
	} else {
		o.weights = w
	}
	return errors.Join(errs...)
}

// belowMinimum lists the transaction types whose weight is below the spec's
// minimum share (a run is then not a compliant mix; it still runs).
func (o *Options) belowMinimum() []string {
	var out []string
	for t := range numTx {
		if d := txDefs[t]; o.weights[t] < d.minPct {
			out = append(out, fmt.Sprintf("%s %.4g%% < %.4g%%", d.name, o.weights[t], d.minPct))
		}
	}
	return out
}
