package pgbench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/workfile"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/custom"
	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// Name is the workload's name on the command line.
const Name = "pgbench"

// Workload is pgbench with its options. Flags bind to it; use one value per
// command line.
type Workload struct {
	o Options
	// The flags as given.
	builtins, files, defines []string
	selectOnly, skipUpdates  bool

	prog    *pgbenchscript.Program // Validate's
	spec    *workfile.Spec         // Validate's: the scripts compiled
	err     error                  // Validate's, kept
	checked bool
}

// Options are what a result records of a pgbench run.
type Options struct {
	// Scale is -s: pgbench_accounts holds 100,000 rows per unit (prepare);
	// a run's :scale (0: the count of pgbench_branches, as pgbench counts
	// it, or 1 without tables).
	Scale int `json:"scale" data:"true"`
	// Fillfactor is -F, the fill factor of pgbench_accounts, _branches and
	// _tellers.
	Fillfactor int `json:"fillfactor" data:"true"`
	// Scripts are the scripts run, NAME@WEIGHT, comma-separated.
	Scripts string `json:"scripts"`
	// Define are the -D variables, NAME=VALUE, comma-separated.
	Define string `json:"define,omitempty"`
}

var (
	_ workload.Workload = (*Workload)(nil)
	_ workload.Instance = (*instance)(nil)
)

// Hooks: databases numbered by --instances, and the -f scripts, which a
// run elsewhere needs a copy of.
func (w *Workload) Hooks() workload.Hooks {
	return workload.Hooks{NumberTargets: w.NumberTargets, LocalFiles: w.LocalFiles}
}

// Hooks: the tables matched against the options, and the run's seed for
// the scripts' random draws.
func (in *instance) Hooks() workload.InstanceHooks {
	return workload.InstanceHooks{Match: in.Match, SeedRun: in.SeedRun}
}

// New returns pgbench with its defaults: scale 1, fill factor 100, the
// tpcb-like script.
func New() *Workload { return &Workload{o: Options{Fillfactor: 100}} }

// Meta describes pgbench: one operation per script, a write unless every
// statement of the script reads.
func (w *Workload) Meta() workload.Meta {
	return workload.Meta{
		Name:    Name,
		Short:   "pgbench: its tables (pgbench -i) and scripts (-b tpcb-like|simple-update|select-only, -f FILE.sql) in pgbench's language",
		Long:    long,
		Event:   "transaction",
		Ops:     w.ops(),
		Prepare: true,
		Options: workload.OptionsOf(Options{}),
	}
}

const long = `pgbench's workload as pgbench users know it (docs/pgbench.md).

prepare makes pgbench's four tables as 'pgbench -i' does: pgbench_branches
(1 row per unit of --scale), pgbench_tellers (10), pgbench_accounts
(100,000) and pgbench_history (empty), with --fillfactor, the primary keys
added after the load, and VACUUM ANALYZE. The tables are recorded in
rightsize_objects (cleanup drops them); pgbench runs on them as on its own.

run runs pgbench's built-in scripts (-b, --builtin NAME[@W]: tpcb-like,
simple-update, select-only, or an unambiguous prefix; -S and -N are
select-only and simple-update) and script files in pgbench's language
(-f, --file FILE[@W]): SQL with :variables, \set with pgbench's expression
operators and functions, \sleep, \gset, \aset, \if/\elif/\else/\endif.
Without -b or -f it runs tpcb-like, as pgbench does. Each event runs one
script, chosen by weight; each script is an operation of the result (the
built-in's name, or the file's base name). :scale is --scale or the count of
pgbench_branches; :client_id is the virtual user's number; -D NAME=VALUE
defines more variables. Statements are prepared once per connection, as
pgbench -M prepared does; BEGIN travels with the statement after it.

Where pgbench's flags are rightsize's, rightsize's apply: --threads is
pgbench's -c, --time its -T, --rate its -R. A script pgbench refuses is
refused before anything runs, with its file and line. Runs on tables
'pgbench -i' made use them as they are (a note says so). PostgreSQL only.`

