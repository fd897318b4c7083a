package dialect

import "sync/atomic"

// States of a HotWatch.
const (
	hotIdle   int32 = iota // no call in flight
	hotBusy                // a call is in flight
	hotKilled              // the context ended during a call: Kill ran
	hotDone                // the context ended between calls: nothing to do
)

// HotWatch is what a driver's hot path keeps of a context it watches: a
// virtual user passes the same context to every call, so a connection
// registers each distinct context once (context.AfterFunc(ctx, w.Fire))
// instead of handing the driver a cancellable context per call. When the
// context ends during a call, Fire runs Kill once, which interrupts the
// call's blocked I/O (closing or expiring the connection's socket); when
// it ends between calls, Fire does nothing and the next Enter fails.
type HotWatch struct {
	Kill  func()
	state atomic.Int32
}

// Enter starts a call; false when the context has ended.
func (w *HotWatch) Enter() bool { return w.state.CompareAndSwap(hotIdle, hotBusy) }

// Leave ends the call Enter started; false when the context ended during
// it (Kill ran).
func (w *HotWatch) Leave() bool { return w.state.CompareAndSwap(hotBusy, hotIdle) }

// Fire runs (on its own goroutine) when the watched context ends.
func (w *HotWatch) Fire() {
	for {
		switch w.state.Load() {
		case hotBusy:
			if w.state.CompareAndSwap(hotBusy, hotKilled) {
				w.Kill()
				return
			}
		case hotIdle:
			if w.state.CompareAndSwap(hotIdle, hotDone) {
				return
			}
		default:
			return
		}
	}
}
