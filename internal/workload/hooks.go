package workload

import (
	"context"

	"github.com/rightsize/rightsize/internal/result"
)

// The optional behaviours of a workload, an instance and a target, off the
// hot path: each is a field whose nil value means the behaviour is absent
// (CockroachDB's workload.Hooks), so that a caller asks the value rather
// than asserting an interface. What virtual users do per event (VU,
// Pipeline, Pacer, Reconnector, Meter) stays on interfaces.

// Hooks are a workload's optional behaviours (Workload.Hooks).
type Hooks struct {
	// Summarize derives figures of the workload's own from a finished run
	// (TPC-C's tpmC, fileio's IOPS per VM): it sets them on r and on each
	// of its instances, as result.Figures, the generic form every report
	// renders, and as the workload's own typed section (result.Run.Section,
	// written under the workload's name). It must be a pure function of
	// the result's generic data (ops and their histograms, counters, load,
	// options, instances' notes), so that a saved or merged result can be
	// summarised again (workload/all.Summarize).
	Summarize func(r *result.Run) error
	// NumberTargets derives n targets from one --target (--instances n):
	// n databases on one server, n SQLite files. The strings are raw
	// targets for ParseTarget; they may hold a password and must never be
	// printed.
	NumberTargets func(raw string, n int) ([]string, error)
	// BaselineRate is what --rate 1x means, in events per second per
	// instance (a workload file's baseline_rate: the rate rightsize capture
	// observed in production); 0 for none. A run's --baseline-rate, when
	// given, wins.
	BaselineRate func() float64
	// LocalFiles returns the files the options name, which the workload
	// reads when it runs (pgbench's -f FILE@W), in their order (a file
	// named twice is listed twice), read as ReadLocalFile reads: a run
	// elsewhere (the pods of 'k8s job') needs a copy of each.
	LocalFiles func() ([]LocalFile, error)
	// Definition is the file that defines the workload when it is data (a
	// workload file), as it was read.
	Definition func() Definition
}

// Definition is the file a workload is read from (Hooks.Definition).
type Definition struct {
	// Path is the file's path as given; Data its text as read.
	Path string
	Data []byte
	// Digest identifies the text in results (the first 8 bytes of its
	// SHA-256, in hex): a run of an edited file is a run of another
	// workload (result.Run.WorkloadDigest).
	Digest string
	// Warnings are the file's warnings, "file:line: message" each, said
	// before it runs.
	Warnings []string
}

// InstanceHooks are an instance's optional behaviours (Instance.Hooks).
type InstanceHooks struct {
	// SetVariant selects the variant (an index into Meta.Variants) the
	// next virtual users run, for a workload with variants of its own
	// (fileio's read mixes).
	SetVariant func(i int)
	// NeedsPrepare tells whether run's --prepare auto should prepare the
	// instance (fileio: the file does not exist yet). Without it, auto
	// prepares only the default embedded target and numbered databases,
	// and only of a workload that has something to prepare (Meta.Prepare).
	NeedsPrepare func() bool
	// Match compares what prepare loaded on the target (as prepare
	// recorded it, or, without a record, what can be counted cheaply) with
	// the options the instance was opened with. run and sweep call it on
	// every instance after --prepare and before the first virtual user. An
	// error wrapping ErrMismatch is refused unless --force; any other error
	// always is. notes are what the run should know that does not stop it
	// (tables made by another tool, fewer tables used than exist); Match
	// also adds them, and a mismatch it finds, to the instance's notes, so
	// that the result of a run forced past a mismatch records it. Match
	// opens and closes its own connection.
	Match func(ctx context.Context) (notes []string, err error)
	// SeedRun hands the instance the run's seed before the first NewVU,
	// for a workload that draws run-wide random values once per run
	// (TPC-C's NURand constants), so that --seed repeats them.
	SeedRun func(seed uint64)
	// SetShard tells an instance whose virtual users draw values that must
	// be unique across the whole run (a workload file's sequences) that
	// this process drives shard index (from 0) of count (run --shard I/N),
	// before the first NewVU, so that each shard draws a share of its own.
	SetShard func(index, count int)
	// Check verifies the prepared (or run) database: rightsize check
	// <workload>, whose Meta.Check says so before any instance is opened.
	// It opens and closes its own connection; it returns an error, not a
	// failed condition, when it cannot check at all.
	Check func(ctx context.Context, p Progress) ([]CheckResult, error)
}

// TargetHooks are a target's optional facts (Target.Hooks).
type TargetHooks struct {
	// Identity is what the target resolves to: the same value for every
	// spelling of one database or file (a database's host with its
	// loopback names as one, its port with the default applied, the
	// database and the user: dialect.Location.Identity; a file's absolute
	// path). Two --target of one identity are refused, as they would share
	// tables. A target without it is known by its String.
	Identity func() string
	// LocalServer is where the target's database runs when the host
	// figures can find it: "embedded" (this process), or the server
	// listening at a network ("tcp", "unix") address on this host; network
	// is "" for a server elsewhere.
	LocalServer func() (network, address string)
	// DropCreatedDatabase drops the target's database when prepare
	// created it and it holds nothing else now; kept says why a database
	// prepare created is kept ("" when prepare did not create it).
	DropCreatedDatabase func(ctx context.Context) (dropped bool, kept string, err error)
}
