package tpcc

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// Name is the workload's name on the command line.
const Name = "tpcc"

// Workload is TPC-C with its options. Flags bind to it; use one value per
// command line. Open copies the options.
type Workload struct{ opt Options }

var _ workload.Workload = (*Workload)(nil)

// Hooks: tpmC and the other figures, and databases numbered by
// --instances.
func (w *Workload) Hooks() workload.Hooks {
	return workload.Hooks{Summarize: w.Summarize, NumberTargets: w.NumberTargets}
}

// New returns TPC-C with the default options.
func New() *Workload { return &Workload{opt: DefaultOptions()} }

// Meta describes TPC-C: the five transactions, the counters only the
// terminals know, its consistency checks and its options.
func (w *Workload) Meta() workload.Meta {
	return workload.Meta{
		Name:     Name,
		Short:    "TPC-C: New-Order, Payment, Order-Status, Delivery, Stock-Level over W warehouses; tpmC, NOPM",
		Long:     long,
		Event:    "transaction",
		Ops:      ops(),
		Counters: counterNames[:],
		Prepare:  true,
		Check:    true,
		Options:  workload.OptionsOf(Options{}),
		// HammerDB's NOPM: the New-Orders the database committed, read
		// from the districts' next order ids at the window's edges.
		ServerCounters: map[string]string{newOrdersCounter: "SELECT SUM(d_next_o_id) FROM district"},
	}
}

// newOrdersCounter names the count of New-Orders in the database
// (Meta.ServerCounters).
const newOrdersCounter = "new_orders"

const long = `TPC-C (standard specification 5.11): an order-entry business of W warehouses,
each with 10 districts of 3,000 customers, 100,000 stock rows and a shared
catalogue of 100,000 items. Five transactions, each a database transaction:

  New-Order     5-15 order lines; 1 % roll back on an unused item id; 1 % of
                the lines come from another warehouse (when W > 1)
  Payment       85 % a home customer, 15 % a customer of another warehouse;
                60 % of customers chosen by last name
  Order-Status  a customer's last order and its lines (60 % by last name)
  Delivery      the oldest undelivered order of each of the 10 districts
  Stock-Level   stock below a threshold among the last 20 orders' items

The tables and columns have the standard names (warehouse, district,
customer, history, new_order, orders, order_line, item, stock; w_id,
d_next_o_id, ...), so a database loaded by rightsize works with other TPC-C
tools that use them, and rightsize runs on theirs.

prepare loads clause 4.3's initial population in parallel (by warehouse, with
the dialect's bulk path: COPY on PostgreSQL; LOAD DATA LOCAL INFILE on MySQL
when the server allows it (local_infile), multi-row INSERT otherwise; batched
transactions on SQLite); --seed makes it repeatable (without it, a re-run
keeps the recorded seed). It records what it loaded in rightsize_objects,
refuses tables it did not create (unless --force), and an interrupted prepare
resumes where it stopped. Once every table is loaded and indexed, each is
analyzed (PostgreSQL: VACUUM (ANALYZE), so that autovacuum's first pass is not
in the run; MySQL/MariaDB: ANALYZE TABLE). A prepare that loads recorded tables again says why
("the TPC-C tables hold 2 warehouse(s), --warehouses asks 4: dropping and
loading again").

run binds each virtual user (terminal) to a home warehouse and district,
round-robin, and deals the mix (--weights, default 45/43/4/4/4) by smooth
weighted round robin from a random start, so that every terminal meets each
share within two transactions at any moment, not only after whole passes of a
shuffled deck. The warehouses must have been loaded: run counts them before
the first terminal and refuses more --warehouses than the database holds
(exit 1, even with --force: their rows do not exist); with fewer, the
terminals use warehouses 1 to --warehouses and the result notes it. A load
that prepare recorded as unfinished is refused unless --force. With --think-scale above 0 each terminal
waits the spec's keying time before and think time after each transaction
(negative exponential, truncated at 10 times the mean), scaled; --think-time
does not apply. The intentional New-Order rollback counts as a completed
transaction; deadlocks and serialization failures are retried (--retry) and
counted apart. With --rate the terminals instead serve a fixed arrival rate
(open loop), e.g. --rate 2x --baseline-rate 50.

With --in-server, prepare also installs the five transactions in the
database (PostgreSQL: PL/pgSQL functions, and the same as procedures for
--in-server=procedures, which run calls with CALL; MySQL/MariaDB: stored
procedures; named rs_tpcc_*) and run makes each transaction one call of its
routine, one round trip, as HammerDB does. The terminal still draws every input (the same
profile, mix, rollbacks and remote shares), so every figure means the same in
both modes. A run refuses routines that are missing or of another version
(prepare --in-server replaces them); cleanup drops them. On another tool's
TPC-C tables (all nine, none loaded by rightsize: HammerDB's, for instance)
prepare --in-server installs only the routines and keeps the tables, and
cleanup drops only the routines. SQLite has no server:
--in-server is refused there.

The result adds a "tpcc" section: tpmC (New-Orders per minute, rolled-back
ones included), NOPM (committed New-Orders per minute), TPM (all); and,
when the server was sampled (--server-stats), the figures as HammerDB counts
them: NOPM from the districts' next order ids and TPM from the server's
commits and rollbacks over the measured window, less the calls that failed
(not reported when they were more than a tenth of the server's count); the
efficiency against the most tpmC the terminals could reach at this think
scale (12.86 x W at the spec's times with 10 terminals per warehouse), the
achieved mix, the rollback and remote shares, and each transaction's 90th
percentile against clause 5.2.5.3's limit.

check tpcc verifies the consistency conditions of clause 3.3.2 and exits
non-zero when one fails. They hold after runs too, but 3.3.2.11's 2,100
delivered orders per district holds only on a fresh load: after Deliveries
the check adds the orders delivered since (the district's orders with a
carrier beyond the load's 2,100).`