// ops names the scripts' operations, the transaction types (each event
// runs one script): the compiled scripts' after Validate, else from the
// flags as given.
func (w *Workload) ops() []workload.Op {
	if w.spec != nil {
		return custom.Ops(w.spec)
	}
	specs, _ := w.specs()
	ops := make([]workload.Op, len(specs))
	for i, s := range specs {
		kind := workload.Write
		if s.builtin == "select-only" {
			kind = workload.Read
		}
		ops[i] = workload.Op{Name: s.name, Kind: kind, Type: true}
	}
	return ops
}

func (w *Workload) BindFlags(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&w.builtins, "builtin", "b", nil, "add pgbench's built-in script NAME weighted at W (default 1): tpcb-like, simple-update, select-only (NAME[@W]; repeatable)")
	fs.StringArrayVarP(&w.files, "file", "f", nil, "add the script FILENAME in pgbench's language weighted at W (default 1) (FILENAME[@W]; repeatable)")
	fs.BoolVarP(&w.selectOnly, "select-only", "S", false, "the same as -b select-only")
	fs.BoolVarP(&w.skipUpdates, "skip-some-updates", "N", false, "the same as -b simple-update")
	fs.IntVarP(&w.o.Scale, "scale", "s", w.o.Scale, "scaling factor: prepare makes 100,000 accounts per unit (default 1); run: the :scale of the scripts (default: the count of pgbench_branches)")
	fs.IntVarP(&w.o.Fillfactor, "fillfactor", "F", w.o.Fillfactor, "fill factor of pgbench_accounts, pgbench_branches and pgbench_tellers (prepare)")
	fs.StringArrayVarP(&w.defines, "define", "D", nil, "define a variable for the scripts (NAME=VALUE; repeatable)")
}

// spec is one script asked for.
type spec struct {
	name    string // the operation's name
	builtin string // the built-in's name, or ""
	path    string // the file, or ""
	weight  int
}

// specs reads -b, -f, -S and -N into the scripts to run, tpcb-like when
// none; the problems are returned joined.
func (w *Workload) specs() ([]spec, error) {
	var out []spec
	var errs []error
	add := func(flag, arg string, file bool) {
		name, weight, err := splitWeight(arg)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", flag, arg, err))
			return
		}
		if file {
			base := strings.TrimSuffix(filepath.Base(name), ".sql")
			out = append(out, spec{name: base, path: name, weight: weight})
			return
		}
		b, err := pgbenchscript.FindBuiltin(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", flag, arg, err))
			return
		}
		out = append(out, spec{name: b.Name, builtin: b.Name, weight: weight})
	}
	for _, b := range w.builtins {
		add("--builtin", b, false)
	}
	if w.selectOnly {
		add("--select-only", "select-only", false)
	}
	if w.skipUpdates {
		add("--skip-some-updates", "simple-update", false)
	}
	for _, f := range w.files {
		add("--file", f, true)
	}
	if len(out) == 0 && len(errs) == 0 {
		out = append(out, spec{name: "tpcb-like", builtin: "tpcb-like", weight: 1})
	}
	if len(out) > MaxScripts {
		// pgbench's own limit and words; checked before any script is read.
		return nil, fmt.Errorf("%d scripts: at most %d SQL scripts are allowed", len(out), MaxScripts)
	}
	// Two scripts of one name would be one operation: number the others.
	seen := map[string]int{}
	for i := range out {
		seen[out[i].name]++
		if n := seen[out[i].name]; n > 1 {
			out[i].name += "#" + strconv.Itoa(n)
		}
	}
	return out, errors.Join(errs...)
}

// MaxScripts is how many scripts (-f, -b and their shorthands) one run
// may mix: pgbench's limit.
const MaxScripts = 128

// splitWeight splits NAME@W (the last @) as pgbench does: W in 0 to
// 2^31-1, 1 without.
func splitWeight(arg string) (string, int, error) {
	at := strings.LastIndexByte(arg, '@')
	if at < 0 {
		return arg, 1, nil
	}
	w, err := strconv.ParseInt(arg[at+1:], 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("invalid weight specification: %s", arg[at:])
	}
	if w < 0 || w > math.MaxInt32 {
		return "", 0, fmt.Errorf("weight specification out of range (0 .. %d): %d", math.MaxInt32, w)
	}
	return arg[:at], int(w), nil
}

