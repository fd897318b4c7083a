// Package workload defines what a benchmark workload is to the runner and the CLI.
//
// A workload is one package under workload/ (oltp, tpcc, fileio, noop) and
// one line in workload/all: a value that describes itself (Meta: its
// operations, counters, steps, options), its optional behaviours as one
// value (Hooks: checking, matching, summarising; nil where absent), and
// what its virtual users do on interfaces (an event, reconnecting).
// The runner knows none of them: it drives VUs, and each VU reports the
// operations it ran through a Meter, which the runner times.
//
// workload.go is the contract, hooks.go the optional behaviours;
// prepared.go the errors of prepared data,
// progress.go prepare's progress, described.go an instance's description,
// options.go the options as a result records them.
package workload

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/errclass"
)

// OpKind groups operations the way sysbench counts queries.
type OpKind uint8

const (
	Read  OpKind = iota // a query that reads (SELECT, a read I/O)
	Write               // a statement that changes data (INSERT, UPDATE, DELETE, a write I/O)
	Other               // anything else (BEGIN, COMMIT)
	// Transaction is a transaction type (Op.Type) whose statements the VU
	// reports as operations of their own: it is no query, so the summary's
	// reads, writes and other statements (qps) do not count it.
	Transaction
)

func (k OpKind) String() string {
	switch k {
	case Read:
		return "read"
	case Write:
		return "write"
	case Transaction:
		return "transaction"
	}
	return "other"
}

// Op is one kind of operation a VU reports. A workload declares them up front
// so the runner can give each VU one histogram per operation, indexed by position.
type Op struct {
	Name string
	Kind OpKind
	// Type marks a transaction type (TPC-C's New-Order, a workload file's
	// transaction): each event is one of them, and the VU reports which
	// with one span of it around the event. The runner then records the
	// event's response time for it, as for the event (from the intended
	// start in the open loop, every attempt included), rather than the
	// span's, so that the result's Summary.Types are the types' response
	// times. A workload without types has one, its event.
	Type bool
}

// Span is an operation in flight, returned by Meter.Start.
type Span struct {
	Op    int
	Start time.Time
}

// Meter is how a VU reports sub-operations (statements, I/Os). The runner times
// them; the VU only says which operation ran and whether it failed. A Meter
// belongs to one VU and is not safe for concurrent use.
type Meter interface {
	// Start marks the start of operation op (an index into Meta.Ops).
	Start(op int) Span
	// End marks its end; err is nil on success.
	End(s Span, err error)
	// Count adds n to the workload's counter c (an index into
	// Meta.Counters), in the phase the event in flight completes in. VUs count
	// what only they know (TPC-C's rolled-back New-Orders) and should count
	// an event's things only once it has succeeded.
	Count(c int, n int64)
	// Retrying reports whether this Event call re-runs an event whose previous
	// attempt failed with an error the runner retries (--retry). A VU then
	// runs the same transaction again and may start its spans at the first
	// attempt, so that they cover every attempt as the event's latency does.
	Retrying() bool
}

// Yielder is implemented by a Meter that lets its VU offer its processor
// back within an event: the runner's, for virtual users that hold a Go
// processor while blocked in socket I/O (the runner yields at every Start;
// see runner's vu.yield). A VU whose event runs several statements under one
// span (pgbench's scripts) calls Yield before each statement after the
// first; it is cheap (a clock read) when no yield is due.
type Yielder interface {
	Yield()
}

// Recorder receives the finished events of a Pipeline VU.
type Recorder interface {
	// Event records one event that ran operation op (an index into
	// Meta.Ops) from start to end; err is nil on success. The event
	// belongs to the warm-up or the measured window by its end.
	Event(op int, start, end time.Time, err error)
}

// Pipeline is implemented by a VU that keeps several events in flight from
// one goroutine (an I/O engine with a queue depth), where a goroutine per
// event would cost more than the events. The runner then calls Run once
// instead of Event in a loop: Run starts events while more() is true, reports
// each through rec as it finishes, and returns when none is left in flight.
// When ctx ends it must stop waiting as soon as it safely can. A non-nil
// error means the VU cannot go on (a full disk, an I/O error): the runner
// marks the run partial with it as the reason. The failed event itself must
// have been reported through rec (the error is not counted again). Pipeline
// VUs run in the closed loop only.
type Pipeline interface {
	VU
	Run(ctx context.Context, rec Recorder, more func() bool) error
}

// Pacer is implemented by a VU that sets its own pause between events in the
// closed loop (TPC-C's keying and think times per transaction type). After
// each event the runner waits Pause() (not timed) instead of --think-time.
type Pacer interface {
	Pause() time.Duration
}

