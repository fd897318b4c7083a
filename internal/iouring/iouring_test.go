package iouring

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// needRing skips the test where io_uring is unavailable, except under CI,
// where that is a failure (the project's CI machines have io_uring).
func needRing(t testing.TB) {
	t.Helper()
	if err := Probe(); err != nil {
		if errors.Is(err, ErrUnsupported) && os.Getenv("CI") != "true" {
			t.Skipf("io_uring unavailable here: %v", err)
		}
		t.Fatalf("Probe: %v", err)
	}
}

func testRing(t testing.TB, entries uint32) *Ring {
	t.Helper()
	r, err := New(entries)
	if err != nil {
		t.Fatalf("New(%d): %v", entries, err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func buffers(t testing.TB, n, size int) [][]byte {
	t.Helper()
	bufs, release, err := AlignedBuffers(n, size)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := release(); err != nil {
			t.Error(err)
		}
	})
	return bufs
}

// directOK reports whether O_DIRECT reads and writes work in dir (tmpfs
// before Linux 6.6, for one, refuses O_DIRECT opens with EINVAL) and says
// which filesystem dir is on.
func directOK(t testing.TB, dir string) bool {
	t.Helper()
	var st unix.Statfs_t
	fsName := "unknown"
	if unix.Statfs(dir, &st) == nil {
		fsName = fsTypeName(st.Type)
	}
	path := filepath.Join(dir, "direct-probe")
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_DIRECT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Logf("%s is on %s, which refuses O_DIRECT (%v): O_DIRECT not tested, buffered I/O only", dir, fsName, err)
		return false
	}
	defer unix.Close(fd)
	bufs, release, err := AlignedBuffers(1, 4096)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := unix.Pwrite(fd, bufs[0], 0); err != nil {
		t.Logf("%s is on %s: O_DIRECT pwrite fails (%v): O_DIRECT not tested, buffered I/O only", dir, fsName, err)
		return false
	}
	t.Logf("%s is on %s; O_DIRECT works there", dir, fsName)
	return true
}

func fsTypeName(magic int64) string {
	switch magic {
	case unix.EXT4_SUPER_MAGIC:
		return "ext2/3/4"
	case unix.XFS_SUPER_MAGIC:
		return "xfs"
	case unix.BTRFS_SUPER_MAGIC:
		return "btrfs"
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.OVERLAYFS_SUPER_MAGIC:
		return "overlayfs"
	}
	return fmt.Sprintf("filesystem magic %#x", magic)
}

// pattern fills b, which is at offset off of the file, with the file's
// known contents: each 8-byte word is a function of its offset.
func pattern(b []byte, off int64) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], uint64(off+int64(i))*0x9E3779B97F4A7C15^0x5eed)
	}
}

// checkPattern returns the offset of the first byte of b (at offset off)
// that is not the pattern, or -1.
func checkPattern(b []byte, off int64) int64 {
	for i := 0; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != uint64(off+int64(i))*0x9E3779B97F4A7C15^0x5eed {
			return off + int64(i)
		}
	}
	return -1
}

