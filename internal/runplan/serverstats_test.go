package runplan

import (
	"testing"
	"time"
)

func TestServerStatsFlag(t *testing.T) {
	for in, want := range map[string]time.Duration{"on": DefaultServerStats, "off": 0, "250ms": 250 * time.Millisecond, " 1s ": time.Second} {
		var d time.Duration = -1
		if err := (ServerStatsFlag{&d}).Set(in); err != nil || d != want {
			t.Errorf("--server-stats %q = %v, %v; want %v", in, d, err, want)
		}
	}
	for _, in := range []string{"5ms", "2m", "sometimes", "-1s", ""} {
		d := DefaultServerStats
		if err := (ServerStatsFlag{&d}).Set(in); err == nil {
			t.Errorf("--server-stats %q accepted (%v)", in, d)
		}
	}
	d := time.Duration(0)
	if s := (ServerStatsFlag{&d}).String(); s != "off" {
		t.Errorf("String of 0 = %q, want off", s)
	}
}