// Variant is one of the runs a single command makes (fileio's read mixes):
// each becomes a step of the plan (runplan.Step), as a sweep's points do.
type Variant struct {
	Label   string         // e.g. "read 70%", used in file names and tables
	X       float64        // the step's value on its axis (70), for a sweep's analysis
	Options map[string]any // merged into the result's options
}

// CheckResult is the outcome of one consistency condition.
type CheckResult struct {
	Name    string   // e.g. "3.3.2.1"
	Title   string   // what the condition states
	Passed  bool     // false when a violation was found
	Skipped string   // why the condition was not checked (Passed is then true)
	Details []string // offending rows, at most a few dozen
	Checked int64    // rows or groups examined
}

// VU is one virtual user: one connection and its prepared statements. Event is
// called by a single goroutine.
type VU interface {
	// Event runs one event (a transaction, an I/O) and returns its error, if
	// any. The runner times the whole call; sub-operations go through m.
	Event(ctx context.Context, m Meter) error
	// Close releases the VU's connection.
	Close() error
}

// Reconnector is a VU that replaces its lost connection in place, keeping
// what makes it the virtual user it is: its number, its random stream
// (continued, not restarted) and its state (a TPC-C terminal's home
// warehouse and district, its deck). After an event fails with a
// connection error the runner calls Reconnect, with back-off, until it
// succeeds or the run stops; a VU that is not a Reconnector is closed and
// opened anew with the number and seed of its first connection. The runner
// still calls Close once at the end.
type Reconnector interface {
	Reconnect(ctx context.Context) error
}

// Target is a parsed, unopened place a workload runs against, bound to the
// workload that parsed it (Workload.ParseTarget): it opens itself, so the
// parsed value goes one way, from the parser to the instance, with no type
// assertion on the way back. String never contains a password.
type Target interface {
	String() string
	// Open binds the workload to the target. It does not connect: prepare
	// may first have to create the database or the file.
	Open(ctx context.Context) (Instance, error)
	// Hooks are the target's optional facts.
	Hooks() TargetHooks
}

// InstanceInfo describes an opened instance for the result.
type InstanceInfo struct {
	Target        string   `json:"target"`                   // redacted
	Dialect       string   `json:"dialect"`                  // e.g. "postgres", "file"
	ServerProduct string   `json:"server_product,omitempty"` // e.g. "PostgreSQL", "MariaDB" (dialect.ConnInfo)
	ServerVersion string   `json:"server_version,omitempty"`
	Encrypted     bool     `json:"encrypted"`
	TLS           string   `json:"tls,omitempty"`
	Notes         []string `json:"notes,omitempty"`
	// BlockingIO: each virtual user holds an OS thread in blocking I/O and
	// needs its own Go processor (see dialect.Capabilities).
	BlockingIO bool `json:"-"`
	// Embedded: the database runs inside this process, so the client's CPU
	// includes the database's work (see dialect.Capabilities).
	Embedded bool `json:"-"`
	// Local: what the instance measures is on this host whatever its target
	// says (an embedded database, a file), so the host's figures are the
	// server's.
	Local bool `json:"-"`
}

// PrepareOptions are the CLI's switches for prepare and cleanup.
type PrepareOptions struct {
	Force   bool   // take over or replace objects rightsize did not create
	Threads int    // parallel loaders
	Seed    uint64 // seed of generated data (0: the workload's choice, recorded where it matters)
}

// Instance is a workload bound to one opened target (one database, one file).
type Instance interface {
	Info() InstanceInfo
	// Prepare creates and loads what the workload needs.
	Prepare(ctx context.Context, opt PrepareOptions, p Progress) error
	// Cleanup removes what Prepare created (and only that, unless
	// opt.Force). removed names what it dropped or deleted (tables, a
	// file), in order, also when it then fails; none when nothing was there
	// to clean up. Bookkeeping (rightsize_objects, a file's record) is not
	// listed.
	Cleanup(ctx context.Context, opt PrepareOptions) (removed []string, err error)
	// NewVU opens one virtual user. id is unique within the instance; seed is
	// the VU's random seed.
	NewVU(ctx context.Context, id int, seed uint64) (VU, error)
	// Classify maps an error from VU.Event to its class.
	Classify(err error) errclass.Class
	// Hooks are the instance's optional behaviours.
	Hooks() InstanceHooks
	Close() error
}