func openFile(t testing.TB, path string, flags int) int {
	t.Helper()
	fd, err := unix.Open(path, flags|unix.O_CLOEXEC, 0o600)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// writeFile writes size bytes of the pattern to fd with chunk-sized writes,
// depth of them in flight, and fails the test on an error or short write.
func writeFile(t testing.TB, r *Ring, fd int, size int64, chunk, depth int) {
	t.Helper()
	bufs := buffers(t, depth, chunk)
	free := make([]int, 0, depth)
	for i := range depth {
		free = append(free, i)
	}
	var next int64
	var failed error
	for (next < size || r.InFlight() > 0 || r.Pending() > 0) && failed == nil {
		for next < size && len(free) > 0 {
			i := free[len(free)-1]
			b := bufs[i][:min(int64(chunk), size-next)]
			pattern(b, next)
			// user: buffer index in the low 16 bits, offset/chunk above
			if !r.PrepWrite(fd, b, next, uint64(next/int64(chunk))<<16|uint64(i)) {
				t.Fatal("PrepWrite: queue full with free buffers")
			}
			free = free[:len(free)-1]
			next += int64(len(b))
		}
		if err := r.SubmitAndWait(1); err != nil {
			t.Fatal(err)
		}
		r.Reap(func(user uint64, res int32) {
			i := int(user & 0xffff)
			off := int64(user>>16) * int64(chunk)
			want := min(int64(chunk), size-off)
			if int64(res) != want && failed == nil {
				failed = fmt.Errorf("write of %d bytes at %d: res %d", want, off, res)
			}
			free = append(free, i)
		})
	}
	if failed != nil {
		t.Fatal(failed)
	}
}

func TestABISizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"io_uring_sqe", unsafe.Sizeof(sqe{}), 64},
		{"io_uring_cqe", unsafe.Sizeof(cqe{}), 16},
		{"io_uring_params", unsafe.Sizeof(params{}), 120},
		{"io_sqring_offsets", unsafe.Sizeof(sqringOffsets{}), 40},
		{"io_cqring_offsets", unsafe.Sizeof(cqringOffsets{}), 40},
		{"io_uring_getevents_arg", unsafe.Sizeof(getEventsArg{}), 24},
		{"io_uring_probe", unsafe.Sizeof(probeHeader{}), 16},
		{"io_uring_probe_op", unsafe.Sizeof(probeOp{}), 8},
		{"sqe.user_data offset", unsafe.Offsetof(sqe{}.userData), 32},
		{"sqe.addr3 offset", unsafe.Offsetof(sqe{}.addr3), 48},
		{"params.sq_off offset", unsafe.Offsetof(params{}.sqOff), 40},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestProbe(t *testing.T) {
	err := Probe()
	if err != nil && errors.Is(err, ErrUnsupported) && os.Getenv("CI") != "true" {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		t.Fatalf("Probe: %v", err)
	}
}

func TestNewSizes(t *testing.T) {
	needRing(t)
	r := testRing(t, 5)
	if r.Entries() != 8 || r.CQEntries() != 16 {
		t.Errorf("New(5): %d SQ entries and %d CQ entries, want 8 and 16", r.Entries(), r.CQEntries())
	}
	if _, err := New(0); err == nil {
		t.Error("New(0): no error")
	}
	big := testRing(t, 1<<20) // clamped to the kernel's maximum
	if big.Entries() < 4096 || big.Entries()&(big.Entries()-1) != 0 {
		t.Errorf("New(1<<20): %d entries", big.Entries())
	}
	t.Logf("New(1<<20) clamped to %d entries; features %#x, setup flags %#x", big.Entries(), r.features, r.setupFlags)
}

// TestWriteThenRandomRead writes a file with a known pattern through the ring
// at depth 8, reads it back at random offsets at depth 32 and checks every
// byte, with O_DIRECT where the temporary directory allows it and buffered.
func TestWriteThenRandomRead(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	direct := directOK(t, dir)
	for _, mode := range []string{"direct", "buffered"} {
		t.Run(mode, func(t *testing.T) {
			flags := 0
			if mode == "direct" {
				if !direct {
					t.Skipf("O_DIRECT does not work in %s (see the log above)", dir)
				}
				flags = unix.O_DIRECT
			}
			const size = 8 << 20
			const chunk = 64 << 10
			path := filepath.Join(dir, mode+".dat")
			wfd := openFile(t, path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|flags)
			r := testRing(t, 8)
			writeFile(t, r, wfd, size, chunk, 8)

			// Independent check of what the ring wrote.
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) != size {
				t.Fatalf("file is %d bytes, want %d", len(data), size)
			}
			if bad := checkPattern(data, 0); bad >= 0 {
				t.Fatalf("file written through the ring differs from the pattern at byte %d", bad)
			}

			const depth, bs, reads = 32, 4096, 4000
			rfd := openFile(t, path, unix.O_RDONLY|flags)
			rr := testRing(t, depth)
			bufs := buffers(t, depth, bs)
			offs := make([]int64, depth)
			rnd := rand.New(rand.NewPCG(1, 2))
			issue := func(i int) {
				offs[i] = rnd.Int64N(size/bs) * bs
				clear(bufs[i])
				if !rr.PrepRead(rfd, bufs[i], offs[i], uint64(i)) {
					t.Fatal("PrepRead: queue full")
				}
			}
			for i := range depth {
				issue(i)
			}
			issued, done := depth, 0
			for done < reads {
				if err := rr.SubmitAndWait(1); err != nil {
					t.Fatal(err)
				}
				rr.Reap(func(user uint64, res int32) {
					i := int(user)
					if res != bs {
						t.Fatalf("read of %d bytes at %d: res %d", bs, offs[i], res)
					}
					if bad := checkPattern(bufs[i], offs[i]); bad >= 0 {
						t.Fatalf("read at %d: byte %d differs from the pattern", offs[i], bad)
					}
					done++
					if issued < reads {
						issue(i) // re-prepare from inside Reap
						issued++
					}
				})
			}
			if rr.InFlight() != 0 || rr.Pending() != 0 {
				t.Errorf("after all reads: %d in flight, %d pending", rr.InFlight(), rr.Pending())
			}
		})
	}
}

