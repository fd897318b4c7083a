package randompoints

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/testenv"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

type progress struct {
	mu       sync.Mutex
	added    int64
	messages []string
	onAdd    func(int64)
}

func (p *progress) Total(int64) {}
func (p *progress) Add(n int64) {
	p.mu.Lock()
	p.added += n
	a, f := p.added, p.onAdd
	p.mu.Unlock()
	if f != nil {
		f(a)
	}
}
func (p *progress) Message(s string) { p.mu.Lock(); p.messages = append(p.messages, s); p.mu.Unlock() }

func (p *progress) said(sub string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.ContainsFunc(p.messages, func(m string) bool { return strings.Contains(m, sub) })
}

// meter counts the spans a VU reports.
type meter struct{ ends, errs int }

func (m *meter) Start(op int) workload.Span { return workload.Span{Op: op, Start: time.Now()} }
func (m *meter) End(_ workload.Span, err error) {
	m.ends++
	if err != nil {
		m.errs++
	}
}
func (m *meter) Count(int, int64) {}
func (*meter) Retrying() bool     { return false }

func open(t *testing.T, rawURL string, args ...string) *instance {
	t.Helper()
	return testenv.Open(t, New(), rawURL, args...).(*instance)
}

func count(t *testing.T, c dialect.Conn, q string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), q, nil, &n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// scenario: the shared table routine gives the workload prepare, its
// resume, the match before a run, the refusal of foreign tables and cleanup.
func scenario(t *testing.T, rawURL string) {
	ctx := context.Background()
	in := open(t, rawURL, "--table-size=500", "--random-points=5")
	p := &progress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	c, err := in.Target.D.Connect(ctx, in.Target.T)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n := count(t, c, "SELECT COUNT(*) FROM sbtest1"); n != 500 || p.added != 500 || p.said("again") {
		t.Fatalf("prepare loaded %d rows (progress %d), said %q", n, p.added, p.messages)
	}
	if notes, err := in.Match(ctx); err != nil || len(notes) != 0 {
		t.Fatalf("Match: %q, %v", notes, err)
	}
	p = &progress{}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err != nil || p.added != 0 || !p.said("sbtest1: already loaded with 500 rows, kept") {
		t.Fatalf("second prepare: %v, %d rows, said %q", err, p.added, p.messages)
	}

	// A few events: each SELECT reports one span and succeeds.
	v, err := in.NewVU(ctx, 0, 7)
	if err != nil {
		t.Fatal(err)
	}
	m := &meter{}
	for range 20 {
		if err := v.Event(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	v.Close()
	if m.ends != 20 || m.errs != 0 {
		t.Errorf("20 events reported %d spans, %d failed", m.ends, m.errs)
	}

	// Another --table-size: a mismatch for run, a reload for prepare,
	// interrupted here, then resumed.
	big := open(t, rawURL, "--table-size=800")
	if _, err := big.Match(ctx); !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "table sbtest1 holds 500 rows, --table-size asks 800") {
		t.Fatalf("Match with --table-size 800: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	p = &progress{onAdd: func(n int64) {
		if n >= 100 {
			cancel()
		}
	}}
	if err := big.Prepare(cctx, workload.PrepareOptions{}, p); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled prepare: %v", err)
	}
	if !p.said("table sbtest1 holds 500 rows, --table-size asks 800: dropping and loading again") {
		t.Errorf("prepare did not say why it loads again: %q", p.messages)
	}
	if _, err := big.Match(ctx); !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "not fully loaded") {
		t.Fatalf("Match after an interrupted prepare: %v", err)
	}
	p = &progress{}
	if err := big.Prepare(ctx, workload.PrepareOptions{}, p); err != nil || !p.said("was not fully loaded (an interrupted prepare)") {
		t.Fatalf("resumed prepare: %v, said %q", err, p.messages)
	}
	if n := count(t, c, "SELECT COUNT(*) FROM sbtest1"); n != 800 {
		t.Fatalf("%d rows after the resumed prepare, want 800", n)
	}
	if removed, err := big.Cleanup(ctx, workload.PrepareOptions{}); err != nil || !slices.Equal(removed, []string{"sbtest1"}) {
		t.Fatalf("cleanup: %q, %v", removed, err)
	}
	if has, _ := c.TableExists(ctx, objects.Table); has {
		t.Errorf("%s left after cleanup", objects.Table)
	}
	if _, err := in.Match(ctx); !errors.Is(err, workload.ErrNotPrepared) {
		t.Errorf("Match after cleanup: %v, want not prepared", err)
	}

	// A table rightsize did not make: refused, used with a note, kept by
	// cleanup unless --force.
	if _, err := c.Exec(ctx, createSQL(in.Target.D)); err != nil {
		t.Fatal(err)
	}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, &progress{}); !errors.Is(err, objects.ErrNotOwned) {
		t.Fatalf("prepare over a foreign table: %v", err)
	}
	if notes, err := in.Match(ctx); err != nil || len(notes) != 1 || !strings.Contains(notes[0], "no record") {
		t.Errorf("Match on a foreign table: %q, %v", notes, err)
	}
	if _, err := in.Cleanup(ctx, workload.PrepareOptions{}); !errors.Is(err, objects.ErrNotOwned) {
		t.Errorf("cleanup of a foreign table: %v", err)
	}
	if removed, err := in.Cleanup(ctx, workload.PrepareOptions{Force: true}); err != nil || len(removed) != 1 {
		t.Errorf("cleanup --force: %q, %v", removed, err)
	}
}

func TestPostgres(t *testing.T) { scenario(t, testenv.PostgresURL(t)) }
func TestMySQL(t *testing.T)    { scenario(t, testenv.MySQLURL(t)) }

func TestValidate(t *testing.T) {
	w := New()
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	w.o.TableSize, w.o.RandomPoints = 0, 0
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "--table-size") || !strings.Contains(err.Error(), "--random-points") {
		t.Errorf("Validate: %v", err)
	}
}
