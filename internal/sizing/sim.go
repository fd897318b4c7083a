package sizing

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The consolidation what-if: a small simulation of VMs' vCPUs sharing a
// host's physical CPUs, for what the Erlang C model cannot say — the
// hyperthread sibling's slowdown, co-scheduling of a VM's vCPUs, and a
// finite population of vCPUs whose next burst waits for the last one.
//
// It is a model, not ESX's scheduler. It has no NUMA nodes or locality, no
// interrupts, I/O or hypervisor worlds, no shares, reservations or limits,
// no power management, no cache or memory-bandwidth effects beyond the one
// hyperthreading factor; its scheduler is plain FIFO with a time slice. Its
// ready and co-stop times are the model's, for the direction and the order
// of magnitude, not a prediction of what esxtop will show.
//
// One consequence to keep in mind when reading its results: a vCPU waits
// (ready time) only when every logical CPU is taken. With no more vCPUs
// than logical CPUs — two 24-vCPU VMs on 24 hyperthreaded cores — nobody
// ever waits and there is no skew to co-stop; all the loss is the slowdown
// of sibling threads (HTLossPct). Ready and co-stop appear when the vCPUs
// outnumber the logical CPUs (or the cores, without hyperthreading).

// SimHost is the simulated host: Cores physical cores with ThreadsPerCore
// logical CPUs (hyperthreads) each.
type SimHost struct {
	Cores          int // physical cores, >= 1
	ThreadsPerCore int // logical CPUs per core, >= 1 (0 means 1)
	// HTGain, 0..1, is what a busy core gains from its second thread: two
	// busy siblings together do 1+HTGain cores of work (0.2: 1.2 cores), so
	// each runs at (1+HTGain)/2 of a core. With k > 2 threads per core busy
	// each runs at (1+HTGain)/k. Ignored when ThreadsPerCore is 1.
	HTGain float64
}

// SimVM is one simulated VM.
type SimVM struct {
	Name  string
	VCPUs int // >= 1
	// Busy, 0..1, is the demanded busy share of each vCPU: the share of
	// time it would run on a host of its own.
	Busy float64
}

// SimSetup sets up a simulation. Zero durations take their defaults.
type SimSetup struct {
	Host SimHost
	// Quantum is the scheduler's tick (default 1 ms): the time slice after
	// which a running vCPU yields to waiting ones, and the period of the
	// co-scheduling check.
	Quantum time.Duration
	// MeanBurst is the mean length of a vCPU's busy burst, as work at full
	// speed (default 2 ms).
	MeanBurst time.Duration
	// SkewLimit is the relaxed co-scheduling threshold (default 3 ms): a
	// vCPU more than this ahead of its VM's slowest vCPU that has work is
	// co-stopped until it is less than half this ahead. Negative: no
	// co-scheduling.
	SkewLimit time.Duration
	// Duration is the simulated time (default 10 s).
	Duration time.Duration
	// Seed makes a run reproducible: the same configuration and seed give
	// the same results.
	Seed uint64
}

// SimResult is one VM's outcome. Percentages are of the VM's vCPU time (the
// mean over its vCPUs, 0..100; esxtop sums its vCPUs instead, so multiply
// by VCPUs to compare with a VM's %RDY there). Run, ready, co-stop and idle
// add up to 100.
type SimResult struct {
	Name string `json:"name"`
	// ReadyPct: runnable, waiting for a logical CPU.
	ReadyPct float64 `json:"ready_pct"`
	// CoStopPct: runnable but held back so that the VM's lagging vCPUs can
	// catch up.
	CoStopPct float64 `json:"co_stop_pct"`
	// RunPct: on a logical CPU (at full or at hyperthread-shared speed).
	RunPct float64 `json:"run_pct"`
	// HTLossPct: the part of RunPct lost to a busy sibling thread
	// (time × (1 − speed)). Ready + co-stop + HT loss is what monitoring
	// tools call CPU contention.
	HTLossPct float64 `json:"ht_loss_pct"`
	// Delivered is the work done over the work demanded, 0..1: the
	// throughput the VM keeps (1 when it demands nothing).
	Delivered float64 `json:"delivered"`
	// ResponseFactor is the mean time from a burst's arrival to its end over
	// its mean length at full speed, counting the bursts that finished: 1
	// means no slowdown (1 also when none finished).
	ResponseFactor float64 `json:"response_factor"`
}