func TestQueueFull(t *testing.T) {
	needRing(t)
	r := testRing(t, 8)
	zero := openFile(t, "/dev/zero", unix.O_RDONLY)
	bufs := buffers(t, 9, 512)
	for i := range 8 {
		if !r.PrepRead(zero, bufs[i], 0, uint64(i)) {
			t.Fatalf("PrepRead %d of 8: queue full", i+1)
		}
	}
	if r.PrepRead(zero, bufs[8], 0, 8) {
		t.Fatal("PrepRead into a full queue returned true")
	}
	if r.Pending() != 8 {
		t.Errorf("Pending = %d, want 8", r.Pending())
	}
	n, err := r.Submit()
	if err != nil || n != 8 {
		t.Fatalf("Submit = %d, %v; want 8, nil", n, err)
	}
	if r.Pending() != 0 || r.InFlight() != 8 {
		t.Errorf("after Submit: Pending %d, InFlight %d; want 0, 8", r.Pending(), r.InFlight())
	}
	// Submitting frees the SQ slots: the 9th fits now, with 8 still unreaped.
	if !r.PrepRead(zero, bufs[8], 0, 8) {
		t.Fatal("PrepRead after Submit: queue full")
	}
	// minComplete above what is in flight is capped: this must not hang.
	if err := r.SubmitAndWait(1000); err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]int32{}
	for len(seen) < 9 {
		r.Reap(func(user uint64, res int32) { seen[user] = res })
		if len(seen) < 9 {
			if err := r.SubmitAndWait(1); err != nil {
				t.Fatal(err)
			}
		}
	}
	for u, res := range seen {
		if u > 8 || res != 512 {
			t.Errorf("completion user %d res %d", u, res)
		}
	}
	if r.InFlight() != 0 {
		t.Errorf("InFlight = %d after reaping all", r.InFlight())
	}
}

// reapOne submits what is prepared, waits for one completion and returns it.
func reapOne(t *testing.T, r *Ring) (uint64, int32) {
	t.Helper()
	if err := r.SubmitAndWait(1); err != nil {
		t.Fatal(err)
	}
	var user uint64
	var res int32
	if n := r.Reap(func(u uint64, rs int32) { user, res = u, rs }); n != 1 {
		t.Fatalf("Reap: %d completions, want 1", n)
	}
	return user, res
}

