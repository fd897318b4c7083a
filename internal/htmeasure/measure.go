package htmeasure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// maxCPU is the first CPU number an affinity mask (unix.CPUSet) cannot hold.
const maxCPU = 1024

// busyShareFloor is the share of wall time, in percent, below which a
// worker's CPU is taken to have been shared with other load.
const busyShareFloor = 90

// Result is a measured hyperthreading gain, or the reason there is none.
type Result struct {
	Cores   int `json:"cores"`   // physical cores measured (workers in phase A)
	Threads int `json:"threads"` // logical CPUs measured (workers in phase B)
	// Measured is false when no gain could be measured (no core has a
	// sibling); the figures below are then zero and Note says why.
	Measured bool `json:"measured"`
	// GainPct is the mean over rounds of (B's throughput / A's − 1) × 100:
	// +25 means both hyperthreads of a core do 1.25 times the work of one.
	GainPct   float64   `json:"gain_pct"`
	MinPct    float64   `json:"min_pct"`    // the smallest round's gain
	MaxPct    float64   `json:"max_pct"`    // the largest round's gain
	StdDevPct float64   `json:"stddev_pct"` // sample standard deviation of the rounds' gains (0 for one round)
	Rounds    int       `json:"rounds"`     // rounds run
	PerRound  []float64 `json:"per_round"`  // each round's gain, %
	// CPUSharePct is the smallest share of the wall time, over every
	// measured CPU and phase, that the workers ran on their CPU (thread CPU
	// time over wall time; two workers on one CPU add up). Below 90 other
	// load was running there and the gain is unreliable; Note says so.
	CPUSharePct float64 `json:"cpu_share_pct"`
	Note        string  `json:"note"`
	// Checksum combines the loop's results, so that the work cannot be
	// optimised away; it has no meaning.
	Checksum uint64 `json:"-"`
}

