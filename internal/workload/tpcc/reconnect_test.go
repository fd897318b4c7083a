package tpcc

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
)

// homes records, by terminal number, every home warehouse and district and
// every terminal value its events ran with, before and after a moment.
type homes struct {
	mu            sync.Mutex
	split         time.Time
	before, after map[int][]string
	vus           map[int][]*vu
}

func (h *homes) see(id int, v *vu) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.before
	if !h.split.IsZero() && time.Now().After(h.split) {
		m = h.after
	}
	if wd := fmt.Sprintf("w%d/d%d", v.w, v.d); !slices.Contains(m[id], wd) {
		m[id] = append(m[id], wd)
	}
	if !slices.Contains(h.vus[id], v) {
		h.vus[id] = append(h.vus[id], v)
	}
}

// seenVU reports each event's terminal to homes; it is a Reconnector as the
// terminal is.
type seenVU struct {
	*vu
	id int
	h  *homes
}

func (s *seenVU) Event(ctx context.Context, m workload.Meter) error {
	s.h.see(s.id, s.vu)
	return s.vu.Event(ctx, m)
}

func (s *seenVU) Reconnect(ctx context.Context) error { return s.vu.Reconnect(ctx) }

// TestTerminalKeepsItsHomeAcrossReconnects kills every backend of a TPC-C
// run on PostgreSQL (pg_terminate_backend) twice; the terminals reconnect,
// and each keeps its home warehouse and district and its state (the same
// terminal, its deck and random stream going on). The run is a shard
// (virtual users 1.. of the whole run), where the reconnected terminals
// used to come back numbered from 0, with another home.
func TestTerminalKeepsItsHomeAcrossReconnects(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and runs TPC-C on PostgreSQL")
	}
	url := testenv.PostgresURL(t)
	in := ldOpen(t, url, 2)
	ctx := context.Background()
	if err := in.Prepare(ctx, workload.PrepareOptions{Seed: 42}, nil); err != nil {
		t.Fatal(err)
	}
	admin := ldConn(t, in)
	var db string
	if err := admin.QueryRow(ctx, "SELECT current_database()", nil, &db); err != nil {
		t.Fatal(err)
	}
	h := &homes{before: map[int][]string{}, after: map[int][]string{}, vus: map[int][]*vu{}}
	spec := runner.Opened{
		NewVU: func(ctx context.Context, id int, seed uint64) (workload.VU, error) {
			v, err := in.NewVU(ctx, id, seed)
			if err != nil {
				return nil, err
			}
			return &seenVU{vu: v.(*vu), id: id, h: h}, nil
		},
		Classify: in.Classify,
	}
	const kills = 2
	done := make(chan error, 1)
	go func() {
		var err error
		for i := range kills {
			time.Sleep(1500 * time.Millisecond)
			if i == 0 {
				h.mu.Lock()
				h.split = time.Now()
				h.mu.Unlock()
			}
			var n int64
			err = admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()", []any{db}, &n)
			if err == nil && n == 0 {
				err = fmt.Errorf("kill %d: no backend to terminate", i+1)
			}
		}
		done <- err
	}()
	res, err := runner.Run(ctx, runner.Settings{
		Load:       runner.Load{Threads: 6, Duration: 5 * time.Second, Part: &runner.Part{FirstVU: 1}},
		Ops:        New().Meta().Ops,
		Seed:       7,
		BackoffMin: 50 * time.Millisecond,
	}, []runner.Opened{spec})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("reconnects %d, failed attempts %d, transactions %d", res.Summary.Reconnects, res.Summary.ReconnectFailures, res.Summary.Count)
	if res.Summary.Reconnects < 6 {
		t.Errorf("%d reconnects, want at least one per terminal", res.Summary.Reconnects)
	}
	for id := 1; id <= 6; id++ {
		t.Logf("terminal %d: before the kills %v, after %v", id, h.before[id], h.after[id])
		want := fmt.Sprintf("w%d/d%d", id%2+1, (id/2)%10+1)
		if !slices.Equal(h.before[id], []string{want}) || !slices.Equal(h.after[id], []string{want}) {
			t.Errorf("terminal %d: homes %v before, %v after; want %s throughout", id, h.before[id], h.after[id], want)
		}
		if len(h.vus[id]) != 1 {
			t.Errorf("terminal %d was %d terminals, want one going on", id, len(h.vus[id]))
		}
	}
	if extra := len(h.before) + len(h.after) - 12; extra != 0 {
		t.Errorf("events ran under numbers other than 1..6: %v %v", h.before, h.after)
	}
}