// Validate checks the options and reads and checks every script, returning
// every problem at once: a script's each with its file and line (wrapping
// pgbenchscript.ErrInvalid).
func (w *Workload) Validate() error {
	if w.checked {
		return w.err
	}
	w.checked = true
	var errs []error
	if w.o.Scale < 0 || w.o.Scale > 1000000 {
		errs = append(errs, fmt.Errorf("--scale %d: want 1 to 1,000,000", w.o.Scale))
	}
	if w.o.Fillfactor < 10 || w.o.Fillfactor > 100 {
		errs = append(errs, fmt.Errorf("--fillfactor %d: want 10 to 100", w.o.Fillfactor))
	}
	var defs []workfile.Define
	var names []string
	for _, d := range w.defines {
		name, value, ok := strings.Cut(d, "=")
		if !ok || name == "" {
			errs = append(errs, fmt.Errorf("--define %s: want NAME=VALUE", d))
			continue
		}
		defs = append(defs, workfile.Define{Name: name, Value: value})
		names = append(names, name)
	}
	specs, err := w.specs()
	if err != nil {
		errs = append(errs, fmt.Errorf("%w: %w", pgbenchscript.ErrInvalid, err))
	}
	prog := pgbenchscript.NewProgram(names...)
	total := 0
	var recorded []string
	for _, s := range specs {
		var err error
		if s.builtin != "" {
			b, _ := pgbenchscript.FindBuiltin(s.builtin)
			_, err = prog.Add(s.name, b.Desc, b.Script, s.weight)
		} else {
			data, rerr := workload.ReadUserFile(s.path, workload.MaxLocalFile)
			if rerr != nil {
				errs = append(errs, fmt.Errorf("%w: could not open file %q: %w", pgbenchscript.ErrInvalid, s.path, rerr))
				continue
			}
			_, err = prog.Add(s.name, s.path, string(data), s.weight)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		total += s.weight
		recorded = append(recorded, s.name+"@"+strconv.Itoa(s.weight))
	}
	if len(errs) == 0 {
		if err := prog.Check(); err != nil {
			errs = append(errs, err)
		}
		if total == 0 {
			errs = append(errs, fmt.Errorf("%w: total script weight must not be zero", pgbenchscript.ErrInvalid))
		}
	}
	w.o.Scripts = strings.Join(recorded, ",")
	w.o.Define = strings.Join(w.defines, ",")
	if len(errs) == 0 {
		w.prog, w.spec = prog, workfile.FromScripts(Name, prog, defs)
	}
	w.err = errors.Join(errs...)
	return w.err
}

// Options returns the options as the result records them.
func (w *Workload) Options() any { return w.o }

// NumberTargets derives n targets from raw for --instances (dbtarget.Number).
func (w *Workload) NumberTargets(raw string, n int) ([]string, error) {
	return dbtarget.Number(raw, "pgbench", n)
}

// ParseTarget parses a PostgreSQL URL.
func (w *Workload) ParseTarget(raw string, o workload.TargetOptions) (workload.Target, error) {
	return dbtarget.ParseFor(raw, "pgbench", o, w.open)
}

// open binds the scripts to the target without connecting: PostgreSQL
// only.
func (w *Workload) open(_ context.Context, tg *dbtarget.DB) (workload.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if d := tg.D.Name(); d != "postgres" {
		return nil, fmt.Errorf("%s: %w: the pgbench workload runs on PostgreSQL only (its scripts are PostgreSQL's SQL), not %s: give a postgres:// --target", tg, dialect.ErrBadTarget, d)
	}
	in := &instance{o: w.o, builtin: w.usesBuiltin()}
	in.Instance = custom.OpenScripts(w.spec, tg, in.scaleFor)
	return in, nil
}

// usesBuiltin reports whether a built-in script runs (it needs the tables).
func (w *Workload) usesBuiltin() bool {
	specs, _ := w.specs()
	for _, s := range specs {
		if s.builtin != "" {
			return true
		}
	}
	return false
}