func TestCompletionErrorsAndShortReads(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	direct := directOK(t, dir)
	r := testRing(t, 4)
	bufs := buffers(t, 2, 8192)

	t.Run("bad fd", func(t *testing.T) {
		for _, fd := range []int{-1, 1 << 20} {
			r.PrepRead(fd, bufs[0][:4096], 0, 42)
			if user, res := reapOne(t, r); user != 42 || res != -int32(unix.EBADF) {
				t.Errorf("read of fd %d: user %d res %d, want 42 and -EBADF (%d)", fd, user, res, -int32(unix.EBADF))
			}
		}
	})

	path := filepath.Join(dir, "short.dat")
	if err := os.WriteFile(path, make([]byte, 6000), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("write to read-only fd", func(t *testing.T) {
		fd := openFile(t, path, unix.O_RDONLY)
		r.PrepWrite(fd, bufs[0][:4096], 0, 7)
		if user, res := reapOne(t, r); user != 7 || res != -int32(unix.EBADF) {
			t.Errorf("user %d res %d, want 7 and -EBADF", user, res)
		}
	})
	t.Run("short read at end of file", func(t *testing.T) {
		fd := openFile(t, path, unix.O_RDONLY)
		r.PrepRead(fd, bufs[0], 0, 1)
		if _, res := reapOne(t, r); res != 6000 {
			t.Errorf("read of 8192 bytes of a 6000-byte file: res %d, want 6000", res)
		}
		r.PrepRead(fd, bufs[0], 6000, 2)
		if _, res := reapOne(t, r); res != 0 {
			t.Errorf("read at end of file: res %d, want 0", res)
		}
	})
	t.Run("unaligned O_DIRECT", func(t *testing.T) {
		if !direct {
			t.Skip("O_DIRECT does not work in the temporary directory")
		}
		fd := openFile(t, path, unix.O_RDONLY|unix.O_DIRECT)
		r.PrepRead(fd, bufs[0][:4096], 0, 3) // aligned: fine
		if _, res := reapOne(t, r); res != 4096 {
			t.Errorf("aligned O_DIRECT read: res %d, want 4096", res)
		}
		r.PrepRead(fd, bufs[0][:4096], 1, 4) // offset not block-aligned
		if user, res := reapOne(t, r); user != 4 || res != -int32(unix.EINVAL) {
			t.Errorf("O_DIRECT read at offset 1: user %d res %d, want 4 and -EINVAL (%d)", user, res, -int32(unix.EINVAL))
		}
		r.PrepRead(fd, bufs[0][:100], 0, 5) // length not block-aligned
		if _, res := reapOne(t, r); res != -int32(unix.EINVAL) {
			t.Errorf("O_DIRECT read of 100 bytes: res %d, want -EINVAL", res)
		}
		// The buffer's own alignment requirement is the device's DMA
		// alignment, often less than its block size, so a buffer off by
		// one byte is the only misaligned address every device refuses.
		r.PrepRead(fd, bufs[1][1:4097], 0, 6)
		if _, res := reapOne(t, r); res != -int32(unix.EINVAL) {
			t.Errorf("O_DIRECT read into a buffer at an odd address: res %d, want -EINVAL", res)
		}
	})
}

func TestCloseTwiceAndUseAfterClose(t *testing.T) {
	needRing(t)
	r, err := New(4)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	buf := make([]byte, 8)
	if r.PrepRead(0, buf, 0, 0) || r.PrepWrite(1, buf, 0, 0) {
		t.Error("Prep on a closed ring returned true")
	}
	if _, err := r.Submit(); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit after Close: %v, want ErrClosed", err)
	}
	if err := r.SubmitAndWait(1); !errors.Is(err, ErrClosed) {
		t.Errorf("SubmitAndWait after Close: %v, want ErrClosed", err)
	}
	if n := r.Reap(func(uint64, int32) { t.Error("completion after Close") }); n != 0 {
		t.Errorf("Reap after Close: %d", n)
	}
	if r.InFlight() != 0 || r.Pending() != 0 {
		t.Error("InFlight or Pending non-zero after Close")
	}
}

