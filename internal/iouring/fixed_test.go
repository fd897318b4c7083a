package iouring

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFixedWriteThenRead writes a file through registered buffers and a
// registered file, reads it back the same way, and checks every byte
// against the pattern, at a depth where the ring reuses its buffers.
func TestFixedWriteThenRead(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	flags := 0
	if directOK(t, dir) {
		flags = unix.O_DIRECT
	}
	const depth, bs, size = 8, 16 << 10, 4 << 20
	path := filepath.Join(dir, "fixed.dat")
	fd := openFile(t, path, unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC|flags)
	r := testRing(t, depth)
	bufs := buffers(t, depth, bs)
	if err := r.RegisterBuffers(bufs); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterFiles(fd); err != nil {
		t.Fatal(err)
	}
	offs := make([]int64, depth)
	run := func(write bool) {
		next, done := int64(0), 0
		issue := func(i int) {
			offs[i] = next
			next += bs
			var ok bool
			if write {
				pattern(bufs[i], offs[i])
				ok = r.PrepWriteFixed(0, i, offs[i], uint64(i))
			} else {
				clear(bufs[i])
				ok = r.PrepReadFixed(0, i, offs[i], uint64(i))
			}
			if !ok {
				t.Fatal("prep of a fixed I/O refused")
			}
		}
		for i := range depth {
			issue(i)
		}
		for done < size/bs {
			if err := r.SubmitAndWait(1); err != nil {
				t.Fatal(err)
			}
			r.Reap(func(user uint64, res int32) {
				i := int(user)
				if res != bs {
					t.Fatalf("write=%v at %d: res %d, want %d", write, offs[i], res, bs)
				}
				if !write {
					if bad := checkPattern(bufs[i], offs[i]); bad >= 0 {
						t.Fatalf("fixed read at %d: byte %d differs from the pattern", offs[i], bad)
					}
				}
				done++
				if next < size {
					issue(i)
				}
			})
		}
	}
	run(true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != size || checkPattern(data, 0) >= 0 {
		t.Fatalf("the file written through fixed buffers (%d bytes) does not hold the pattern", len(data))
	}
	run(false)

	var bad int
	allocs := testing.AllocsPerRun(1000, func() {
		r.PrepReadFixed(0, 0, 0, 1)
		r.PrepWriteFixed(0, 1, bs, 2)
		if err := r.SubmitAndWait(2); err != nil {
			t.Fatal(err)
		}
		r.Reap(func(user uint64, res int32) {
			if res != bs {
				bad++
			}
		})
	})
	if allocs != 0 || bad != 0 {
		t.Errorf("fixed prep+submit+wait+reap: %v allocations per cycle, %d failed I/Os; want 0 and 0", allocs, bad)
	}
}

// TestFixedRefusals: an index that was not registered, or a ring with
// nothing registered, refuses the prep instead of submitting garbage; a
// second registration is refused; memory the kernel will not pin (a shared
// mapping of a regular file) is refused as ErrFixedUnavailable, leaving the
// ring usable.
func TestFixedRefusals(t *testing.T) {
	needRing(t)
	r := testRing(t, 4)
	if r.PrepReadFixed(0, 0, 0, 1) {
		t.Fatal("PrepReadFixed with nothing registered was accepted")
	}
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 8192), 0o600); err != nil {
		t.Fatal(err)
	}
	fd := openFile(t, path, unix.O_RDWR)
	mapped, err := unix.Mmap(fd, 0, 8192, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(mapped)
	err = r.RegisterBuffers([][]byte{mapped})
	if !errors.Is(err, ErrFixedUnavailable) {
		t.Fatalf("RegisterBuffers of a file mapping: %v, want ErrFixedUnavailable", err)
	}
	t.Logf("file-backed buffer refused: %v", err)

	bufs := buffers(t, 2, 4096)
	if err := r.RegisterBuffers(bufs); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterBuffers(bufs); err == nil {
		t.Error("a second RegisterBuffers was accepted")
	}
	if r.PrepReadFixed(0, 0, 0, 1) {
		t.Error("PrepReadFixed on an unregistered file index was accepted")
	}
	if err := r.RegisterFiles(fd); err != nil {
		t.Fatal(err)
	}
	if err := r.RegisterFiles(fd); err == nil {
		t.Error("a second RegisterFiles was accepted")
	}
	for _, c := range []struct {
		f   FixedFile
		buf int
	}{{1, 0}, {-1, 0}, {0, 2}, {0, -1}} {
		if r.PrepReadFixed(c.f, c.buf, 0, 1) || r.PrepWriteFixed(c.f, c.buf, 0, 1) {
			t.Errorf("file %d buffer %d: a prep outside the registered ones was accepted", c.f, c.buf)
		}
	}
	if r.Pending() != 0 {
		t.Fatalf("refused preps left %d entries pending", r.Pending())
	}
	if !r.PrepReadFixed(0, 1, 4096, 7) {
		t.Fatal("a registered prep was refused")
	}
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	if user, res := reapOne(t, r); user != 7 || res != 4096 {
		t.Errorf("fixed read: user %d res %d, want 7 and 4096", user, res)
	}
	// A misuse is an error of its own, not a refusal to fall back from.
	r2 := testRing(t, 2)
	if err := r2.RegisterFiles(1 << 20); err == nil || errors.Is(err, ErrFixedUnavailable) {
		t.Errorf("RegisterFiles of a descriptor that is not open: %v, want EBADF not wrapped as ErrFixedUnavailable", err)
	}
	r.Close()
	if err := r.RegisterBuffers(bufs); !errors.Is(err, ErrClosed) {
		t.Errorf("RegisterBuffers after Close: %v, want ErrClosed", err)
	}
}

// TestCloseReleasesRegisteredFile: once Close returns, a registered file is
// closed (its filesystem can be unmounted), not at some later time of the
// kernel's choosing: inotify sees the last close of the file at once.
func TestCloseReleasesRegisteredFile(t *testing.T) {
	needRing(t)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	defer unix.Close(in)
	if _, err := unix.InotifyAddWatch(in, path, unix.IN_CLOSE_NOWRITE); err != nil {
		t.Fatal(err)
	}
	closed := func() bool {
		var buf [4096]byte
		n, _ := unix.Read(in, buf[:])
		return n > 0
	}
	for range 20 {
		r, err := New(2)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.RegisterFiles(fd); err != nil {
			t.Fatal(err)
		}
		unix.Close(fd) // the ring holds the file now
		if closed() {
			t.Fatal("the file was closed while registered")
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if !closed() {
			t.Fatal("the registered file was still open after Close returned")
		}
	}
}