// Measure runs rounds rounds of the two phases, each phase for d (wall
// time). cores lists, for each physical core, its logical CPUs (its
// hyperthreads), as topology.Host.CoreCPUs does. Phase A runs one worker
// per core on the core's first CPU; phase B one worker per listed CPU.
// Rounds alternate the order of the phases (A then B, B then A) so that a
// drift of the clock speed (turbo, heat) does not favour one.
//
// Each worker locks its goroutine to an OS thread, pins the thread to its
// CPU and checks the pin by reading it back; the thread is discarded when
// the worker ends (its goroutine exits locked), so no pinned thread goes
// back to the Go scheduler. When GOMAXPROCS is below the number of workers
// plus one, Measure raises it for the measurement and sets it back after.
//
// When no core lists more than one CPU (no SMT, or SMT turned off) Measure
// runs nothing and returns Measured false with a note: there is no gain to
// measure. A CPU listed twice is allowed (both workers then share it: the
// package's self-check). Measure is not safe for concurrent use with itself
// or with anything else that needs the CPUs; it returns ctx.Err() when ctx
// ends first.
func Measure(ctx context.Context, cores [][]int, d time.Duration, rounds int) (Result, error) {
	var r Result
	var errs []error
	if len(cores) == 0 {
		errs = append(errs, errors.New("no cores to measure"))
	}
	if d <= 0 {
		errs = append(errs, fmt.Errorf("phase duration %v: want more than 0", d))
	}
	if rounds < 1 {
		errs = append(errs, fmt.Errorf("%d rounds: want at least 1", rounds))
	}
	var first, all []int
	siblings := 0
	for i, cpus := range cores {
		if len(cpus) == 0 {
			errs = append(errs, fmt.Errorf("core %d lists no CPU", i))
			continue
		}
		for _, c := range cpus {
			if c < 0 || c >= maxCPU {
				errs = append(errs, fmt.Errorf("core %d: CPU %d: want 0 to %d", i, c, maxCPU-1))
			}
		}
		first = append(first, cpus[0])
		all = append(all, cpus...)
		if len(cpus) > 1 {
			siblings++
		}
	}
	if err := errors.Join(errs...); err != nil {
		return r, err
	}
	r.Cores, r.Threads = len(first), len(all)
	if siblings == 0 {
		r.Note = fmt.Sprintf("no core has a second logical CPU (%d cores, %d logical CPUs): hyperthreading (SMT) is absent or disabled, so there is no gain to measure", r.Cores, r.Threads)
		return r, nil
	}

	if n := len(all) + 1; runtime.GOMAXPROCS(0) < n {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	r.CPUSharePct = 100
	for round := range rounds {
		order := [][]int{first, all}
		if round%2 == 1 {
			order[0], order[1] = all, first
		}
		var rate [2]float64 // iterations per second, by phase in order
		for i, cpus := range order {
			p, err := runPhase(ctx, cpus, d)
			if err != nil {
				return r, err
			}
			rate[i] = p.rate
			r.CPUSharePct = min(r.CPUSharePct, p.sharePct)
			r.Checksum ^= p.checksum
		}
		a, b := rate[0], rate[1]
		if round%2 == 1 {
			a, b = b, a
		}
		if !(a > 0) {
			return r, errors.New("phase A did no work")
		}
		r.PerRound = append(r.PerRound, (b/a-1)*100)
	}
	r.Measured, r.Rounds = true, rounds
	r.GainPct, r.MinPct, r.MaxPct, r.StdDevPct = stats(r.PerRound)
	r.Note = fmt.Sprintf("the gain of a CPU-bound integer and floating-point loop with both hyperthreads of each core busy, over one thread per core (%d of %d cores have a sibling); a database gains differently (the seed study expects about +20 %%)", siblings, r.Cores)
	if r.CPUSharePct < busyShareFloor {
		r.Note += fmt.Sprintf("; other load took a measured CPU (the workers had only %.0f %% of it): the gain is unreliable, measure on an idle host", r.CPUSharePct)
	}
	return r, nil
}

// stats returns the mean, minimum, maximum and sample standard deviation.
func stats(xs []float64) (mean, lo, hi, sd float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		mean += x
		lo, hi = min(lo, x), max(hi, x)
	}
	mean /= float64(len(xs))
	if len(xs) > 1 {
		for _, x := range xs {
			sd += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(sd / float64(len(xs)-1))
	}
	return mean, lo, hi, sd
}

// phase is what one phase measured.
type phase struct {
	workers  []worker
	rate     float64 // Σ iterations / elapsed over the workers, per second
	sharePct float64 // the smallest, over the CPUs, of the workers' CPU time there over the wall time
	checksum uint64
}

// worker is one pinned worker's account.
type worker struct {
	cpu        int
	affinity   []int // the thread's CPUs, read back after pinning
	iterations uint64
	elapsed    time.Duration // wall time from the common start to its stop
	cpuTime    time.Duration // the thread's CPU time over the same span
	sink       uint64
	err        error
}

// runPhase runs one pinned worker per entry of cpus for d, all starting
// together, and sums their work.
func runPhase(ctx context.Context, cpus []int, d time.Duration) (phase, error) {
	var (
		p       = phase{workers: make([]worker, len(cpus))}
		ready   sync.WaitGroup
		done    sync.WaitGroup
		start   = make(chan struct{})
		abort   atomic.Bool
		stop    atomic.Bool
		startAt time.Time
	)
	ready.Add(len(cpus))
	done.Add(len(cpus))
	for i, c := range cpus {
		go func() {
			defer done.Done()
			w := &p.workers[i]
			w.cpu = c
			w.affinity, w.err = pin(c)
			ready.Done()
			<-start
			if w.err != nil || abort.Load() {
				return
			}
			w.iterations, w.sink, w.elapsed, w.cpuTime, w.err = spin(startAt, startAt.Add(d), &stop, uint64(c)+uint64(i)<<32)
		}()
	}
	ready.Wait()
	for _, w := range p.workers {
		if w.err != nil {
			abort.Store(true)
			close(start)
			done.Wait()
			return p, w.err
		}
	}
	watch := context.AfterFunc(ctx, func() { stop.Store(true) })
	startAt = time.Now() // written before close(start): the workers read it after
	close(start)
	done.Wait()
	watch()
	if err := ctx.Err(); err != nil {
		return p, err
	}

	busy := map[int]time.Duration{}
	var wall time.Duration
	for _, w := range p.workers {
		if w.err != nil {
			return p, w.err
		}
		if w.elapsed > 0 {
			p.rate += float64(w.iterations) / w.elapsed.Seconds()
		}
		busy[w.cpu] += w.cpuTime
		wall = max(wall, w.elapsed)
		p.checksum ^= w.sink
	}
	p.sharePct = 100
	for _, t := range busy {
		p.sharePct = min(p.sharePct, 100*t.Seconds()/wall.Seconds())
	}
	return p, nil
}

// pin locks the calling goroutine to its OS thread, for good, and binds the
// thread to cpu; it returns the thread's CPUs as read back.
func pin(cpu int) ([]int, error) {
	runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("pin a thread to CPU %d: %w (is the CPU online and in this process's cpuset?)", cpu, err)
	}
	var got unix.CPUSet
	if err := unix.SchedGetaffinity(0, &got); err != nil {
		return nil, fmt.Errorf("read back the affinity of CPU %d's thread: %w", cpu, err)
	}
	var cpus []int
	for c := range maxCPU {
		if got.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) != 1 || cpus[0] != cpu {
		return cpus, fmt.Errorf("a thread pinned to CPU %d runs on CPUs %v", cpu, cpus)
	}
	return cpus, nil
}

// chunk is the number of loop iterations between two looks at the clock:
// a few microseconds, so the clock costs about 1 % of the loop.
const chunk = 2048

// spin runs the loop until deadline (or stop), and returns the iterations
// done, the loop's result, the wall time since start and the thread's CPU
// time meanwhile.
func spin(start, deadline time.Time, stop *atomic.Bool, seed uint64) (n, sink uint64, elapsed, cpu time.Duration, err error) {
	c0, err := threadCPU()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	x, f := seed|1, 1.0
	for {
		for range chunk {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			f = f*0.9999999 + float64(x>>44)*1e-9
		}
		n += chunk
		if stop.Load() {
			break
		}
		if now := time.Now(); !now.Before(deadline) {
			elapsed = now.Sub(start)
			break
		}
	}
	if elapsed == 0 {
		elapsed = time.Since(start)
	}
	c1, err := threadCPU()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	return n, x ^ math.Float64bits(f), elapsed, c1 - c0, nil
}

// threadCPU is the calling thread's CPU time.
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("thread CPU time: %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
