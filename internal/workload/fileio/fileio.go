package fileio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/workload"
)

// Name is the workload's name.
const Name = "fileio"

// Operations, indexes into Ops.
const (
	opRead = iota
	opWrite
)

// Workload is the storage workload with its options.
type Workload struct{ opt Options }

var _ workload.Workload = (*Workload)(nil)

// New returns the workload with the default options.
func New() *Workload { return &Workload{opt: DefaultOptions()} }

// Meta describes fileio: reads and writes timed apart, one I/O per event,
// the read mixes of --read as its steps and the pattern's threads as its
// virtual users, as the options stand (VUs is 1 while the pattern does not
// parse: Validate says why).
func (w *Workload) Meta() workload.Meta {
	o := w.opt
	_ = o.Validate() // the parsed pattern and mixes; the errors are Validate's to report
	return workload.Meta{
		Name:  Name,
		Short: `storage I/O: fio-style patterns ("t1 o32 b16k"), read mixes, direct I/O; IOPS, MB/s, per VM and per GB`,
		Long:  long,
		Event: "io",
		Ops:   []workload.Op{opRead: {Name: "read", Kind: workload.Read, Type: true}, opWrite: {Name: "write", Kind: workload.Write, Type: true}},
		// Each thread of the pattern is one virtual user keeping --iodepth
		// I/Os in flight.
		VUs:         max(o.pattern.Threads, 1),
		Variants:    steps(o.mixes),
		VariantAxis: "read %",
		Prepare:     true,
		Options:     workload.OptionsOf(Recorded{}),
	}
}

func (w *Workload) BindFlags(fs *pflag.FlagSet) { w.opt.bind(fs) }
func (w *Workload) Validate() error             { return w.opt.Validate() }

// Options returns the options as the result records them (Recorded); call
// it after Validate.
func (w *Workload) Options() any { return w.opt.recorded() }

const long = `Storage I/O in the seed studies' notation: --pattern "t<threads> o<outstanding
I/Os per thread> b<block size>", e.g. "t1 o32 b16k", at a read percentage
(--read; a list such as 100,90,70 runs each in turn), random (default) or
--sequential. fio's flags work too: --numjobs, --iodepth, --bs, --rw,
--rwmixread.

  rightsize prepare fileio --file /data/rs.dat --size 20G
  rightsize run fileio --file /data/rs.dat --pattern "t1 o32 b16k" --read 70 --time 60s --warmup 10s
  rightsize run fileio --file /data/rs.dat --read 100,90,70 --vms 50 --capacity 2TB

Each thread is one virtual user (so --threads does not apply) that keeps its
queue depth in flight from one goroutine through io_uring, or, where the
kernel refuses io_uring (or with --engine psync), one blocking pread/pwrite
per outstanding I/O; the result says which engine ran. I/O is direct
(O_DIRECT, buffers aligned to 4 KiB) unless --buffered. Every I/O is timed
into the same HDR histograms as the database workloads, reads and writes
apart; the run's event is one I/O.

prepare lays the file out in full (written with random data, not sparse) and
records it beside the file (.<name>.rightsize.json); a file already laid out
with --size is kept, and one laid out again is said why ("the file holds
1GiB (laid out by prepare), --size asks 20GiB: laying it out again"). run
takes the file as it is; given --size, it refuses a file of another size
(exit 1) unless --force. It refuses to overwrite
or shrink a file it did not create unless --force; cleanup deletes only files
it created, and a run that writes to a file prepare did not lay out needs
--force-write. A block device needs no prepare and is never deleted; reads
from it are always allowed, but a run that writes (a read percentage under
100, or --precondition) refuses a device that is mounted, in use, has
partitions or holds a filesystem, partition table or other signature, unless
--force-device-write.

--precondition writes the whole target sequentially before the run (as
storage studies do to reach an SSD's steady state); --warmup runs the
pattern itself before the measured window. The result adds, per direction,
IOPS, MB/s (10^6 bytes) and MiB/s, latency percentiles, the engine and the
client CPU per I/O; with --vms and --capacity, the per-VM and per-GB figures
of the seed's table.`