// BindFlags registers the TPC-C options.
func (w *Workload) BindFlags(fs *pflag.FlagSet) { w.opt.bind(fs) }

// Validate checks the options.
func (w *Workload) Validate() error { return w.opt.Validate() }

// Options returns the effective options (Options).
func (w *Workload) Options() any { return w.opt }

// ops are the five transactions; each VU reports the one it ran.
func ops() []workload.Op {
	out := make([]workload.Op, numTx)
	for t := range numTx {
		k := workload.Write
		if txDefs[t].readOnly {
			k = workload.Read
		}
		out[t] = workload.Op{Name: txDefs[t].name, Kind: k, Type: true}
	}
	return out
}

// The counters are what only the VUs know (Meta.Counters); their indexes
// are these constants.
const (
	cntRollback        = iota // New-Orders rolled back on the unused item
	cntOrderLines             // order lines of completed New-Orders
	cntRemoteLines            // of which supplied by another warehouse
	cntRemotePayments         // Payments of a customer of another warehouse
	cntPaymentByName          // Payments selecting the customer by last name
	cntStatusByName           // Order-Status selecting the customer by last name
	cntDeliverySkipped        // districts a Delivery found without a new order
	numCounters
)

var counterNames = [numCounters]string{
	"new_order_rollbacks", "order_lines", "remote_order_lines", "remote_payments",
	"payments_by_last_name", "order_status_by_last_name", "delivery_skipped_districts",
}

// DefaultTarget is the target of instance index when --target is empty.
func DefaultTarget(index int) string { return dbtarget.DefaultSQLite("tpcc", index) }

// NumberTargets derives n targets from raw for --instances (dbtarget.Number).
func (w *Workload) NumberTargets(raw string, n int) ([]string, error) {
	return dbtarget.Number(raw, "tpcc", n)
}

// ParseTarget parses a database URL; empty means DefaultTarget(o.Index).
func (w *Workload) ParseTarget(raw string, o workload.TargetOptions) (workload.Target, error) {
	return dbtarget.ParseFor(raw, "tpcc", o, w.open)
}

// open binds the workload to the target without connecting.
func (w *Workload) open(_ context.Context, tg *dbtarget.DB) (workload.Instance, error) {
	o := w.opt
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	in := newInstance(o, tg)
	if o.InServer != "" {
		kind, err := serverKind(o.InServer, tg.D)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		in.kind = kind
	}
	return in, nil
}
