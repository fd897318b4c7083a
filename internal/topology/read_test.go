package topology

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv/endless"
)

// A host description that never ends (/dev/zero) is refused after
// MaxFileSize bytes, with one message; a real one reads as Parse does.
func TestReadBounded(t *testing.T) {
	in := &endless.Reader{}
	_, err := Read(in, "/dev/zero")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "/dev/zero: larger than 64 KiB: not a host description") {
		t.Errorf("endless zeros: %v", err)
	}
	if in.N > MaxFileSize+1 {
		t.Errorf("read %d bytes, more than %d", in.N, MaxFileSize+1)
	}
	h, err := Read(strings.NewReader("sockets: 2\ncores_per_socket: 12\nthreads_per_core: 2\n"), "h.yaml")
	if err != nil || h.Cores() != 24 || h.Source != "h.yaml" {
		t.Errorf("%+v, %v", h, err)
	}
	if _, err := Read(failing{}, "h.yaml"); !errors.Is(err, ErrRead) {
		t.Errorf("a read error: %v, want ErrRead", err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// FuzzReadBounded: whatever a host file starts with, an endless rest is
// refused having read at most MaxFileSize+1 bytes, allocating a few
// hundred KiB.
func FuzzReadBounded(f *testing.F) {
	f.Add([]byte("sockets: 2\ncores_per_socket: 12\n"), byte(' '))
	f.Add([]byte("name: \""), byte('a'))
	f.Add([]byte{}, byte(0))
	f.Fuzz(func(t *testing.T, prefix []byte, fill byte) {
		in := &endless.Reader{Prefix: prefix, Fill: fill}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read(in, "f.yaml")
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrTooLarge) && len(prefix) <= MaxFileSize {
			t.Fatalf("an endless input: %v", err)
		}
		if in.N > MaxFileSize+1 {
			t.Fatalf("read %d bytes of an endless input", in.N)
		}
		// What Read allocated: the capped buffer as it grew, not the input.
		if d := after.TotalAlloc - before.TotalAlloc; d > 4<<20 {
			t.Fatalf("Read allocated %d KiB", d>>10)
		}
	})
}
