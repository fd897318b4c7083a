package custom

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// Looks reports whether a command's workload argument names a workload
// file rather than a built-in workload: it ends in .yaml or .yml, or
// holds a path separator, and is no URL.
func Looks(arg string) bool {
	if strings.Contains(arg, "://") {
		return false // a URL (a target given where a workload goes) is never read, nor echoed
	}
	return strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") || strings.ContainsRune(arg, '/')
}

// Load reads and checks the workload file at path. A file that does not
// read, or that workfile refuses (every problem, with its line: an error
// wrapping workfile.ErrInvalid), is an error; the file's warnings are in
// the workload's Warnings.
func Load(path string) (*Workload, error) {
	data, err := workload.ReadUserFile(path, MaxFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnreadable, err)
	}
	spec, err := workfile.Parse(path, data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	w := New(spec, hex.EncodeToString(sum[:8]))
	w.data = data
	return w, nil
}

// MaxFile is the most a workload file may weigh: 16 MiB (a capture of
// thousands of statements is a few hundred KiB).
const MaxFile = 16 << 20

// ErrUnreadable is wrapped by Load's error for a file it cannot read
// (a device or a named pipe, refused unread, among them).
var ErrUnreadable = exitcode.New("cannot read the workload file", exitcode.Usage)

// Workload is a workload file's workload with its options. Flags bind to
// it; use one value per command line.
type Workload struct {
	spec *workfile.Spec
	o    Options
	data []byte // the file's text, as read (Load)
}

// Options are what a result records of a file's run: the file (its path
// and a digest of its text, so that two results of different files of one
// name tell apart) and the consent to write existing tables.
type Options struct {
	File   string `json:"file"`
	Digest string `json:"file_digest"` // the first 8 bytes of the file's SHA-256, in hex
	// AllowWrites is --allow-writes: the consent, given once, that the
	// file's transactions write tables it declares existing (a copy of
	// production).
	AllowWrites bool `json:"allow-writes"`
}

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Instance = (*Instance)(nil)

	_ workload.Reconnector = (*vu)(nil)
	_ workload.Pacer       = (*pacedVU)(nil)
)

// New returns the workload of a checked file; digest identifies the file's
// text in results.
func New(spec *workfile.Spec, digest string) *Workload {
	return &Workload{spec: spec, o: Options{File: spec.File, Digest: digest}}
}

// Hooks: databases numbered by --instances, the file's baseline_rate as
// what --rate 1x means (0: none) when the command line gives no
// --baseline-rate, and the file itself (a distributed run's pods get a
// copy; its digest tells an edited file apart; its warnings).
func (w *Workload) Hooks() workload.Hooks {
	return workload.Hooks{
		NumberTargets: w.NumberTargets,
		BaselineRate:  func() float64 { return w.spec.BaselineRate },
		Definition: func() workload.Definition {
			return workload.Definition{Path: w.spec.File, Data: w.data, Digest: w.o.Digest, Warnings: w.spec.WarningLines()}
		},
	}
}

// Spec returns the checked file.
func (w *Workload) Spec() *workfile.Spec { return w.spec }

// Meta describes the file's workload: one operation per transaction, its
// type (its response time is the transaction's), then one per statement
// (its own time, read or write) and, when a transaction is not
// autocommit, BEGIN and COMMIT (opsOf).
func (w *Workload) Meta() workload.Meta {
	s := w.spec
	ops, _ := opsOf(s)
	short := "workload file " + s.File
	if s.Description != "" {
		short += ": " + s.Description
	}
	return workload.Meta{
		Name:    s.Name,
		Arg:     s.File,
		Short:   short,
		Long:    long(s),
		Event:   "transaction",
		Ops:     ops,
		Prepare: slices.ContainsFunc(s.Tables, func(t workfile.Table) bool { return !t.Existing }),
		Options: workload.OptionsOf(Options{}),
	}
}

