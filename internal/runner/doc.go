// Package runner is the measurement core shared by every workload.
//
// How load is offered is a Load (virtual users, rate, think time, warm-up,
// duration, a shard's part), the part of a run's Settings that a plan fills
// and a session scales (Load.Shard); the rest of Settings is how the run is
// measured and reported. It drives virtual users (VUs) in a closed loop (each VU runs its next event
// as soon as the last one ends, after an optional think time) or an open loop
// (events start on an absolute schedule of R per second, whatever the system
// does). In the open loop, response time is measured from the INTENDED start,
// so an overloaded system cannot hide its queue (no coordinated omission);
// service time is measured from the actual start; intended starts that never
// began before the window closed are counted as dropped, and those that began
// more than Settings.LateThreshold after their time as late.
//
// Each VU records into its own HDR histograms (one per operation) guarded by
// its own mutex, so no lock is shared by all VUs on the hot path; a ticker
// merges and resets them every report interval. Events are attributed to the
// warm-up or the measured phase by their (intended) start time, so warm-up
// events never leak into the headline figures.
//
// With Load.SteadyState, the warm-up ends early once the aggregate
// throughput and p99 latency have stopped drifting: the ticker moves the
// warm-up's end (an atomic offset from the start that VUs read) to the next
// tick, never to one that has passed, so an event's phase is final when it
// starts.
//
// The runner uses time.Now and timers directly, so tests run it in virtual
// time with testing/synctest.
package runner
