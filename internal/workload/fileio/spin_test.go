package fileio

import (
	"testing"
	"time"
)

// TestSpinnerAdapts: a thread spins while spins find completions, stops at
// the first that does not, spins again only after a short sleep, and never
// when it has no CPU of its own.
func TestSpinnerAdapts(t *testing.T) {
	s := spinner{allowed: true, on: true}
	if !s.spun(true) || !s.on {
		t.Fatal("a spin that found a completion stopped the spinning")
	}
	if s.spun(false) || s.on {
		t.Fatal("a spin that found nothing left the spinning on")
	}
	s.slept(time.Millisecond)
	if s.on {
		t.Error("a 1 ms sleep (a slow device) turned the spinning back on")
	}
	s.slept(spinWait)
	if !s.on {
		t.Error("a sleep of one spin's time (a fast device) left the spinning off")
	}
	no := spinner{}
	no.slept(time.Microsecond)
	if no.on {
		t.Error("a thread without a CPU of its own was made to spin")
	}
}