// Ops are the operations of a Spec's workload, as Meta lists them.
func Ops(s *workfile.Spec) []workload.Op {
	ops, _ := opsOf(s)
	return ops
}

// opLayout is where a file's operations are in its Meta.Ops: each
// statement's (by transaction, then statement), BEGIN's and COMMIT's (-1:
// every transaction is autocommit).
type opLayout struct {
	stmt          [][]int
	begin, commit int
}

// opsOf are a file's operations, as Meta lists them and VUs report them:
// the transactions (types of kind Transaction: their statements are the
// queries), then each statement, named <transaction>/<statement> (the
// statement's number when the file names it not), then BEGIN and COMMIT.
func opsOf(s *workfile.Spec) ([]workload.Op, opLayout) {
	var ops []workload.Op
	for _, t := range s.Transactions {
		kind := workload.Transaction
		if t.Script { // one operation, a read unless a statement may write
			kind = workload.Write
			if t.ReadOnly() {
				kind = workload.Read
			}
		}
		ops = append(ops, workload.Op{Name: t.Name, Kind: kind, Type: true})
	}
	l := opLayout{stmt: make([][]int, len(s.Transactions)), begin: -1, commit: -1}
	inTx := false
	for i, t := range s.Transactions {
		if t.Script { // its statements are not operations (stmt -1)
			l.stmt[i] = slices.Repeat([]int{-1}, len(t.Statements))
			continue
		}
		inTx = inTx || !t.Autocommit
		for j := range t.Statements {
			st := &t.Statements[j]
			name := st.Name
			if name == fmt.Sprintf("%s_%d", t.Name, j+1) {
				name = strconv.Itoa(j + 1)
			}
			kind := workload.Read
			if st.WritesData() {
				kind = workload.Write
			}
			l.stmt[i] = append(l.stmt[i], len(ops))
			ops = append(ops, workload.Op{Name: t.Name + "/" + name, Kind: kind})
		}
	}
	if inTx {
		l.begin, l.commit = len(ops), len(ops)+1
		ops = append(ops, workload.Op{Name: "begin", Kind: workload.Other}, workload.Op{Name: "commit", Kind: workload.Other})
	}
	return ops, l
}

// long is the help of a file's workload: its mix and its tables.
func long(s *workfile.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The workload described in %s (docs/workload-files.md).", s.File)
	if s.Description != "" {
		b.WriteString(" " + s.Description)
	}
	var total int64
	for _, tx := range s.Transactions {
		total += tx.Weight
	}
	b.WriteString("\n\nTransactions (the mix):")
	for _, tx := range s.Transactions {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(tx.Weight) / float64(total)
		}
		mode := "one transaction"
		if tx.Autocommit {
			mode = "autocommit"
		}
		fmt.Fprintf(&b, "\n  %-20s %5.1f %%  %d statement(s), %s", tx.Name, pct, len(tx.Statements), mode)
	}
	b.WriteString("\n\nTables:")
	for _, t := range s.Tables {
		if t.Existing {
			fmt.Fprintf(&b, "\n  %-20s existing: checked, never created, loaded or dropped", t.Name)
		} else {
			fmt.Fprintf(&b, "\n  %-20s created and loaded by prepare: %s rows", t.Name, workload.Thousands(t.Rows))
		}
	}
	return b.String()
}

func (w *Workload) BindFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&w.o.AllowWrites, "allow-writes", w.o.AllowWrites,
		"let the file's transactions write the tables it declares existing (a copy of production); the run names them")
}

// Validate checks the options (the file was checked when it was read):
// a file whose transactions write tables it declares existing, or run
// statements rightsize cannot read, needs the user's consent
// (--allow-writes, or allow_writes: true in the file) before anything is
// opened, whatever the command (workfile.Spec.CheckWrites).
func (w *Workload) Validate() error {
	if err := w.spec.CheckWrites(w.o.AllowWrites); err != nil {
		return fmt.Errorf("%s: %w", w.spec.File, err)
	}
	return nil
}

