package iouring_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rightsize/rightsize/internal/iouring"
	"golang.org/x/sys/unix"
)

// Read a file in 4 KiB blocks, up to 4 at a time.
func Example() {
	path := filepath.Join(os.TempDir(), "iouring-example.dat")
	os.WriteFile(path, make([]byte, 3*4096+100), 0o600)
	defer os.Remove(path)
	fd, _ := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	defer unix.Close(fd)

	r, err := iouring.New(4)
	if errors.Is(err, iouring.ErrUnsupported) {
		fmt.Println("no io_uring, use pread:", err)
		return
	} else if err != nil {
		panic(err)
	}
	bufs, release, err := iouring.AlignedBuffers(4, 4096)
	if err != nil {
		panic(err)
	}
	for i := range bufs {
		r.PrepRead(fd, bufs[i], int64(i)*4096, uint64(i))
	}
	if err := r.SubmitAndWait(4); err != nil {
		panic(err)
	}
	total := 0
	r.Reap(func(user uint64, res int32) {
		if res < 0 {
			fmt.Println("block", user, unix.Errno(-res))
			return
		}
		total += int(res) // the last block is short: 100 bytes, the fourth 0
	})
	r.Close() // waits for anything still in flight: then the buffers may go
	release()
	fmt.Println(total, "bytes")
	// Output: 12388 bytes
}