// Workload is a workload with its options: what it is, as data (Meta), and
// the few calls that need its code. Flags bind to one value; use one per
// command line.
type Workload interface {
	// Meta describes the workload with its options as they stand: call it
	// after Validate for the facts that follow from the options (Steps,
	// VUs). Each call returns a fresh value.
	Meta() Meta
	// BindFlags registers the workload's options on fs.
	BindFlags(fs *pflag.FlagSet)
	// Validate checks the options and returns every problem at once (errors.Join).
	Validate() error
	// Options returns the effective options as the workload's typed value:
	// its JSON form, an object, is the result's options (Record), and a
	// workload reads a result's options back into the same type
	// (ReadOptions).
	Options() any
	// ParseTarget validates a --target value without opening anything; an empty
	// raw means the workload's default. The target opens with the workload's
	// options as they are then.
	ParseTarget(raw string, o TargetOptions) (Target, error)
	// Hooks are the workload's optional behaviours.
	Hooks() Hooks
}

// Meta is what a workload is, as data: its name and help, what its virtual
// users run and report, the steps and virtual users its options fix, what
// prepare does for it and its options. CockroachDB's workload.Meta and
// FlagMeta are the model. Static facts live here; behaviour that needs the
// workload's code is in its Hooks (optional) or on an interface (VU,
// Pipeline, Reconnector: what virtual users do).
type Meta struct {
	// Name is the workload on the command line and in the result
	// ("oltp_read_write", "tpcc").
	Name string
	// Arg is what a command line names it by when that is not Name: a
	// workload file's path ('rightsize run my-app.yaml'; Name is the
	// file's name:). Use Meta.CommandArg.
	Arg string
	// Short is a one-line description for --help and the workload list.
	Short string
	// Long is the full help text (what it runs, its defaults and why).
	Long string
	// Event names what one VU.Event runs ("transaction", "io").
	Event string
	// Ops lists the operations VUs report through their Meter, indexed by
	// position.
	Ops []Op
	// Counters names the workload's own counters, which VUs report through
	// Meter.Count by index; the result lists them by name in each summary.
	// None for a workload without counters of its own.
	Counters []string
	// Variants are the runs one command makes in turn (fileio's read mixes),
	// each instance selecting one through InstanceHooks.SetVariant; none for
	// a workload that makes one run.
	Variants []Variant
	// VariantAxis names what Variants vary, for a sweep's table ("read %").
	VariantAxis string
	// VUs is the number of virtual users per instance when the options set
	// it (fileio's pattern threads): --threads, --rate and --think-time then
	// do not apply. 0: --threads sets it.
	VUs int
	// Prepare tells that prepare loads something (tables, a file). A
	// workload without (noop) is never prepared by run's --prepare auto.
	Prepare bool
	// Check tells that the workload has consistency checks (rightsize
	// check): its instances have InstanceHooks.Check.
	Check bool
	// ServerCounters are counts the workload's data keep, each a query of
	// one number by its name (TPC-C: "new_orders", the sum of
	// district.d_next_o_id). The server-stats monitor reads them with the
	// server's own counters, at the measured window's edges, and the result
	// has their deltas as "workload.<name>" (result.ServerStats.Counters).
	ServerCounters map[string]string
	// Options describe the workload's options as the result records them
	// (Workload.Options), in the order of its options' type.
	Options []Option
}

// CommandArg is what a command line names the workload by: Arg, else Name.
func (m Meta) CommandArg() string {
	if m.Arg != "" {
		return m.Arg
	}
	return m.Name
}

// Option describes one option of a workload as the result records it
// (FlagMeta in CockroachDB's workload).
type Option struct {
	// Name is its key in the result's options (the flag's name, where the
	// option is a flag).
	Name string
	// Type is the Go type of its value: "int", "int64", "float64", "bool",
	// "string".
	Type string
	// Data tells that the option shapes the data prepare loads (oltp's
	// --tables, tpcc's --warehouses, fileio's --size): data prepared with
	// another value do not match it. The other options are runtime only
	// (CockroachDB's FlagMeta.RuntimeOnly).
	Data bool
}

// TargetOptions are what parsing a --target takes besides its text: the
// command's settings for every target, and the instance it is for.
type TargetOptions struct {
	// Getenv supplies the environment (PostgreSQL's PG* variables); nil
	// reads nothing.
	Getenv func(string) string
	// Index is the instance number, from 0 (it names default targets).
	Index int
	// ConnectTimeout bounds each attempt to connect to a database server: a
	// virtual user's first connection, each reconnect, prepare's and check's
	// (--connect-timeout); 0 means the dialects' default (10 s). A target
	// that is a file (SQLite, fileio) ignores it.
	ConnectTimeout time.Duration
}
