package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rightsize/rightsize/internal/workload"
)

// msgProgress records prepare's messages.
type msgProgress struct {
	mu   sync.Mutex
	msgs []string
}

func (p *msgProgress) Total(int64) {}
func (p *msgProgress) Add(int64)   {}
func (p *msgProgress) Message(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.msgs = append(p.msgs, s)
}

func (p *msgProgress) said(sub string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range p.msgs {
		if strings.Contains(m, sub) {
			return true
		}
	}
	return false
}

func withSize(s string) func(*Options) { return func(o *Options) { o.Size = s } }

// TestMatchFileSize: run compares a given --size with the file's (real
// files); without --size it runs on the file as it is. prepare says why it
// lays a file out again.
func TestMatchFileSize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "rs.dat")

	p := &msgProgress{}
	if err := openIn(t, path, withSize("1m")).Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if p.said("again") {
		t.Errorf("the first layout talks of laying out again: %q", p.msgs)
	}
	for _, size := range []string{"", "1m", "1024k"} {
		if notes, err := openIn(t, path, withSize(size)).Match(ctx); err != nil || len(notes) != 0 {
			t.Errorf("Match with --size %q on 1 MiB: notes %q, %v", size, notes, err)
		}
	}
	big := openIn(t, path, withSize("2m"))
	_, err := big.Match(ctx)
	const want = "rs.dat holds 1MiB (laid out by prepare), --size asks 2MiB"
	if !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Match with --size 2m on 1 MiB: %v, want a mismatch saying %q", err, want)
	}
	if notes := strings.Join(big.Info().Notes, "\n"); !strings.Contains(notes, "holds 1MiB (laid out by prepare), --size asks 2MiB") {
		t.Errorf("the mismatch is not in the notes: %s", notes)
	}

	// A file rightsize did not lay out is compared by its size too.
	foreign := filepath.Join(dir, "user.dat")
	if err := os.WriteFile(foreign, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = openIn(t, foreign, withSize("2m")).Match(ctx)
	if !errors.Is(err, workload.ErrMismatch) || !strings.Contains(err.Error(), "user.dat holds 1MiB (not laid out by rightsize), --size asks 2MiB") {
		t.Errorf("Match on a user's file of another size: %v", err)
	}
	// A file that does not exist is NewVU's to report.
	if notes, err := openIn(t, filepath.Join(dir, "none.dat"), withSize("2m")).Match(ctx); err != nil || len(notes) != 0 {
		t.Errorf("Match on no file: notes %q, %v", notes, err)
	}

	// prepare says why it lays the file out again.
	p = &msgProgress{}
	if err := big.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("holds 1MiB (laid out by prepare), --size asks 2MiB: laying it out again") {
		t.Errorf("a larger layout said %q", p.msgs)
	}
	if _, err := big.Match(ctx); err != nil {
		t.Errorf("Match after prepare: %v", err)
	}
	if err := writeRecord(path, record{Size: 2 << 20}); err != nil { // as an interrupted prepare leaves it
		t.Fatal(err)
	}
	p = &msgProgress{}
	if err := big.Prepare(ctx, workload.PrepareOptions{}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("its layout is incomplete (an interrupted prepare): laying it out again") {
		t.Errorf("prepare over an incomplete layout said %q", p.msgs)
	}
	p = &msgProgress{}
	if err := openIn(t, foreign, withSize("1m")).Prepare(ctx, workload.PrepareOptions{Force: true}, p); err != nil {
		t.Fatal(err)
	}
	if !p.said("not laid out by rightsize (--force): laying it out again") {
		t.Errorf("prepare --force over a user's file said %q", p.msgs)
	}
}
