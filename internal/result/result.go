// Package result is the data a run produces: pure types and their versioned
// JSON form. Everything downstream (analysis, reports, history, compare) reads
// these types, so a saved file can be analysed again without a database.
//
// Units: durations in the JSON are seconds (fields ending in _s) or
// milliseconds (latencies, fields ending in _ms); rates are per second.
// Histograms are HdrHistogram V2 compressed base64 strings of nanoseconds
// (see package hist), mergeable across instances, runs and shards.
package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/hist"
)

// SchemaVersion is the version of the JSON layout written by this build.
// It grows when a field changes meaning or is removed; new optional fields do
// not change it.
const SchemaVersion = 1

// ErrSchema wraps problems reading a result file.
var ErrSchema = errors.New("unsupported result file")

// Run is one run of one workload against one or more instances.
type Run struct {
	SchemaVersion int    `json:"schema_version"`
	Tool          Tool   `json:"tool"`
	ID            string `json:"id"`
	Label         string `json:"label,omitempty"`
	// Config is the configuration under test (run --config: "24 vCPU",
	// "HCI"; by default the label, else the target's host), by which
	// reports group runs to compare configurations.
	Config   string `json:"config,omitempty"`
	Workload string `json:"workload"`
	// WorkloadDigest identifies the workload's definition when the
	// workload is data (a workload file: the first 8 bytes of its text's
	// SHA-256, in hex), so that runs of one name from different or edited
	// files tell apart; absent for a built-in workload. A result written
	// before it was recorded here has it from its options' file_digest.
	WorkloadDigest string         `json:"workload_digest,omitempty"`
	Event          string         `json:"event"` // what one step is: "transaction", "io"
	Options        map[string]any `json:"options"`
	Load           Load           `json:"load"`
	Started        time.Time      `json:"started"`
	Ended          time.Time      `json:"ended"`
	Partial        bool           `json:"partial"`
	PartialReason  string         `json:"partial_reason,omitempty"`
	// Summary is the headline of the measured window, summed over instances.
	Summary Summary `json:"summary"`
	// Ops are per-operation figures of the measured window, summed over instances.
	// The first entry is the event itself (e.g. "transaction").
	Ops []Op `json:"ops"`
	// Warmup summarises the warm-up phase (excluded from Summary and Ops).
	Warmup *Summary `json:"warmup,omitempty"`
	// Intervals is the aggregate per-interval series, warm-up included (Phase tells).
	Intervals []Interval     `json:"intervals"`
	Instances []InstancePart `json:"instances"`
	// Client is the load generator's own cost (absent when not measured).
	Client *Client `json:"client,omitempty"`
	// Machine is the machine the load generator ran on (absent in results
	// written before it was recorded, and in a merged result: each
	// generator's is in Generators).
	Machine *Machine `json:"machine,omitempty"`
	// Figures are the workload's own figures (TPC-C's tpmC, fileio's IOPS
	// per VM) in the generic form reports render; absent for a workload
	// without figures of its own, and in checkpoints.
	Figures *Figures `json:"figures,omitempty"`
	// Fairness compares the instances' throughput (several instances only).
	Fairness *Fairness `json:"fairness,omitempty"`
	// TickerLag is present when the load generator fell behind its own
	// report ticks (a starved client): the per-interval series and host
	// samples then cover more than their nominal span, the totals are exact.
	TickerLag *TickerLag `json:"ticker_lag,omitempty"`
	// Host is the load generator's host over the measured window: the mean
	// of the measured intervals' host figures.
	Host *Host `json:"host,omitempty"`
	// ServerStats is the database server's own view of the measured window
	// (its sessions' waits and counters) when the run drove one instance;
	// with several, each instance has its own (InstancePart.ServerStats)
	// and the run none. Absent when it was not sampled (--server-stats
	// off, a database without such views).
	ServerStats *ServerStats `json:"server,omitempty"`
	// Shard is present in the result of one shard of a distributed run
	// (run --shard I/N): which part of the run this generator drove.
	Shard *Shard `json:"shard,omitempty"`
	// Generators is present in a merged result (rightsize merge): one entry
	// per shard, with the figures that belong to its generator's host.
	Generators []Generator `json:"generators,omitempty"`
	// Checkpoint is present in a checkpoint file only (the result path +
	// ".partial", rewritten while the run goes on): who was writing it.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
	// Section is the workload's own figures in its own JSON form, written
	// at the top level under the workload's name ("tpcc": {...}); see
	// section.go. Figures is what reports read.
	Section json.RawMessage `json:"-"`
}

