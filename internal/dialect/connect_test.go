package dialect

import (
	"context"
	"testing"
	"time"
)

// A target without a connect timeout gets DefaultConnectTimeout; one with
// its own keeps it; either bounds the context it returns.
func TestConnectWithin(t *testing.T) {
	for _, c := range []struct{ set, want time.Duration }{{0, DefaultConnectTimeout}, {-time.Second, DefaultConnectTimeout}, {2 * time.Second, 2 * time.Second}} {
		tg := &Location{ConnectTimeout: c.set}
		start := time.Now()
		ctx, cancel, d := tg.ConnectWithin(context.Background())
		dl, ok := ctx.Deadline()
		cancel()
		if d != c.want || !ok || dl.Sub(start) < c.want-time.Millisecond || dl.Sub(start) > c.want+time.Second {
			t.Errorf("ConnectTimeout %v: timeout %v, deadline in %v (%v); want %v", c.set, d, dl.Sub(start), ok, c.want)
		}
	}
	if DefaultConnectTimeout != 10*time.Second {
		t.Errorf("DefaultConnectTimeout %v, want 10s (--connect-timeout's documented default)", DefaultConnectTimeout)
	}
}
