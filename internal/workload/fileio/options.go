package fileio

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Engines.
const (
	EngineAuto    = "auto"     // io_uring when the kernel allows it, else psync
	EngineIOUring = "io_uring" // one ring per thread, depth o
	EnginePsync   = "psync"    // one blocking pread/pwrite per outstanding I/O
)

// Options are the workload's flags. The pattern can be given in the seed's
// notation (--pattern "t1 o32 b16k") or with fio's flags (--numjobs,
// --iodepth, --bs, --rw, --rwmixread), which override its parts.
type Options struct {
	File         string // --file: the target (a regular file or a block device); --target works too
	Size         string // --size: the file's size, e.g. 20G ("": not given, prepare lays out DefaultSize)
	PatternText  string // --pattern
	NumJobs      int    // --numjobs (0: from --pattern)
	IODepth      int    // --iodepth (0: from --pattern)
	BS           string // --bs ("" : from --pattern)
	RW           string // --rw: fio's read, write, randread, randwrite, rw, randrw
	RWMixRead    int    // --rwmixread: read % of rw/randrw
	Read         string // --read: read percentages, "100,90,70"
	Random       bool   // --random
	Sequential   bool   // --sequential
	Buffered     bool   // --buffered: no O_DIRECT
	Engine       string // --engine
	VMs          int    // --vms: VMs sharing the volume, for per-VM figures
	Capacity     string // --capacity: the volume's capacity, for per-GB figures
	Precondition bool   // --precondition: write the whole target sequentially first
	ForceDevice  bool   // --force-device-write
	ForceWrite   bool   // --force-write

	// Parsed by Validate.
	pattern  Pattern
	size     int64
	mixes    []int // read percentages, one run each
	random   bool
	capacity int64
}

// DefaultSize is the size prepare lays out when --size is not given.
const DefaultSize = "1G"

// DefaultOptions: "t1 o32 b16k", 100 % random read, direct I/O, the seed's
// first pattern; no --size (prepare lays out DefaultSize, run takes the
// file as it is).
func DefaultOptions() Options {
	return Options{PatternText: "t1 o32 b16k", Read: "100", Engine: EngineAuto, RWMixRead: 50}
}

func (o *Options) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.File, "file", o.File, "the file (laid out by prepare) or block device to test; --target does the same and can be repeated for several volumes")
	fs.StringVar(&o.Size, "size", o.Size, "the file's size (k, m, g, t are powers of 1024, as in fio): prepare writes it in full, not sparse (default "+DefaultSize+"); run, when given, refuses a file of another size unless --force (default: the file as it is)")
	fs.StringVar(&o.PatternText, "pattern", o.PatternText, `the seed's notation "t<threads> o<outstanding I/Os per thread> b<block size>"`)
	fs.IntVar(&o.NumJobs, "numjobs", 0, "fio's threads (overrides t in --pattern)")
	fs.IntVar(&o.IODepth, "iodepth", 0, "fio's I/Os in flight per thread (overrides o in --pattern)")
	fs.StringVar(&o.BS, "bs", "", "fio's block size (overrides b in --pattern)")
	fs.StringVar(&o.RW, "rw", "", "fio's pattern: read, write, randread, randwrite, rw (readwrite), randrw; sets --random/--sequential and --read")
	fs.IntVar(&o.RWMixRead, "rwmixread", o.RWMixRead, "fio's read percentage of --rw rw and randrw")
	fs.StringVar(&o.Read, "read", o.Read, "read percentage; a list (100,90,70) runs each in turn and reports them side by side")
	fs.BoolVar(&o.Random, "random", false, "random offsets (the default)")
	fs.BoolVar(&o.Sequential, "sequential", false, "sequential offsets, each thread from its own part of the target")
	fs.BoolVar(&o.Buffered, "buffered", false, "go through the page cache (default: O_DIRECT with aligned buffers)")
	fs.StringVar(&o.Engine, "engine", o.Engine, "I/O engine: auto (io_uring if the kernel allows it, else psync), io_uring, psync")
	fs.IntVar(&o.VMs, "vms", 0, "VMs sharing the volume: adds per-VM IOPS and MB/s")
	fs.StringVar(&o.Capacity, "capacity", "", "the volume's capacity (e.g. 2TB, decimal as vendors state it; 2TiB binary): adds IOPS and MB/s per GB")
	fs.BoolVar(&o.Precondition, "precondition", false, "write the whole target sequentially before the run (steady state for SSDs), not measured")
	fs.BoolVar(&o.ForceDevice, "force-device-write", false, "allow writes to a block device that holds a filesystem or partitions or is in use (DESTROYS its data)")
	fs.BoolVar(&o.ForceWrite, "force-write", false, "allow a writing run on a regular file that prepare did not lay out (overwrites its data)")
}