// Checkpoint identifies the process that wrote a checkpoint, so that a later
// start can tell a run still going from one that was killed.
type Checkpoint struct {
	PID      int       `json:"pid"`
	Hostname string    `json:"hostname,omitempty"`
	Written  time.Time `json:"written"`
	// Result is where the run's result was to be written.
	Result string `json:"result"`
	// ResultError is why that result could not be written (a full disk),
	// when the checkpoint was kept for that reason and not because the
	// run was interrupted; "" otherwise.
	ResultError string `json:"result_error,omitempty"`
}

// Shard says which part of a distributed run one generator drove. A run of
// Threads virtual users per instance on Instances instances is split either
// by instances (each shard drives every virtual user of its instances) or by
// virtual users (each shard drives its range of every instance's virtual
// users); virtual users keep their number in the whole run, so TPC-C
// terminals keep their home warehouse and every virtual user its random
// stream: the shards together drive what one process would.
type Shard struct {
	// RunID is shared by the shards of one run; the result's own ID is
	// RunID with the shard appended.
	RunID string `json:"run_id"`
	Index int    `json:"index"` // 0 .. Count-1
	Count int    `json:"count"`
	// FirstInstance and Instances: this shard's instances of the run's
	// TotalInstances (by instance: a range; by virtual user: all).
	FirstInstance  int `json:"first_instance"`
	Instances      int `json:"instances"`
	TotalInstances int `json:"total_instances"`
	// FirstVU and VUs: this shard's virtual users of each instance's
	// TotalVUs.
	FirstVU  int `json:"first_vu"`
	VUs      int `json:"vus"`
	TotalVUs int `json:"total_vus"`
	// StartAt is the wall-clock moment the warm-up was to start (--start-at
	// or the barrier's); Waited is how long the generator waited for it
	// after connecting, and Late how far past it the warm-up started.
	StartAt *time.Time `json:"start_at,omitempty"`
	WaitedS float64    `json:"waited_s"`
	LateS   float64    `json:"late_s"`
	// Barrier says how the start was agreed: "history" (every shard
	// registered as connected in the history catalog), "time" (--start-at
	// alone) or "none" (started when ready).
	Barrier string `json:"barrier"`
}

// Generator is one shard's own figures in a merged result: what belongs to
// the machine that generated the load, not to the database.
type Generator struct {
	Shard      Shard      `json:"shard"`
	ResultID   string     `json:"result_id"`
	Started    time.Time  `json:"started"`
	Partial    bool       `json:"partial"`
	Reason     string     `json:"partial_reason,omitempty"`
	Count      int64      `json:"count"`
	Throughput float64    `json:"throughput"`
	Client     *Client    `json:"client,omitempty"`
	Host       *Host      `json:"host,omitempty"`
	TickerLag  *TickerLag `json:"ticker_lag,omitempty"`
	Machine    *Machine   `json:"machine,omitempty"`
}

// Machine is what the load generator ran on: its host name and CPU model
// (from /proc/cpuinfo; empty where it names none).
type Machine struct {
	Hostname string `json:"hostname"`
	CPUModel string `json:"cpu_model,omitempty"`
}

