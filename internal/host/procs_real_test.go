package host

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect/postgres"
	"github.com/rightsize/rightsize/internal/testenv"
)

// TestServerCPUOfSharedPostgres finds the shared PostgreSQL's postmaster
// listening on loopback and measures its tree while a connection (a new
// backend, forked inside the window, that exits before its end) burns CPU
// on the server: the backend's CPU is counted though the backend is gone
// when the second sample is taken.
func TestServerCPUOfSharedPostgres(t *testing.T) {
	dsn := os.Getenv("RIGHTSIZE_TEST_POSTGRES")
	if dsn == "" {
		dsn = testenv.DefaultPostgresURL
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "5432")
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		t.Skipf("%s is not on loopback: its server's processes are not on this host", u.Host)
	}
	pid, comm, err := Listener("/proc", "tcp", addr)
	if err != nil {
		testenv.ServerUnavailable(t, "the shared PostgreSQL at %s: %v", addr, err)
	}
	s, err := NewSampler("/proc")
	if err != nil {
		t.Fatal(err)
	}
	srv := Server{Name: fmt.Sprintf("%s (PID %d)", comm, pid), Address: "tcp " + addr, PID: pid}
	if err := s.WatchServer(srv); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d := postgres.Dialect{}
	target, err := d.ParseTarget(dsn, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	c, err := d.Connect(ctx, target)
	if err != nil {
		testenv.ServerUnavailable(t, "the shared PostgreSQL: %v", err)
	}
	var backend, n int64
	if err := c.QueryRow(ctx, "SELECT pg_backend_pid(), count(*) FROM generate_series(1, 3000000)", nil, &backend, &n); err != nil {
		t.Fatal(err)
	}
	c.Close()
	for i := 0; i < 100; i++ { // until the backend has exited and been reaped
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", backend)); os.IsNotExist(err) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	secs := time.Since(start).Seconds()
	h, err := s.Sample(secs)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.ServerCPU) != 1 {
		t.Fatalf("server CPU %+v, want the postmaster's tree", h.ServerCPU)
	}
	got := h.ServerCPU[0]
	t.Logf("%s: %.3f CPU-seconds in %.2f s over %.0f processes (the backend %d ran the query and exited)", got.Server, got.UsedCPUs*secs, secs, got.Processes, backend)
	// Counting three million rows takes a backend well over 50 ms of CPU.
	if got.UsedCPUs*secs < 0.05 || got.Processes < 2 || got.Server != srv.Name {
		t.Errorf("server CPU %+v over %.2f s: want the exited backend's CPU (over 0.05 s) and the postmaster's children", got, secs)
	}
}