// Options returns the options as the result records them.
func (w *Workload) Options() any { return w.o }

// NumberTargets derives n targets from raw for --instances (dbtarget.Number).
func (w *Workload) NumberTargets(raw string, n int) ([]string, error) {
	return dbtarget.Number(raw, w.base(), n)
}

// ParseTarget parses a database URL; empty means a SQLite file under
// ./rightsize-data named after the workload.
func (w *Workload) ParseTarget(raw string, o workload.TargetOptions) (workload.Target, error) {
	return dbtarget.ParseFor(raw, w.base(), o, w.open)
}

// base is the default database's name: the workload's name as an
// identifier.
func (w *Workload) base() string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, w.spec.Name)
}

// ErrDialect is wrapped by the refusal of a target whose database the file
// does not name in its dialects.
var ErrDialect = exitcode.New("the workload file has no SQL for this database", exitcode.Usage)

// open binds the file to the target without connecting.
func (w *Workload) open(_ context.Context, tg *dbtarget.DB) (workload.Instance, error) {
	if err := w.Validate(); err != nil { // the consent to write, whoever opens it
		return nil, err
	}
	d := tg.D.Name()
	if !slices.Contains(w.spec.Dialects, d) {
		return nil, fmt.Errorf("%s: %w: %s names %s, not %s", tg, ErrDialect, w.spec.File, strings.Join(w.spec.Dialects, ", "), d)
	}
	in := &Instance{spec: w.spec, o: w.o, dialect: d, seqs: w.spec.NewSeqs()}
	_, in.ops = opsOf(w.spec)
	in.Init(tg)
	return in, nil
}

// OpenScripts binds a Spec compiled from pgbench scripts
// (workfile.FromScripts) to tg: the one interpreter runs them, with each
// virtual user's :scale from scale. The caller makes and matches the
// tables (the Instance's Prepare, Cleanup and Match are the file's).
func OpenScripts(spec *workfile.Spec, tg *dbtarget.DB, scale func(context.Context, dialect.Conn) (int64, error)) *Instance {
	in := &Instance{spec: spec, dialect: tg.D.Name(), seqs: spec.NewSeqs(), scale: scale}
	_, in.ops = opsOf(spec)
	in.Init(tg)
	return in
}

// Instance is a workload's Spec bound to a target: its virtual users are
// the interpreter (vu).
type Instance struct {
	dbtarget.Base
	spec    *workfile.Spec
	o       Options
	dialect string
	seqs    *workfile.Seqs
	ops     opLayout // where the statements' operations are
	// scale gives a VU's :scale (pgbench's scripts; nil for a file).
	scale func(context.Context, dialect.Conn) (int64, error)

	seedMu  sync.Mutex
	runSeed uint64 // the run's seed: the scripts' :random_seed and :default_seed

	sampleMu  sync.Mutex
	seqsAfter bool                        // the sequences with after: have started past their columns (startSeqs)
	samples   map[string][]workfile.Value // table.column: the values loaded (samples)
}

// Hooks: the tables matched against the file, and sequences shared out
// between shards.
func (in *Instance) Hooks() workload.InstanceHooks {
	return workload.InstanceHooks{Match: in.Match, SetShard: in.SetShard}
}

// Spec returns the spec the instance runs.
func (in *Instance) Spec() *workfile.Spec { return in.spec }

// SeedRun keeps the run's seed: the scripts' :random_seed, and
// :default_seed (hash's and permute's seed) derived from it, the same for
// every virtual user.
func (in *Instance) SeedRun(seed uint64) {
	in.seedMu.Lock()
	defer in.seedMu.Unlock()
	in.runSeed = seed
}

func (in *Instance) seeds() (random, dflt int64) {
	in.seedMu.Lock()
	defer in.seedMu.Unlock()
	return int64(in.runSeed), pgbenchscript.HashMurmur2(int64(in.runSeed), 0x5eed)
}