// Tool identifies the build that wrote the file.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// Load is how load was offered.
type Load struct {
	Mode      string  `json:"mode"` // "closed" (virtual users) or "open" (fixed arrival rate)
	Threads   int     `json:"threads"`
	Rate      float64 `json:"rate,omitempty"`    // intended starts per second per instance (open)
	Arrival   string  `json:"arrival,omitempty"` // "constant" or "poisson" (open)
	ThinkS    float64 `json:"think_s,omitempty"`
	ThinkDist string  `json:"think_dist,omitempty"`
	// WarmupS is the configured warm-up: with SteadyState, the longest one
	// (the warm-up summary's duration_s is how long it lasted).
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	IntervalS float64 `json:"interval_s"`
	GraceS    float64 `json:"grace_s"`
	LateS     float64 `json:"late_threshold_s,omitempty"`
	// Retry lists the error classes whose events are re-run.
	Retry []string `json:"retry,omitempty"`
	// MaxRetries is how many times an event is re-run at most (with Retry).
	MaxRetries int `json:"max_retries,omitempty"`
	// MaxErrorPct is the largest share of the measured window's events, in
	// percent, that may fail before the run counts as failed
	// (Run.TooManyErrors; --max-error-pct). Absent: not checked.
	MaxErrorPct *float64 `json:"max_error_pct,omitempty"`
	Seed        uint64   `json:"seed"`
	// RateMultiple and BaselineRate: --rate was given as a multiple (2x) of
	// --baseline-rate; Rate is their product.
	RateMultiple float64 `json:"rate_multiple,omitempty"`
	BaselineRate float64 `json:"baseline_rate,omitempty"`
	// SteadyState is what the steady-state detector found (absent when it
	// was off).
	SteadyState *SteadyState `json:"steady_state,omitempty"`
}

// SteadyState is the outcome of the steady-state detector, which ends the
// warm-up once the aggregate throughput and p99 latency have settled. A
// series' drift is how far a least-squares line through its warm-up
// intervals within the window moves over the window, in percent of the
// series' mean.
type SteadyState struct {
	WindowS      float64 `json:"window_s"`
	TolerancePct float64 `json:"tolerance_pct"`
	// Reached tells whether both drifts fell under the tolerance before the
	// longest warm-up (Load.WarmupS) was over.
	Reached bool `json:"reached"`
	// AtS is when the measured window started, in seconds of warm-up
	// (reached only).
	AtS float64 `json:"at_s,omitempty"`
	// ThroughputDriftPct and P99DriftPct are the drifts of the window found
	// steady, or of the warm-up's last full window when none was. NaN (null
	// in JSON) when no full window was seen, e.g. the run was interrupted
	// early; +Inf (also null) for a series of mean 0 that is not all 0.
	ThroughputDriftPct float64 `json:"throughput_drift_pct"`
	P99DriftPct        float64 `json:"p99_drift_pct"`
}

// steadyJSON is SteadyState with its drifts as pointers, nil for null.
type steadyJSON struct {
	plainSteady
	ThroughputDriftPct *float64 `json:"throughput_drift_pct"`
	P99DriftPct        *float64 `json:"p99_drift_pct"`
}

type plainSteady SteadyState // without the methods

// MarshalJSON writes drifts that are not finite as null, which JSON has in
// their place (as package analysis does).
func (s SteadyState) MarshalJSON() ([]byte, error) {
	return json.Marshal(steadyJSON{plainSteady(s), finite(s.ThroughputDriftPct), finite(s.P99DriftPct)})
}

// UnmarshalJSON reads a null (or missing) drift as NaN: not measured.
func (s *SteadyState) UnmarshalJSON(data []byte) error {
	var v steadyJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = SteadyState(v.plainSteady)
	s.ThroughputDriftPct, s.P99DriftPct = orNaN(v.ThroughputDriftPct), orNaN(v.P99DriftPct)
	return nil
}