// TestCloseWaitsForInFlight closes a ring with reads in flight: Close must
// return only when the kernel is done with their buffers.
func TestCloseWaitsForInFlight(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	flags := 0
	if directOK(t, dir) {
		flags = unix.O_DIRECT
	}
	path := filepath.Join(dir, "f.dat")
	wfd := openFile(t, path, unix.O_WRONLY|unix.O_CREAT|flags)
	w := testRing(t, 8)
	writeFile(t, w, wfd, 4<<20, 64<<10, 8)

	r, err := New(64)
	if err != nil {
		t.Fatal(err)
	}
	bufs, release, err := AlignedBuffers(64, 4096)
	if err != nil {
		t.Fatal(err)
	}
	fd := openFile(t, path, unix.O_RDONLY|flags)
	for i := range 64 {
		r.PrepRead(fd, bufs[i], int64(i)*4096*16, uint64(i))
	}
	if n, err := r.Submit(); err != nil || n != 64 {
		t.Fatalf("Submit = %d, %v", n, err)
	}
	r.PrepRead(fd, bufs[0], 0, 99) // prepared, never submitted: dropped
	if err := r.Close(); err != nil {
		t.Fatalf("Close with I/O in flight: %v", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
}

// TestCloseGivesUp closes a ring whose read can never complete (an empty
// pipe): Close must stop waiting and say so.
func TestCloseGivesUp(t *testing.T) {
	needRing(t)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	saved := closeDrainTimeout
	closeDrainTimeout = 300 * time.Millisecond
	defer func() { closeDrainTimeout = saved }()

	r, err := New(2)
	if err != nil {
		t.Fatal(err)
	}
	bufs := buffers(t, 1, 64)
	r.PrepRead(p[0], bufs[0], -1, 1)
	if _, err := r.Submit(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = r.Close()
	if err == nil || !strings.Contains(err.Error(), "1 I/Os still in flight") {
		t.Errorf("Close with a read that never completes: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := r.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestCQOverflow has more completions than the CQ holds without reaping:
// the kernel keeps the rest, and Reap must deliver every one, once.
func TestCQOverflow(t *testing.T) {
	needRing(t)
	r := testRing(t, 4) // CQ of 8
	zero := openFile(t, "/dev/zero", unix.O_RDONLY)
	const total = 64
	bufs := buffers(t, total, 16)
	for i := 0; i < total; {
		for r.PrepRead(zero, bufs[i], 0, uint64(i)) {
			i++
			if i == total {
				break
			}
		}
		if _, err := r.Submit(); err != nil {
			t.Fatalf("Submit with completions overflowing: %v", err)
		}
	}
	if r.Pending() != 0 {
		t.Fatalf("%d reads left unsubmitted while the CQ overflowed", r.Pending())
	}
	if got := r.ready(); got != uint32(r.CQEntries()) {
		t.Errorf("CQ ring holds %d completions, want it full (%d)", got, r.CQEntries())
	}
	if atomic.LoadUint32(r.sqFlags)&sqCQOverflow == 0 {
		t.Errorf("IORING_SQ_CQ_OVERFLOW not set with %d completions and a CQ of %d", total, r.CQEntries())
	}
	seen := make([]int, total)
	n := r.Reap(func(user uint64, res int32) {
		if res != 16 {
			t.Errorf("user %d: res %d", user, res)
		}
		seen[user]++
	})
	if n != total {
		t.Errorf("Reap delivered %d completions, want %d", n, total)
	}
	for u, c := range seen {
		if c != 1 {
			t.Errorf("user %d delivered %d times", u, c)
		}
	}
	if r.InFlight() != 0 {
		t.Errorf("InFlight = %d", r.InFlight())
	}
}

// TestDepth4096 keeps 4096 O_DIRECT reads in flight at once.
func TestDepth4096(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	flags := 0
	if directOK(t, dir) {
		flags = unix.O_DIRECT
	}
	const size = 16 << 20
	path := filepath.Join(dir, "f.dat")
	w := testRing(t, 8)
	writeFile(t, w, openFile(t, path, unix.O_WRONLY|unix.O_CREAT|flags), size, 1<<20, 4)
	const depth = 4096
	r := testRing(t, depth)
	bufs := buffers(t, depth, 4096)
	fd := openFile(t, path, unix.O_RDONLY|flags)
	for i := range depth {
		if !r.PrepRead(fd, bufs[i], int64(i)*4096, uint64(i)) {
			t.Fatalf("PrepRead %d: queue full", i)
		}
	}
	if err := r.SubmitAndWait(depth); err != nil {
		t.Fatal(err)
	}
	done := 0
	for done < depth {
		done += r.Reap(func(user uint64, res int32) {
			if res != 4096 {
				t.Fatalf("read %d: res %d", user, res)
			}
			if bad := checkPattern(bufs[user], int64(user)*4096); bad >= 0 {
				t.Fatalf("read %d: byte %d differs", user, bad)
			}
		})
		if done < depth {
			if err := r.SubmitAndWait(1); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestNoAllocsOnHotPath(t *testing.T) {
	needRing(t)
	dir := t.TempDir()
	flags := 0
	if directOK(t, dir) {
		flags = unix.O_DIRECT
	}
	path := filepath.Join(dir, "f.dat")
	w := testRing(t, 8)
	writeFile(t, w, openFile(t, path, unix.O_WRONLY|unix.O_CREAT|flags), 1<<20, 64<<10, 4)
	fd := openFile(t, path, unix.O_RDONLY|flags)
	r := testRing(t, 8)
	bufs := buffers(t, 2, 4096)
	var off int64
	var bad int
	allocs := testing.AllocsPerRun(1000, func() {
		off = (off + 4096) % (1 << 20)
		r.PrepRead(fd, bufs[0], off, 1)
		r.PrepWrite(fd, bufs[1], off, 2) // read-only fd: -EBADF, still a full cycle
		if _, err := r.Submit(); err != nil {
			t.Fatal(err)
		}
		if err := r.SubmitAndWait(2); err != nil {
			t.Fatal(err)
		}
		r.Reap(func(user uint64, res int32) {
			if (user == 1 && res != 4096) || (user == 2 && res != -int32(unix.EBADF)) {
				bad++
			}
		})
	})
	if allocs != 0 {
		t.Errorf("prep+submit+wait+reap allocates %v times per cycle, want 0", allocs)
	}
	if bad != 0 {
		t.Errorf("%d unexpected completions", bad)
	}
}

func TestAlignedBuffers(t *testing.T) {
	bufs, release, err := AlignedBuffers(5, 6000)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bufs {
		if len(b) != 6000 || cap(b) != 6000 {
			t.Errorf("buffer %d: len %d cap %d, want 6000", i, len(b), cap(b))
		}
		if p := uintptr(unsafe.Pointer(&b[0])); p%BufferAlign != 0 {
			t.Errorf("buffer %d at %#x: not %d-aligned", i, p, BufferAlign)
		}
		for j := range b {
			b[j] = byte(i) // writable, and no overlap (checked below)
		}
	}
	for i, b := range bufs {
		for _, c := range b {
			if c != byte(i) {
				t.Fatalf("buffer %d overlaps another", i)
			}
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	if err := release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
	for _, c := range [][2]int{{0, 4096}, {1, 0}, {-1, 4096}, {1 << 40, 1 << 20}} {
		if _, _, err := AlignedBuffers(c[0], c[1]); err == nil {
			t.Errorf("AlignedBuffers(%d, %d): no error", c[0], c[1])
		}
	}
}

// TestUnsupportedErrors checks the reasons given for the ways a kernel
// refuses io_uring_setup (they cannot all be provoked on one machine).
func TestUnsupportedErrors(t *testing.T) {
	for _, c := range []struct {
		errno       unix.Errno
		sysctl      string
		unsupported bool
		why         string
	}{
		{unix.ENOSYS, "", true, "CONFIG_IO_URING"},
		{unix.EPERM, "2", true, "kernel.io_uring_disabled=2"},
		{unix.EPERM, "1", true, "io_uring_group"},
		{unix.EPERM, "0", true, "seccomp"},
		{unix.EPERM, "", true, "seccomp"},
		{unix.ENOMEM, "0", false, "RLIMIT_MEMLOCK"},
		{unix.EMFILE, "0", false, "file descriptors"},
	} {
		err := classifySetupErrno(c.errno, c.sysctl)
		t.Logf("%v, io_uring_disabled=%q: %v", c.errno, c.sysctl, err)
		if got := errors.Is(err, ErrUnsupported); got != c.unsupported {
			t.Errorf("%v with io_uring_disabled=%q: errors.Is(ErrUnsupported) = %v", c.errno, c.sysctl, got)
		}
		if c.unsupported && !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("%v: does not wrap errors.ErrUnsupported", c.errno)
		}
		if !errors.Is(err, c.errno) {
			t.Errorf("%v: does not wrap the errno: %v", c.errno, err)
		}
		if !strings.Contains(err.Error(), c.why) {
			t.Errorf("%v with io_uring_disabled=%q: %q does not say %q", c.errno, c.sysctl, err, c.why)
		}
	}
}

// BenchmarkRandRead4k keeps depth random 4 KiB reads (O_DIRECT where the
// temporary directory allows it) in flight on a 256 MiB file, from one
// goroutine; an op is one completed read. It reports IOPS and the process's
// CPU time per read.
func BenchmarkRandRead4k(b *testing.B) {
	needRing(b)
	dir := b.TempDir()
	flags := 0
	if directOK(b, dir) {
		flags = unix.O_DIRECT
	}
	const size = 256 << 20
	path := filepath.Join(dir, "bench.dat")
	w, err := New(8)
	if err != nil {
		b.Fatal(err)
	}
	writeFile(b, w, openFile(b, path, unix.O_WRONLY|unix.O_CREAT|flags), size, 1<<20, 8)
	w.Close()
	fd := openFile(b, path, unix.O_RDONLY|flags)

	for _, depth := range []int{1, 32} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			r := testRing(b, uint32(depth))
			bufs := buffers(b, depth, 4096)
			rnd := rand.New(rand.NewPCG(1, 2))
			for i := range depth {
				r.PrepRead(fd, bufs[i], rnd.Int64N(size/4096)*4096, uint64(i))
			}
			done := make([]uint64, 0, depth)
			collect := func(user uint64, res int32) {
				if res != 4096 {
					b.Fatalf("read: res %d", res)
				}
				done = append(done, user)
			}
			var ru0, ru1 unix.Rusage
			unix.Getrusage(unix.RUSAGE_SELF, &ru0)
			start := time.Now()
			n := 0
			for b.Loop() {
				for len(done) == 0 {
					if err := r.SubmitAndWait(1); err != nil {
						b.Fatal(err)
					}
					r.Reap(collect)
				}
				u := done[len(done)-1]
				done = done[:len(done)-1]
				r.PrepRead(fd, bufs[u], rnd.Int64N(size/4096)*4096, u)
				n++
			}
			elapsed := time.Since(start)
			unix.Getrusage(unix.RUSAGE_SELF, &ru1)
			cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(n)/elapsed.Seconds(), "IOPS")
			b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu-µs/read")
		})
	}
}

// TestSeparateMmap maps the SQ and CQ rings separately, as on kernels without
// IORING_FEAT_SINGLE_MMAP, and moves data through the ring.
func TestSeparateMmap(t *testing.T) {
	needRing(t)
	r, err := newRing(8, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	if unsafe.SliceData(r.sqMem) == unsafe.SliceData(r.cqMem) {
		t.Fatal("rings share one mapping")
	}
	path := filepath.Join(t.TempDir(), "f.dat")
	writeFile(t, r, openFile(t, path, unix.O_WRONLY|unix.O_CREAT), 1<<20, 16<<10, 8)
	fd := openFile(t, path, unix.O_RDONLY)
	bufs := buffers(t, 8, 4096)
	for i := range 8 {
		r.PrepRead(fd, bufs[i], int64(i)*100_000, uint64(i))
	}
	if err := r.SubmitAndWait(8); err != nil {
		t.Fatal(err)
	}
	if n := r.Reap(func(user uint64, res int32) {
		if res != 4096 {
			t.Errorf("read %d: res %d", user, res)
		}
		if bad := checkPattern(bufs[user], int64(user)*100_000); bad >= 0 {
			t.Errorf("read %d: byte %d differs", user, bad)
		}
	}); n != 8 {
		t.Errorf("Reap: %d, want 8", n)
	}
}

// TestReapReentrant calls Reap from inside Reap's fn, after submitting more
// reads there, so the inner Reap goes past the tail the outer one saw: no
// completion may be lost or delivered twice.
func TestReapReentrant(t *testing.T) {
	needRing(t)
	r := testRing(t, 8)
	zero := openFile(t, "/dev/zero", unix.O_RDONLY)
	bufs := buffers(t, 12, 64)
	for i := range 8 {
		r.PrepRead(zero, bufs[i], 0, uint64(i))
	}
	if err := r.SubmitAndWait(8); err != nil {
		t.Fatal(err)
	}
	seen := make([]int, 12)
	inner := 0
	outer := r.Reap(func(user uint64, res int32) {
		seen[user]++
		if user == 0 {
			for i := 8; i < 12; i++ {
				r.PrepRead(zero, bufs[i], 0, uint64(i))
			}
			if err := r.SubmitAndWait(4); err != nil {
				t.Fatal(err)
			}
			inner = r.Reap(func(user uint64, res int32) { seen[user]++ })
		}
	})
	if outer+inner != 12 {
		t.Errorf("outer Reap %d + inner %d completions, want 12", outer, inner)
	}
	for u, c := range seen {
		if c != 1 {
			t.Errorf("user %d delivered %d times", u, c)
		}
	}
}