// Validate parses and checks every option and returns every problem at once.
func (o *Options) Validate() error {
	var errs []error
	p, err := ParsePattern(o.PatternText)
	if err != nil {
		errs = append(errs, err)
	}
	if o.NumJobs != 0 {
		p.Threads = o.NumJobs
	}
	if o.IODepth != 0 {
		p.Depth = o.IODepth
	}
	if o.BS != "" {
		if b, err := ParseSize(o.BS); err != nil {
			errs = append(errs, fmt.Errorf("bs: %w", err))
		} else {
			p.Block = b
		}
	}
	if err == nil {
		// Re-check the limits after the fio flags changed the pattern.
		if _, perr := ParsePattern(p.String()); perr != nil {
			errs = append(errs, fmt.Errorf("pattern %s (after --numjobs/--iodepth/--bs): %w", p, perr))
		}
	}
	o.pattern = p

	o.random = !o.Sequential
	if o.Random && o.Sequential {
		errs = append(errs, errors.New("--random and --sequential: choose one"))
	}
	if o.RW != "" {
		random, readPct, mixed, err := ParseRW(o.RW)
		if err != nil {
			errs = append(errs, fmt.Errorf("rw: %w", err))
		} else {
			o.random = random
			if mixed {
				readPct = o.RWMixRead
			}
			o.Read = strconv.Itoa(readPct)
		}
	}
	if o.RWMixRead < 0 || o.RWMixRead > 100 {
		errs = append(errs, fmt.Errorf("rwmixread %d: want 0..100", o.RWMixRead))
	}
	if mixes, err := ParseReadMix(o.Read); err != nil {
		errs = append(errs, fmt.Errorf("read: %w", err))
	} else {
		o.mixes = mixes
	}
	size := o.Size
	if strings.TrimSpace(size) == "" {
		size = DefaultSize
	}
	if n, err := ParseSize(size); err != nil {
		errs = append(errs, fmt.Errorf("size %q: want a positive size such as 1G (%v)", o.Size, err))
	} else if n <= 0 {
		errs = append(errs, fmt.Errorf("size %q: want a positive size such as 1G", o.Size))
	} else if n%4096 != 0 {
		errs = append(errs, fmt.Errorf("size %q: want a multiple of 4 KiB (direct I/O writes whole aligned blocks)", o.Size))
	} else {
		o.size = n
	}
	switch o.Engine {
	case EngineAuto, EngineIOUring, EnginePsync:
	default:
		errs = append(errs, fmt.Errorf("engine %q: want auto, io_uring or psync", o.Engine))
	}
	if o.VMs < 0 {
		errs = append(errs, fmt.Errorf("vms %d: want 0 or more", o.VMs))
	}
	o.capacity = 0
	if strings.TrimSpace(o.Capacity) != "" {
		if c, err := ParseCapacity(o.Capacity); err != nil {
			errs = append(errs, fmt.Errorf("capacity: %w", err))
		} else {
			o.capacity = c
		}
	}
	return errors.Join(errs...)
}

// Recorded are the options as the result records them and Summarize reads
// them back: the pattern as run (the fio flags applied), the offsets and
// direct I/O as chosen, the sizes in bytes. --size shapes the file prepare
// lays out (workload.Option).
type Recorded struct {
	Pattern      string  `json:"pattern"`
	Threads      int     `json:"threads"`
	IODepth      int     `json:"iodepth"`
	BS           int64   `json:"bs"`
	Random       bool    `json:"random"`
	Direct       bool    `json:"direct"`
	Engine       string  `json:"engine"`
	Read         readMix `json:"read"`
	Size         int64   `json:"size" data:"true"`
	VMs          int     `json:"vms,omitempty"`
	Capacity     int64   `json:"capacity,omitempty"`
	Precondition bool    `json:"precondition,omitempty"`
}

// readMix is --read as recorded: the list given ("100,90,70"), or the one
// percentage a step ran, which a result records as a number (70).
type readMix string

// UnmarshalJSON takes a string or a number (its digits as written); null
// leaves m as it is.
func (m *readMix) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*m = readMix(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("read %s: want a percentage or a list of them", b)
	}
	*m = readMix(n.String())
	return nil
}

// recorded returns the options, validated, as the result records them.
func (o *Options) recorded() Recorded {
	return Recorded{
		Pattern: o.pattern.String(), Threads: o.pattern.Threads, IODepth: o.pattern.Depth, BS: o.pattern.Block,
		Random: o.random, Direct: !o.Buffered, Engine: o.Engine, Read: readMix(o.Read), Size: o.size,
		VMs: o.VMs, Capacity: o.capacity, Precondition: o.Precondition,
	}
}