// Latency is a latency distribution in milliseconds.
type Latency struct {
	AvgMs  float64 `json:"avg_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	P999Ms float64 `json:"p999_ms"`
	MaxMs  float64 `json:"max_ms"`
}

// Summary is the documented headline of a phase: what scripts read.
type Summary struct {
	Unit string `json:"unit"` // what Throughput counts: "transactions", "ios"
	// Throughput is successful events per second of the measured window:
	// Count over DurationS.
	Throughput float64 `json:"throughput"`
	// Count is the number of successful events that completed within the
	// measured window (whenever they were meant to start): what the system
	// did in it.
	Count int64 `json:"count"`
	// Latency is response time: from the intended start in open-loop runs
	// (queueing included), from the actual start in closed-loop runs.
	Latency Latency `json:"latency"`
	// ServiceTime is from the actual start; only in open-loop runs.
	ServiceTime *Latency `json:"service_time,omitempty"`
	// StartLag is, in open-loop runs, how late virtual users that were idle,
	// waiting for an intended start, began it: the load generator's own lag
	// (timer and scheduler), apart from any queueing behind the server.
	// Absent when no virtual user waited.
	StartLag *Latency `json:"start_lag,omitempty"`
	// QPS is successful sub-operations (statements) per second, split by
	// kind (a failed statement is among its op's errors).
	QPS           float64          `json:"qps"`
	Reads         int64            `json:"reads"`
	Writes        int64            `json:"writes"`
	Other         int64            `json:"other"`
	Errors        int64            `json:"errors"`
	ErrorsByClass map[string]int64 `json:"errors_by_class"`
	// ErrorMessages are the first distinct messages of each class of
	// Errors, with how many errors had each (errclass.MessagesPerClass a
	// class; an error of a class with another message is counted in
	// ErrorsByClass only). Absent when there were no errors.
	ErrorMessages []ErrorMessage `json:"error_messages,omitempty"`
	// Retries counts failed attempts of events that were re-run (sysbench's
	// "ignored errors": deadlocks, serialization failures, ...); the event's
	// latency spans all its attempts.
	Retries        int64            `json:"retries"`
	RetriesByClass map[string]int64 `json:"retries_by_class,omitempty"`
	// RetryMessages are the first messages of Retries, as ErrorMessages.
	RetryMessages []ErrorMessage `json:"retry_messages,omitempty"`
	// GaveUp counts events that failed with a retried class on their last
	// allowed attempt (after load.max_retries re-runs); they are among
	// Errors too, under that class. Absent when none did.
	GaveUp     int64 `json:"gave_up,omitempty"`
	Reconnects int64 `json:"reconnects"`
	// ReconnectFailures counts reconnect attempts that failed, split by
	// class in ReconnectFailuresByClass (absent when none did).
	ReconnectFailures        int64            `json:"reconnect_failures,omitempty"`
	ReconnectFailuresByClass map[string]int64 `json:"reconnect_failures_by_class,omitempty"`
	// ReconnectFailureMessages are the first messages of
	// ReconnectFailures, as ErrorMessages.
	ReconnectFailureMessages []ErrorMessage `json:"reconnect_failure_messages,omitempty"`
	// Cancelled counts events still in flight when the run stopped (its
	// window's end, or a signal) that were cancelled once --grace had
	// passed: cut short by rightsize, they are neither successes nor errors.
	Cancelled int64 `json:"cancelled,omitempty"`
	// Censored counts events in flight at the measured window's end (or
	// an interrupted run's stop) that did not complete within it, whether
	// they completed later (AfterWindow), were cancelled or were
	// abandoned: each is in Latency with its time so far at that moment, a
	// lower bound of its response time (as a timeout is recorded at its
	// limit), so that a stall shows in max and the percentiles. They are
	// not in Count or Throughput. Absent when none was.
	Censored int64 `json:"censored,omitempty"`
	// CensoredMaxMs is the longest time so far of the Censored events:
	// how long one had been waiting, unfinished, when the window ended.
	CensoredMaxMs float64 `json:"censored_max_ms,omitempty"`
	// AfterWindow counts events that completed after the window's end (or
	// an interrupted run's stop), within --grace: begun in time, they are
	// not in Count. Absent when none did.
	AfterWindow int64 `json:"after_window,omitempty"`
	// Offered is the open loop's intended starts per second due in the
	// window (those that began and those Dropped), however many completed:
	// the load asked for, beside Throughput, the load served. Absent in the
	// closed loop.
	Offered float64 `json:"offered,omitempty"`
	// Dropped counts intended starts due in the window that never began (open loop).
	Dropped int64 `json:"dropped"`
	// Late counts starts due in the window that began more than
	// LateThreshold after their intended time (open loop).
	Late      int64   `json:"late"`
	DurationS float64 `json:"duration_s"`
	Partial   bool    `json:"partial"`
	// Counters are the workload's own counts (TPC-C: rolled-back New-Orders,
	// remote order lines, ...), by name.
	Counters map[string]int64 `json:"counters,omitempty"`
	// Clamped counts successful events whose response time was above the
	// histograms' range (hist.Highest, 1 h) and was recorded as 1 h: the
	// latency figures understate them. Absent when none was.
	Clamped int64 `json:"clamped,omitempty"`
	// Histogram and ServiceTimeHistogram are the HDR histograms (ns) of
	// Latency and ServiceTime, kept in a shard's result (run --shard) so
	// that a merge adds them; absent otherwise (the measured window's event
	// histogram is always in Ops[0]).
	Histogram            string `json:"histogram,omitempty"`
	ServiceTimeHistogram string `json:"service_time_histogram,omitempty"`
	// Types are the transaction types of the measured window, most used
	// first, and SlowestFrequent the slowest by p95 of those that make up
	// most of the mix (TypesOf); absent from a warm-up's summary.
	Types           []Type `json:"types,omitempty"`
	SlowestFrequent string `json:"slowest_frequent,omitempty"`
}

// ErrorMessage is one distinct error message of a class and how many
// errors of the summary had it.
type ErrorMessage struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	Count   int64  `json:"count"`
}

// Op is one operation's figures.
type Op struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // "event", "read", "write", "other"
	// Type tells that the operation is a transaction type (workload.Op.Type):
	// its latency is its events' response time.
	Type          bool             `json:"type,omitempty"`
	Count         int64            `json:"count"`
	Rate          float64          `json:"rate"`
	Errors        int64            `json:"errors"`
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	Latency       Latency          `json:"latency"`
	// Histogram is the HDR histogram (ns) of successful operations.
	Histogram string `json:"histogram"`
}

// Interval is one --report-interval tick.
type Interval struct {
	EndS      float64 `json:"end_s"` // offset of the tick from the run's start
	DurationS float64 `json:"duration_s"`
	Phase     string  `json:"phase"` // "warmup" or "measure"
	Events    int64   `json:"events"`
	Rate      float64 `json:"rate"`
	Reads     int64   `json:"reads"`
	Writes    int64   `json:"writes"`
	Other     int64   `json:"other"`
	Errors    int64   `json:"errors"`
	// ErrorsByClass splits Errors by class (absent when there were none).
	ErrorsByClass map[string]int64 `json:"errors_by_class,omitempty"`
	Retries       int64            `json:"retries"`
	Reconnects    int64            `json:"reconnects"`
	// ReconnectFailures counts the interval's failed reconnect attempts.
	ReconnectFailures int64 `json:"reconnect_failures,omitempty"`
	// Offered is the open loop's schedule rate (intended starts per
	// second) and Late the starts that began late in the interval.
	Offered float64 `json:"offered,omitempty"`
	Late    int64   `json:"late,omitempty"`
	// ActiveVUs is how many virtual users completed at least one event in
	// the interval: fewer than the threads means some were held (by a
	// lock, a stalled network, a lost connection being re-opened).
	ActiveVUs int64   `json:"active_vus,omitempty"`
	Latency   Latency `json:"latency"`
	// Host is the load generator's host during the interval (/proc).
	Host *Host `json:"host,omitempty"`
	// Histogram is the HDR histogram (ns) of the interval's successful
	// events, kept in a shard's result so that a merge can add them
	// (absent otherwise).
	Histogram string `json:"histogram,omitempty"`
}

// InstancePart is one target's part of a run.
type InstancePart struct {
	Index   int    `json:"index"`
	Target  string `json:"target"` // password removed
	Dialect string `json:"dialect"`
	// ServerProduct is the server as it names itself ("PostgreSQL",
	// "MariaDB", "MySQL", "SQLite"), ServerVersion its version as it
	// reports it, number first ("15.20 (Debian 15.20-0+deb12u1)"). Both are
	// absent for a target that is no server (a file).
	ServerProduct string     `json:"server_product,omitempty"`
	ServerVersion string     `json:"server_version,omitempty"`
	Encrypted     bool       `json:"encrypted"`
	TLS           string     `json:"tls,omitempty"`
	Notes         []string   `json:"notes,omitempty"`
	Summary       Summary    `json:"summary"`
	Ops           []Op       `json:"ops"`
	Warmup        *Summary   `json:"warmup,omitempty"`
	Intervals     []Interval `json:"intervals"`
	// Figures are the workload's own figures of this instance (TPC-C's
	// tpmC), shown on its line of the summary.
	Figures *Figures `json:"figures,omitempty"`
	// ServerStats is this instance's server's own view of the measured
	// window (see Run.ServerStats); absent when it was not sampled.
	ServerStats *ServerStats `json:"server,omitempty"`
	// Section is the workload's own figures of this instance in its own
	// JSON form, written under the run's workload name ("tpcc": {...}).
	Section json.RawMessage `json:"-"`
}

// Server is the instance's server in short, its product and version number
// ("PostgreSQL 15.20", "MariaDB 10.11.19", "SQLite 3.46.1"); for a result
// written before the product was recorded, its dialect and version number
// (or the version as it was written, when that names the product); the
// dialect alone when no version is known.
func (in InstancePart) Server() string {
	v := in.ServerVersion
	if n := len(v) - len(strings.TrimLeft(v, "0123456789.")); n > 0 {
		v = strings.TrimRight(v[:n], ".")
	} else if v != "" && in.ServerProduct == "" {
		return v // "SQLite 3.46.0", as SQLite's was written
	}
	product := in.ServerProduct
	if product == "" {
		product = in.Dialect
	}
	return strings.TrimSpace(product + " " + v)
}

// Client is what the load generator itself cost, so that figures from a
// saturated client can be told apart from the server's.
type Client struct {
	// CPUUserS and CPUSysS are the rightsize process's CPU seconds from the
	// start of the measured window to the end of the run.
	CPUUserS float64 `json:"cpu_user_s"`
	CPUSysS  float64 `json:"cpu_sys_s"`
	// CPUPerEventUs is (user + sys) CPU microseconds per successful event in
	// that span. For an embedded database (SQLite) it includes the database.
	CPUPerEventUs float64 `json:"cpu_per_event_us"`
	// AllocsPerEvent is the Go heap objects the process allocated per
	// successful event in that span, and GCCycles the garbage collections
	// that ran in it: the load generator's allocation cost on its hot path
	// (with an embedded database, the database's too).
	AllocsPerEvent float64 `json:"allocs_per_event,omitempty"`
	GCCycles       int64   `json:"gc_cycles,omitempty"`
	// HostSharePct is that CPU as a share of the host's CPUs over the
	// window: 100 is every CPU busy with the load generator (0: unknown).
	HostSharePct float64 `json:"host_share_pct,omitempty"`
	NumCPU       int     `json:"num_cpu"`
	GoMaxProcs   int     `json:"gomaxprocs"`
	Hostname     string  `json:"hostname,omitempty"`
}

// TickerLag counts report ticks that fired more than one interval late.
type TickerLag struct {
	Ticks int     `json:"ticks"` // ticks in the run
	Late  int     `json:"late"`  // of them, late by more than an interval
	MaxS  float64 `json:"max_s"` // the worst lateness, seconds
}

// Ms converts a duration to float milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// LatencyOf summarises a histogram.
func LatencyOf(h *hist.Histogram) Latency {
	return Latency{
		AvgMs:  Ms(h.Mean()),
		P50Ms:  Ms(h.Quantile(0.50)),
		P95Ms:  Ms(h.Quantile(0.95)),
		P99Ms:  Ms(h.Quantile(0.99)),
		P999Ms: Ms(h.Quantile(0.999)),
		MaxMs:  Ms(h.Max()),
	}
}

// Encode writes r as indented JSON.
func Encode(w io.Writer, r *Run) error {
	v, err := r.jsonView()
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// EncodeCompact writes r as JSON without indentation: the same document,
// about a third smaller, and encoded in one buffer where Encode needs a
// second for the indented copy.
func EncodeCompact(w io.Writer, r *Run) error {
	v, err := r.jsonView()
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(v)
}

// Decode reads a result file, refusing schema versions this build does not
// know, and reading no more than MaxFileSize bytes of rd (past them it
// fails with ErrNotRead).
func Decode(rd io.Reader) (*Run, error) {
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	data, err := ReadCapped(rd)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	if probe.SchemaVersion == nil {
		return nil, fmt.Errorf("%w: no schema_version field", ErrSchema)
	}
	if *probe.SchemaVersion < 1 || *probe.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("%w: schema_version %d, this build reads 1..%d", ErrSchema, *probe.SchemaVersion, SchemaVersion)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	return &r, nil
}

// ReadSection reads a workload's own section of a result or of an instance
// (Run.Section, InstancePart.Section) into a T; nil when there is none.
// name is the workload's, for the message.
func ReadSection[T any](name string, section json.RawMessage) (*T, error) {
	if len(section) == 0 {
		return nil, nil
	}
	var v T
	if err := json.Unmarshal(section, &v); err != nil {
		return nil, fmt.Errorf("%s: the result's %s section: %w", name, name, err)
	}
	return &v, nil
}

// AddMessages adds the messages of b to a, as one run's error messages
// are added up across shards: a message in both adds its counts, a new
// one is kept while its class has fewer than perClass messages.
func AddMessages(a, b []ErrorMessage, perClass int) []ErrorMessage {
	for _, m := range b {
		n, found := 0, false
		for i := range a {
			if a[i].Class != m.Class {
				continue
			}
			if a[i].Message == m.Message {
				a[i].Count += m.Count
				found = true
				break
			}
			n++
		}
		if !found && n < perClass {
			a = append(a, m)
		}
	}
	return a
}

// ErrorPct is the share of the events that ended in the window, successful
// or failed, that failed, in percent (0 when none ended).
func (s Summary) ErrorPct() float64 {
	if n := s.Count + s.Errors; n > 0 {
		return 100 * float64(s.Errors) / float64(n)
	}
	return 0
}

// TooManyErrors reports whether more of the measured window's events failed
// than the run allowed (Load.MaxErrorPct): a run whose figures describe its
// failures more than the system.
func (r *Run) TooManyErrors() bool {
	m := r.Load.MaxErrorPct
	return m != nil && r.Summary.Errors > 0 && r.Summary.ErrorPct() > *m
}

// ErrorsFailed says what failed in a run with too many errors
// (TooManyErrors), on one line, its first message shown:
//
//	154204 of 154204 transactions failed (100.0 %, over --max-error-pct 1); other ×154204: division by zero
func (r *Run) ErrorsFailed() string {
	s := r.Summary
	line := fmt.Sprintf("%d of %d %ss failed (%.1f %%", s.Errors, s.Count+s.Errors, r.Event, s.ErrorPct())
	if m := r.Load.MaxErrorPct; m != nil {
		line += fmt.Sprintf(", over --max-error-pct %g", *m)
	}
	line += ")"
	for i, m := range s.ErrorMessages {
		if i == 2 {
			break
		}
		line += fmt.Sprintf("; %s ×%d: %s", m.Class, m.Count, m.OneLine())
	}
	return line
}

// OneLine is the message on one line (a server's message may span
// several), its control characters shown (Printable).
func (m ErrorMessage) OneLine() string {
	return Printable(strings.Join(strings.Fields(m.Message), " "))
}
