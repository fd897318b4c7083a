package cli

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
)

func TestStartPrometheus(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	e, addr, err := startPrometheus(ctx, "127.0.0.1:0", "oltp", "transaction")
	if err != nil {
		t.Fatal(err)
	}
	e.Observe("1x", result.Interval{Phase: "measure", Events: 7, Rate: 7}, []result.Interval{{Rate: 7}})
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %v", resp.StatusCode, err)
	}
	want := `rightsize_events_total{event="transaction",phase="measure",step="1x",workload="oltp"} 7`
	if !strings.Contains(string(body), want) {
		t.Errorf("/metrics lacks %q", want)
	}

	// The same address again: a usage error (exit 2), naming the flag.
	_, _, err = startPrometheus(ctx, addr, "oltp", "transaction")
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--prometheus") {
		t.Errorf("address in use: %v, want a usage error naming --prometheus", err)
	}
}

func TestBindPrometheus(t *testing.T) {
	var addr string
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	runplan.BindPrometheus(fs, &addr)
	if err := fs.Parse(nil); err != nil || addr != "" {
		t.Fatalf("default: %q %v, want off", addr, err)
	}
	if err := fs.Parse([]string{"--prometheus", "127.0.0.1:9464"}); err != nil || addr != "127.0.0.1:9464" {
		t.Errorf("--prometheus 127.0.0.1:9464: %q %v", addr, err)
	}
	if f := fs.Lookup("prometheus"); f == nil || !strings.Contains(f.Usage, "/metrics") {
		t.Errorf("flag help: %+v", f)
	}
}

// A sweep with --prometheus serves live metrics while it runs, labelled by
// step; the server goes when the command ends.
func TestSweepServesPrometheus(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	done := make(chan outcome, 1)
	go func() {
		done <- run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+dir+"/db.sqlite", "--prepare", "always",
			"--table-size", "200", "--threads", "1,2", "--time", "2s", "--report-interval", "200ms", "--prometheus", addr, "--out", "-")
	}()
	c := &http.Client{Timeout: 2 * time.Second}
	var body string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		resp, err := c.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), `rightsize_step_info{step="threads 2"`) {
			body = string(b)
			break
		}
	}
	o := <-done
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	if !strings.Contains(body, `rightsize_events_total{event="transaction",phase="measure",step="threads 2",workload="oltp_point_select"}`) {
		t.Fatalf("no live metrics of the second step were served:\n%.2000s", body)
	}
	if !strings.Contains(o.stderr, "metrics: http://"+addr+"/metrics") {
		t.Errorf("stderr does not say where the metrics are:\n%s", o.stderr)
	}
	if _, err := c.Get("http://" + addr + "/metrics"); err == nil {
		t.Error("the metrics server still answers after the command ended")
	}
}
