package sizing

import "math"

// The M/M/c queue: Poisson arrivals, exponential service times, c identical
// servers, one FIFO queue. Here a server is a physical CPU (a core, since the
// capacity plan ignores hyperthreading at first) and a customer is a burst
// of work of a runnable vCPU; the offered load a = λ/μ, in Erlangs, is the
// number of CPUs the demand keeps busy on average (busy cores). Times are in
// units of the mean service time.
//
// The model is an idealisation: real vCPUs are a finite population whose
// next burst waits for the last one (fewer of them queue than Poisson
// arrivals would), bursts are not exponential, and a hypervisor's scheduler
// is not FIFO. Use it for the direction and the order of magnitude of CPU
// ready time, and the small simulation (Simulate) for the rest.

// ErlangC returns the probability that an arrival has to wait in an M/M/c
// queue with c servers and offered load a Erlangs (a = λ/μ): 0 when a <= 0,
// 1 when a >= c (the queue is saturated; every arrival waits, for ever in
// the limit) or c <= 0, NaN for a NaN load.
//
// It is computed from Erlang B (erlangB), C = c·B / (c − a·(1 − B)): every
// term lies in [0, 1], so it neither overflows nor loses precision, and the
// cost is O(√a) whatever c is (a planner asked about millions of servers
// answers at once).
func ErlangC(c int, a float64) float64 {
	if v, ok := noQueue(c, a, 1); ok {
		return v
	}
	b := erlangB(c, a)
	fc := float64(c)
	p := fc * b / (fc - a*(1-b))
	return math.Min(1, math.Max(0, p))
}

// erlangB is the Erlang B blocking probability for 0 < a < c: the Poisson(a)
// weight of c over the weights of 0..c, B = p(c) / Σ_{k≤c} p(k) (the same
// as the recursion B(k) = a·B(k−1) / (k + a·B(k−1))). The weights are
// taken relative to the mode m = ⌊a⌋ and summed outward by their ratios,
// p(k−1)/p(k) = k/a below it and p(k+1)/p(k) = a/(k+1) above, each at most
// 1: downward until a term is below 1e-20 of the sum, upward until c or
// until the term is below 2^-1000 (then B is 0 to double precision). The
// weights fall off like a Gaussian of width √a, so either way about 40·√a
// terms, not c.
func erlangB(c int, a float64) float64 {
	m := int(a) // the mode: m ≤ a < c
	sum, w := 1.0, 1.0
	for k := m; k > 0; k-- {
		w *= float64(k) / a
		sum += w
		if w < 1e-20*sum {
			break
		}
	}
	w = 1
	for k := m + 1; k <= c; k++ {
		w *= a / float64(k)
		sum += w
		if w < 0x1p-1000 {
			// B < 2^-1000: 0 to double precision. (Multiplying on into
			// the subnormals would stick at the smallest one, × a ratio
			// above 1/2 rounding back to it, for up to a steps.)
			return 0
		}
	}
	return w / sum
}

// MMcWait returns the mean time an arrival waits in the queue of an M/M/c
// queue, Wq = C(c, a) / (c − a), in units of the mean service time: 0 when
// a <= 0, +Inf when a >= c (saturated).
func MMcWait(c int, a float64) float64 {
	if v, ok := noQueue(c, a, math.Inf(1)); ok {
		return v
	}
	return ErlangC(c, a) / (float64(c) - a)
}

// noQueue is a queue figure where the model has no steady queue to work
// out: NaN for a NaN load, 0 for no load, saturated when a >= c or there is
// no server; ok is false for 0 < a < c.
func noQueue(c int, a, saturated float64) (v float64, ok bool) {
	switch {
	case math.IsNaN(a):
		return math.NaN(), true
	case a <= 0:
		return 0, true
	case c <= 0 || a >= float64(c):
		return saturated, true
	}
	return 0, false
}

// ReadyShare returns the share, 0..1, of a runnable vCPU's time spent
// waiting for a physical CPU, Wq / (Wq + 1): the M/M/c model of %RDY (ready
// time over ready plus run time). It is 0 when a <= 0 and 1 when a >= c
// (saturated).
//
// esxtop's %RDY for a VM is the sum over its vCPUs and is relative to wall
// time, idle included; to compare, multiply by the vCPUs' busy share and
// their number.
func ReadyShare(c int, a float64) float64 {
	w := MMcWait(c, a)
	if math.IsInf(w, 1) {
		return 1
	}
	return w / (w + 1)
}

// MMcResponse returns the mean response time (queueing wait plus service)
// of an M/M/c queue in units of the mean service time, Wq + 1: 1 when
// a <= 0, +Inf when a >= c (saturated).
func MMcResponse(c int, a float64) float64 {
	return MMcWait(c, a) + 1
}
