package metrics

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// get fetches url on a fresh connection and returns the status and body.
func get(url string) (int, string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e := New("oltp", "transaction")
	e.Observe("", result.Interval{Phase: "measure", Events: 42, Rate: 42, Latency: result.Latency{P99Ms: 3}}, nil)
	addr, err := e.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(addr, ":0") {
		t.Fatalf("bound address %s: the port was not resolved", addr)
	}
	base := "http://" + addr

	code, body, err := get(base + "/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", code, err)
	}
	for _, want := range []string{
		`rightsize_events_total{event="transaction",phase="measure",step="",workload="oltp"} 42`,
		`rightsize_interval_latency_seconds{quantile="0.99",step="",workload="oltp"} 0.003`,
		"# TYPE rightsize_events_total counter",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	code, body, err = get(base + "/")
	if err != nil || code != http.StatusOK || !strings.Contains(body, `href="/metrics"`) {
		t.Errorf("GET /: %d %v %q", code, err, body)
	}
	if code, _, err := get(base + "/debug/pprof/"); err != nil || code != http.StatusNotFound {
		t.Errorf("GET /debug/pprof/: %d %v, want 404", code, err)
	}

	// The address is taken: a second server must say so, not panic.
	if _, err := New("oltp", "transaction").Serve(ctx, addr); err == nil {
		t.Errorf("second Serve on %s: no error", addr)
	}

	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, _, err := get(base + "/metrics"); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still serving 5 s after the context ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestObserveWhileScraped runs Observe against concurrent scrapes (for -race).
func TestObserveWhileScraped(t *testing.T) {
	e := New("oltp", "transaction")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			step := []string{"a", "b"}[i/50%2]
			e.Observe(step, result.Interval{Phase: "measure", Events: 1, Rate: 1, Host: &result.Host{}},
				[]result.Interval{{Rate: 1}})
		}
	}()
	for range 50 {
		if _, err := e.Registry().Gather(); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if v, ok := find(t, e.Registry(), "rightsize_events_total", "step=b"); !ok || v != 100 {
		t.Errorf("events of step b: %v %v, want 100", v, ok)
	}
}

func TestServeBadAddress(t *testing.T) {
	for _, addr := range []string{"not an address", "127.0.0.1:99999"} {
		if bound, err := New("oltp", "transaction").Serve(t.Context(), addr); err == nil {
			t.Errorf("Serve(%q) = %q, want an error", addr, bound)
		} else if !strings.Contains(err.Error(), "listen tcp") {
			t.Errorf("Serve(%q): %v does not say what failed", addr, err)
		}
	}
}