// ParseTarget takes --target, or --file when --target is not given: a
// path, or a file URL (file:PATH, file:///PATH). A database's URL or a
// connection string with a password is refused without being quoted.
func (w *Workload) ParseTarget(raw string, _ workload.TargetOptions) (workload.Target, error) {
	if strings.TrimSpace(raw) == "" {
		raw = w.opt.File
	}
	raw = strings.TrimSpace(raw)
	// A file URL (file:/data/x, file:///data/x), as the report's layout
	// line writes a file, names the file.
	if rest, ok := strings.CutPrefix(raw, "file:"); ok {
		if strings.HasPrefix(rest, "///") {
			rest = rest[2:]
		}
		raw = rest
	}
	if raw == "" {
		return nil, fmt.Errorf("%w: give the file or block device to test with --file (or --target)", dialect.ErrBadTarget)
	}
	if what := databaseLocation(raw); what != "" {
		// Not quoted: it may hold a password.
		return nil, fmt.Errorf("%w: fileio tests a file or a block device, and the target is %s", dialect.ErrBadTarget, what)
	}
	return &target{w: w, path: raw}, nil
}

// databaseLocation says what a target that is not a path is (a URL with
// a scheme other than file:, or a connection string with a password=
// field) and how to give a path, "" for a path.
func databaseLocation(raw string) string {
	if scheme, _, ok := strings.Cut(raw, "://"); ok && isScheme(scheme) {
		return "a URL (" + scheme + "://...): give a path (./" + scheme + ":... for a file whose name starts so)"
	}
	for _, f := range strings.Fields(raw) {
		if k, _, ok := strings.Cut(f, "="); ok && strings.HasSuffix(strings.ToLower(k), "password") {
			return "a connection string with a password: give a path"
		}
	}
	return ""
}

// isScheme reports whether s is a URL scheme: a letter, then letters,
// digits, '+', '-' or '.'.
func isScheme(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

// Open binds the workload to the target; the file may not exist yet
// (prepare creates it).
func (tg *target) Open(ctx context.Context) (workload.Instance, error) {
	o := tg.w.opt
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	in := &instance{o: o, path: tg.path}
	in.SetInfo(workload.InstanceInfo{Target: tg.path, Dialect: "file", Local: true})
	return in, nil
}

// instance is the workload bound to one file or device.
type instance struct {
	workload.Described
	o    Options
	path string

	mu   sync.Mutex
	step int // the read mix the VUs run (index into o.mixes)

	setupOnce sync.Once
	setupErr  error
	dev       bool   // a block device
	size      int64  // bytes the I/Os cover (whole blocks)
	engine    string // the engine the VUs use
}

// Classify maps I/O errors: a cancelled or timed-out context, else other.
func (in *instance) Classify(err error) errclass.Class {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errclass.Timeout
	}
	return errclass.Generic(err)
}

func (in *instance) Close() error { return nil }

// Hooks: the read mixes are variants, run lays a missing file out, and a
// laid-out file is matched against --size.
func (in *instance) Hooks() workload.InstanceHooks {
	return workload.InstanceHooks{SetVariant: in.SetVariant, NeedsPrepare: in.NeedsPrepare, Match: in.Match}
}

// steps are the read percentages of --read, run in turn.
func steps(mixes []int) []workload.Variant {
	var out []workload.Variant
	for _, pct := range mixes {
		out = append(out, workload.Variant{Label: fmt.Sprintf("read %d%%", pct), X: float64(pct), Options: map[string]any{"read": pct}})
	}
	return out
}

// SetVariant selects the read mix the next VUs run.
func (in *instance) SetVariant(i int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if i >= 0 && i < len(in.o.mixes) {
		in.step = i
	}
}

// NeedsPrepare: run lays the file out when it does not exist yet, as fio
// does (never under /dev); an existing file is used as it is.
func (in *instance) NeedsPrepare() bool {
	if strings.HasPrefix(filepath.Clean(in.path), "/dev/") {
		return false // a mistyped device name must not become a file in /dev
	}
	_, err := os.Stat(in.path)
	return errors.Is(err, os.ErrNotExist)
}