const (
	defaultQuantum     = time.Millisecond
	defaultMeanBurst   = 2 * time.Millisecond
	defaultSkewLimit   = 3 * time.Millisecond
	defaultSimDuration = 10 * time.Second

	// maxSimCost bounds events × (vCPUs + logical CPUs), the simulation's
	// work: about a few seconds of CPU.
	maxSimCost = 3e9
	// maxSimSpan bounds Duration / MeanBurst so that float64 time keeps
	// sub-picosecond resolution relative to a burst.
	maxSimSpan = 1e6
)

// vCPU states.
const (
	stIdle = iota
	stReady
	stRun
	stCoStop
)

// burstStream draws one vCPU's alternating busy bursts and idle gaps (both
// exponential, in seconds) from its own generator, so that the same vCPU
// meets the same demand whatever the others do.
type burstStream struct {
	rng             *rand.Rand
	busy            float64
	burstMean, idle float64 // idle: mean gap
}

func newBurstStream(seed uint64, index int, busy, meanBurst float64) *burstStream {
	s1 := splitmix64(seed ^ splitmix64(uint64(index)+1))
	s2 := splitmix64(s1 + uint64(index))
	s := &burstStream{rng: rand.New(rand.NewPCG(s1, s2)), busy: busy, burstMean: meanBurst}
	if busy > 0 {
		s.idle = meanBurst * (1 - busy) / busy
	}
	return s
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// start draws the state at time 0 from the stationary mix: busy with
// probability Busy (the residual of an exponential is exponential).
func (s *burstStream) start() (busy bool, d float64) {
	if s.busy <= 0 {
		return false, math.Inf(1)
	}
	if s.rng.Float64() < s.busy {
		return true, s.burst()
	}
	return false, s.gap()
}

func (s *burstStream) burst() float64 { return s.rng.ExpFloat64() * s.burstMean }

func (s *burstStream) gap() float64 {
	if s.busy >= 1 {
		return 0
	}
	return s.rng.ExpFloat64() * s.idle
}

// demand is the work (seconds at full speed) the stream asks for in
// [0, d] on a host of its own.
func (s *burstStream) demand(d float64) float64 {
	busy, x := s.start()
	t, sum := 0.0, 0.0
	for t < d {
		if busy {
			sum += math.Min(x, d-t)
		}
		t += x
		busy = !busy
		if busy {
			x = s.burst()
		} else {
			x = s.gap()
		}
	}
	return sum
}

type simVCPU struct {
	vm     int
	stream *burstStream
	state  int
	rem    float64 // work left in the current burst
	gapEnd float64 // when idle: the time the gap ends
	arrive float64 // when the current burst arrived
	blen   float64 // its length
	cpu    int     // logical CPU when running, else -1
	slice  float64 // when it was last put on a CPU
	// progress is the vCPU's own clock for co-scheduling: it advances while
	// the vCPU runs or idles, not while it is ready or co-stopped (as ESX
	// counts progress: time consumed or halted).
	progress                         float64
	last                             float64 // time of the last flush
	run, ready, coStop, htLoss, done float64
	respSum, lenSum                  float64
}

// Simulate runs the VMs' vCPUs on cfg.Host and returns one result per VM,
// in the order given.
//
// The model: each vCPU alternates busy bursts (exponential, mean
// MeanBurst of work) and idle gaps (exponential, mean chosen so that the
// vCPU alone would be busy the share Busy of the time); a burst that is
// delayed delays the vCPU's later bursts too (a closed loop, like a
// database session's next request waiting for the last one), so lost time
// is lost throughput. A vCPU with work takes a free logical CPU, on the
// least busy core first (an idle core before a busy core's sibling; when a
// core falls idle a vCPU sharing a core moves to it); when none is free it
// waits in one FIFO queue (ready time). A running vCPU progresses at speed
// 1 alone on its core and at (1+HTGain)/k when k threads of its core run.
// At every quantum, if vCPUs wait, as many as wait of those that have run
// a whole quantum go to the back of the queue (a time slice), and the
// co-scheduling check runs: per VM, a vCPU with work whose progress leads
// the slowest vCPU with work by more than SkewLimit is co-stopped (taken
// off its CPU; its time counts as co-stop) until it leads by less than half
// SkewLimit. A one-vCPU VM is never co-stopped.
//
// It is a discrete-event simulation in continuous time: the scheduler acts
// at every burst's arrival and end and at every quantum boundary, not on a
// fixed grid, so an idle host has no artificial ready time. Each vCPU draws
// from its own PCG generator (math/rand/v2) seeded from Seed and its index,
// so results are deterministic for a seed, and each VM's demand is the work
// its own draws would have done on an empty host — Delivered is at most 1
// and exactly 1 without contention. A vCPU's times are brought up to date
// only when its state or its core's speed changes. Cost: about
// (bursts + quanta) × (vCPUs + cores); two busy 24-vCPU VMs over 10 s
// take about 0.1 s. Configurations far bigger than that are refused.
//
// Invalid input returns an error naming every problem.
func Simulate(cfg SimSetup, vms []SimVM) ([]SimResult, error) {
	cfg, err := cfg.withDefaults(vms)
	if err != nil {
		return nil, err
	}
	d := cfg.Duration.Seconds()
	vc, first, demand := newSimVCPUs(vms, cfg.Seed, cfg.MeanBurst.Seconds(), d)
	s := newScheduler(cfg.Host, vc)
	s.start()
	s.run(cfg.Quantum.Seconds(), d, cfg.SkewLimit.Seconds(), first)
	return simResults(vms, vc, first, demand, d), nil
}

// newSimVCPUs makes the VMs' vCPUs, each VM's contiguous: VM m's are
// vc[first[m]:first[m+1]]. Each vCPU's stream is seeded from seed and its
// index; demand[m] is the work (seconds at full speed) VM m's streams ask
// for over d seconds on an empty host, drawn from a copy of each stream.
func newSimVCPUs(vms []SimVM, seed uint64, burst, d float64) (vc []simVCPU, first []int, demand []float64) {
	first = make([]int, len(vms)+1)
	demand = make([]float64, len(vms))
	for i, vm := range vms {
		first[i] = len(vc)
		for range vm.VCPUs {
			idx := len(vc)
			demand[i] += newBurstStream(seed, idx, vm.Busy, burst).demand(d)
			vc = append(vc, simVCPU{vm: i, stream: newBurstStream(seed, idx, vm.Busy, burst), cpu: -1})
		}
	}
	first[len(vms)] = len(vc)
	return vc, first, demand
}

// newScheduler returns host h's logical CPUs, all free and at full speed,
// with an empty ready queue, for the vCPUs vc.
func newScheduler(h SimHost, vc []simVCPU) *scheduler {
	s := &scheduler{
		vc: vc, tpc: h.ThreadsPerCore, owner: make([]int, h.Cores*h.ThreadsPerCore), load: make([]int, h.Cores),
		speed: make([]float64, h.Cores), htGain: h.HTGain, nextAt: make([]float64, len(vc)),
	}
	for l := range s.owner {
		s.owner[l] = -1
	}
	for c := range s.speed {
		s.speed[c] = 1
	}
	return s
}

// start draws each vCPU's state at time 0 (a burst to run, queued in vCPU
// order, or a gap to wait out) and dispatches the queue.
func (s *scheduler) start() {
	for i := range s.vc {
		v := &s.vc[i]
		if busy, d := v.stream.start(); busy {
			v.rem, v.blen, v.arrive, v.state = d, d, 0, stReady
			s.nextAt[i] = math.Inf(1)
			s.queue = append(s.queue, i)
		} else {
			v.state, s.nextAt[i] = stIdle, d
		}
	}
	s.dispatch(0)
}

// run advances the simulation from time 0 to d (seconds), stepping from one
// event to the next: a burst's or gap's end (endEvents) or a quantum
// boundary every q, where the time slice and, for skew ≥ 0, the
// co-scheduling check of each VM of more than one vCPU (VM m's vCPUs being
// vc[first[m]:first[m+1]]) run; then it dispatches. At d it brings every
// vCPU's times up to date.
//
// Each vCPU's times are brought up to date (flush) only when its state or
// its core's speed changes, and at the co-scheduling check; nextAt holds
// the time of its next event (a running burst's end, an idle gap's end;
// +Inf when ready or co-stopped).
func (s *scheduler) run(q, d, skew float64, first []int) {
	t := 0.0
	k := 1 // next quantum boundary: k·q
	var eligible []int
	for {
		next := min(float64(k)*q, d)
		for _, e := range s.nextAt {
			if e < next {
				next = e
			}
		}
		t = next
		if t >= d {
			break
		}
		s.endEvents(t)
		if t >= float64(k)*q {
			k++
			eligible = s.timeSlice(t, q, eligible)
			if skew >= 0 {
				for m := 0; m+1 < len(first); m++ {
					if first[m+1]-first[m] > 1 {
						s.coSchedule(first[m], first[m+1], skew, t)
					}
				}
			}
		}
		s.dispatch(t)
	}
	for i := range s.vc {
		s.flush(i, d)
	}
}

// endEvents handles, in vCPU order, the bursts and the gaps that end at t:
// a finished burst is counted and its vCPU leaves its CPU for a new gap (or
// at once a new burst, when the gap is 0); an ended gap brings a new burst.
func (s *scheduler) endEvents(t float64) {
	for i := range s.vc {
		if s.nextAt[i] > t {
			continue
		}
		v := &s.vc[i]
		s.flush(i, t)
		switch v.state {
		case stRun:
			v.done += v.rem // rounding's crumbs
			v.rem = 0
			v.respSum += t - v.arrive
			v.lenSum += v.blen
			s.release(i, t)
			if g := v.stream.gap(); g > 0 {
				v.state, s.nextAt[i] = stIdle, t+g
			} else {
				s.arrive(i, t)
			}
		case stIdle:
			s.arrive(i, t)
		}
	}
}

// timeSlice runs at a quantum boundary t: when vCPUs wait, as many of the
// vCPUs that ran a whole quantum q as there are waiting ones go to the back
// of the queue, longest running first. eligible is scratch space, returned
// for reuse.
func (s *scheduler) timeSlice(t, q float64, eligible []int) []int {
	n := s.waiting()
	if n == 0 {
		return eligible
	}
	eligible = eligible[:0]
	for _, i := range s.owner {
		if i >= 0 && t-s.vc[i].slice >= q*(1-1e-9) {
			eligible = append(eligible, i)
		}
	}
	slices.SortFunc(eligible, func(a, b int) int {
		if c := compareFloat(s.vc[a].slice, s.vc[b].slice); c != 0 {
			return c
		}
		return a - b
	})
	for _, i := range eligible[:min(n, len(eligible))] {
		s.flush(i, t)
		s.release(i, t)
		s.ready(i)
	}
	return eligible
}

// simResults sums each VM's vCPUs' times over a run of d seconds into its
// SimResult: percentages of the VM's vCPU time, Delivered against demand,
// and the response factor.
func simResults(vms []SimVM, vc []simVCPU, first []int, demand []float64, d float64) []SimResult {
	out := make([]SimResult, len(vms))
	for m, vm := range vms {
		var r SimResult
		r.Name = vm.Name
		var done, resp, blen float64
		for i := first[m]; i < first[m+1]; i++ {
			v := &vc[i]
			r.ReadyPct += v.ready
			r.CoStopPct += v.coStop
			r.RunPct += v.run
			r.HTLossPct += v.htLoss
			done += v.done
			resp += v.respSum
			blen += v.lenSum
		}
		total := d * float64(vm.VCPUs) / 100
		r.ReadyPct /= total
		r.CoStopPct /= total
		r.RunPct /= total
		r.HTLossPct /= total
		r.Delivered = 1
		if demand[m] > 0 {
			r.Delivered = math.Min(1, done/demand[m])
		}
		r.ResponseFactor = 1
		if blen > 0 {
			r.ResponseFactor = resp / blen
		}
		out[m] = r
	}
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// withDefaults fills the zero durations and checks everything, returning
// all the problems at once.
func (cfg SimSetup) withDefaults(vms []SimVM) (SimSetup, error) {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	h := &cfg.Host
	if h.Cores < 1 {
		bad("host: %d cores; need at least 1", h.Cores)
	}
	if h.ThreadsPerCore == 0 {
		h.ThreadsPerCore = 1
	}
	if h.ThreadsPerCore < 1 {
		bad("host: %d threads per core; need at least 1", h.ThreadsPerCore)
	}
	if !(h.HTGain >= 0 && h.HTGain <= 1) {
		bad("host: hyperthreading gain %g; want 0..1 (0.2: two busy siblings do 1.2 cores of work)", h.HTGain)
	}
	def := func(d *time.Duration, v time.Duration, name string) {
		switch {
		case *d == 0:
			*d = v
		case *d < 0:
			bad("%s %v is negative", name, *d)
		}
	}
	def(&cfg.Quantum, defaultQuantum, "quantum")
	def(&cfg.MeanBurst, defaultMeanBurst, "mean burst")
	def(&cfg.Duration, defaultSimDuration, "duration")
	if cfg.SkewLimit == 0 {
		cfg.SkewLimit = defaultSkewLimit
	}
	if len(vms) == 0 {
		bad("no VMs to simulate")
	}
	n := 0
	for i, vm := range vms {
		if vm.VCPUs < 1 {
			bad("VM %d (%q): %d vCPUs; need at least 1", i+1, vm.Name, vm.VCPUs)
		}
		if !(vm.Busy >= 0 && vm.Busy <= 1) {
			bad("VM %d (%q): busy share %g; want 0..1", i+1, vm.Name, vm.Busy)
		}
		if vm.VCPUs > 0 {
			n += vm.VCPUs
		}
	}
	if len(errs) == 0 {
		d, b, q := cfg.Duration.Seconds(), cfg.MeanBurst.Seconds(), cfg.Quantum.Seconds()
		if d/b > maxSimSpan {
			bad("duration %v is more than %g mean bursts of %v; lengthen the burst or shorten the run", cfg.Duration, maxSimSpan, cfg.MeanBurst)
		}
		cpus := float64(h.Cores) * float64(h.ThreadsPerCore)
		events := 2*float64(n)*d/b + d/q
		if cost := events * (float64(n) + cpus); cost > maxSimCost {
			bad("simulation too large (%d vCPUs on %g logical CPUs, about %.3g events): shorten the duration or lengthen the quantum or the burst", n, cpus, events)
		}
	}
	return cfg, errors.Join(errs...)
}

// scheduler holds the logical CPUs and the ready queue.
type scheduler struct {
	vc     []simVCPU
	tpc    int
	owner  []int     // logical CPU -> running vCPU, -1 when free
	load   []int     // core -> running threads
	speed  []float64 // core -> speed of each of its running threads
	htGain float64
	queue  []int // FIFO of ready vCPUs, from head on
	head   int
	nextAt []float64 // vCPU -> time of its next event, +Inf for none
	// uneven: a core's load fell since the last dispatch, so the cores may
	// need evening out.
	uneven bool
}

// waiting is the number of vCPUs in the ready queue.
func (s *scheduler) waiting() int { return len(s.queue) - s.head }

// pop takes the first vCPU off the ready queue.
func (s *scheduler) pop() int {
	i := s.queue[s.head]
	s.head++
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	} else if s.head >= 1024 && 2*s.head >= len(s.queue) {
		n := copy(s.queue, s.queue[s.head:])
		s.queue, s.head = s.queue[:n], 0
	}
	return i
}

// flush accounts vCPU i's time from its last flush to t in its current
// state, at its core's current speed.
func (s *scheduler) flush(i int, t float64) {
	v := &s.vc[i]
	dt := t - v.last
	v.last = t
	if dt <= 0 {
		return
	}
	switch v.state {
	case stIdle:
		v.progress += dt
	case stRun:
		sp := s.speed[v.cpu/s.tpc]
		w := dt * sp
		if w > v.rem {
			w = v.rem
		}
		v.rem -= w
		v.done += w
		v.run += dt
		v.htLoss += dt * (1 - sp)
		v.progress += dt
	case stReady:
		v.ready += dt
	case stCoStop:
		v.coStop += dt
	}
}

// loadChange flushes the threads running on core c at time t, applies
// delta to its load, and reschedules their bursts' ends at the new speed.
// Thread i (being placed or removed) is left to the caller.
func (s *scheduler) loadChange(c, delta int, t float64, except int) {
	for l := c * s.tpc; l < (c+1)*s.tpc; l++ {
		if j := s.owner[l]; j >= 0 && j != except {
			s.flush(j, t)
		}
	}
	s.load[c] += delta
	if n := s.load[c]; n <= 1 {
		s.speed[c] = 1
	} else {
		s.speed[c] = (1 + s.htGain) / float64(n)
	}
	for l := c * s.tpc; l < (c+1)*s.tpc; l++ {
		if j := s.owner[l]; j >= 0 {
			s.nextAt[j] = t + s.vc[j].rem/s.speed[c]
		}
	}
}

// place puts vCPU i (flushed to t) on free logical CPU l; fresh starts
// its time slice.
func (s *scheduler) place(i, l int, t float64, fresh bool) {
	v := &s.vc[i]
	s.owner[l] = i
	v.cpu, v.state = l, stRun
	if fresh {
		v.slice = t
	}
	s.loadChange(l/s.tpc, +1, t, i)
}

// release takes vCPU i (flushed to t) off its CPU; the caller sets its new
// state.
func (s *scheduler) release(i int, t float64) {
	v := &s.vc[i]
	l := v.cpu
	s.owner[l] = -1
	v.cpu = -1
	s.nextAt[i] = math.Inf(1)
	s.loadChange(l/s.tpc, -1, t, i)
	s.uneven = true
}

// ready puts vCPU i (flushed) at the back of the queue.
func (s *scheduler) ready(i int) {
	s.vc[i].state = stReady
	s.nextAt[i] = math.Inf(1)
	s.queue = append(s.queue, i)
}

// arrive makes vCPU i (flushed to t) runnable with a new burst.
func (s *scheduler) arrive(i int, t float64) {
	v := &s.vc[i]
	b := v.stream.burst()
	v.rem, v.blen, v.arrive = b, b, t
	s.ready(i)
}

// freeCPU returns a free logical CPU on the least busy core that has one,
// the lowest numbered on a tie; -1 when all are taken.
func (s *scheduler) freeCPU() int {
	best, bestLoad := -1, s.tpc
	for c, n := range s.load {
		if n < bestLoad {
			best, bestLoad = c, n
			if n == 0 {
				break
			}
		}
	}
	if best < 0 {
		return -1
	}
	for l := best * s.tpc; l < (best+1)*s.tpc; l++ {
		if s.owner[l] < 0 {
			return l
		}
	}
	return -1
}

// dispatch puts waiting vCPUs on free CPUs in FIFO order, then evens out the
// cores: while one core runs at least two threads more than another, a
// thread moves.
func (s *scheduler) dispatch(t float64) {
	for s.waiting() > 0 {
		l := s.freeCPU()
		if l < 0 {
			break
		}
		i := s.pop()
		s.flush(i, t)
		s.place(i, l, t, true)
	}
	if s.tpc == 1 || !s.uneven {
		return
	}
	s.uneven = false
	for {
		lo, hi := 0, 0
		for c, n := range s.load {
			if n < s.load[lo] {
				lo = c
			}
			if n > s.load[hi] {
				hi = c
			}
		}
		if s.load[hi]-s.load[lo] < 2 {
			return
		}
		var from, to = -1, -1
		for l := hi * s.tpc; l < (hi+1)*s.tpc && from < 0; l++ {
			if s.owner[l] >= 0 {
				from = l
			}
		}
		for l := lo * s.tpc; l < (lo+1)*s.tpc && to < 0; l++ {
			if s.owner[l] < 0 {
				to = l
			}
		}
		i := s.owner[from]
		s.flush(i, t)
		s.release(i, t)
		s.place(i, to, t, false)
	}
}

// coSchedule applies relaxed co-scheduling at time t to the VM whose vCPUs
// are vc[lo:hi]: co-stop those with work that lead the slowest with work by
// more than skew, restart the co-stopped ones that lead it by less than
// skew/2.
func (s *scheduler) coSchedule(lo, hi int, skew, t float64) {
	slowest := math.Inf(1)
	for i := lo; i < hi; i++ {
		s.flush(i, t)
		if v := &s.vc[i]; v.state != stIdle && v.progress < slowest {
			slowest = v.progress
		}
	}
	if math.IsInf(slowest, 1) {
		return
	}
	stopped := false
	for i := lo; i < hi; i++ {
		v := &s.vc[i]
		lead := v.progress - slowest
		switch {
		case v.state == stCoStop && lead < skew/2:
			s.ready(i)
		case (v.state == stRun || v.state == stReady) && lead > skew:
			if v.state == stRun {
				s.release(i, t)
			} else {
				stopped = true
			}
			v.state = stCoStop
		}
	}
	if stopped { // drop the co-stopped from the queue
		q := s.queue[:0]
		for _, i := range s.queue[s.head:] {
			if s.vc[i].state == stReady {
				q = append(q, i)
			}
		}
		s.queue, s.head = q, 0
	}
}
