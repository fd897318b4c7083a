package iouring

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrUnsupported is wrapped by the errors of New and Probe when the kernel or
// its configuration refuses io_uring, or the read and write operations of it,
// so that the caller should use pread/pwrite instead. It wraps
// errors.ErrUnsupported, so errors.Is(err, errors.ErrUnsupported) holds too.
var ErrUnsupported = fmt.Errorf("io_uring is unavailable: %w", errors.ErrUnsupported)

// unsupportedError says why io_uring is unavailable and unwraps to both
// ErrUnsupported and the errno the kernel returned.
type unsupportedError struct {
	why   string
	errno unix.Errno
}

func (e *unsupportedError) Error() string {
	return fmt.Sprintf("iouring: %s (%v): %v", e.why, e.errno, ErrUnsupported)
}

func (e *unsupportedError) Unwrap() []error { return []error{ErrUnsupported, e.errno} }

func unsupported(why string, errno unix.Errno) error {
	return &unsupportedError{why: why, errno: errno}
}

// setupError turns an io_uring_setup failure into an error that says why.
func setupError(err error) error {
	errno, ok := err.(unix.Errno)
	if !ok {
		return fmt.Errorf("iouring: io_uring_setup: %w", err)
	}
	return classifySetupErrno(errno, readDisabledSysctl())
}

// classifySetupErrno is setupError with the value of
// /proc/sys/kernel/io_uring_disabled given ("" when unreadable).
func classifySetupErrno(errno unix.Errno, disabled string) error {
	switch errno {
	case unix.ENOSYS:
		return unsupported("io_uring_setup does not exist: kernel older than 5.1 or built without CONFIG_IO_URING, or a seccomp filter answers ENOSYS", errno)
	case unix.EPERM:
		switch disabled {
		case "2":
			return unsupported("io_uring is disabled for all processes by sysctl kernel.io_uring_disabled=2", errno)
		case "1":
			return unsupported("sysctl kernel.io_uring_disabled=1 allows io_uring only to processes with CAP_SYS_ADMIN or in the group kernel.io_uring_group, and this one is neither", errno)
		default:
			return unsupported("io_uring_setup is denied although kernel.io_uring_disabled is not set: a seccomp filter (such as a container runtime's default profile) or a security module blocks it", errno)
		}
	case unix.ENOMEM:
		return fmt.Errorf("iouring: io_uring_setup: not enough memory for the rings (on kernels before 5.12 they count against RLIMIT_MEMLOCK): %w", errno)
	case unix.EMFILE, unix.ENFILE:
		return fmt.Errorf("iouring: io_uring_setup: out of file descriptors: %w", errno)
	}
	return fmt.Errorf("iouring: io_uring_setup: %w", errno)
}

func readDisabledSysctl() string {
	b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Probe reports whether io_uring reads and writes work in this process: nil
// if they do, otherwise an error that says why and wraps ErrUnsupported when
// the kernel refuses io_uring. Beyond what New checks, it performs a real
// read of /dev/zero and a real write to /dev/null through a small ring, which
// catches a seccomp filter that allows io_uring_setup but not io_uring_enter.
func Probe() error {
	r, err := New(2)
	if err != nil {
		return err
	}
	defer r.Close()

	zero, err := unix.Open("/dev/zero", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("iouring: Probe: %w", err)
	}
	defer unix.Close(zero)
	null, err := unix.Open("/dev/null", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("iouring: Probe: %w", err)
	}
	defer unix.Close(null)

	bufs, release, err := AlignedBuffers(2, 8)
	if err != nil {
		return fmt.Errorf("iouring: Probe: %w", err)
	}
	defer func() {
		r.Close() // first: it waits for I/O still in flight on the buffers
		release()
	}()
	rbuf, wbuf := bufs[0], bufs[1]
	copy(rbuf, "nonzero!")
	copy(wbuf, "probe!!!")
	r.PrepRead(zero, rbuf, 0, 1)
	r.PrepWrite(null, wbuf, 0, 2)
	if err := r.SubmitAndWait(2); err != nil {
		var errno unix.Errno
		if errors.As(err, &errno) && (errno == unix.EPERM || errno == unix.ENOSYS) {
			return unsupported("io_uring_enter is denied (a seccomp filter or security module)", errno)
		}
		return fmt.Errorf("iouring: Probe: %w", err)
	}
	var res [3]int32
	got := r.Reap(func(user uint64, r int32) {
		if user < uint64(len(res)) {
			res[user] = r
		}
	})
	if got != 2 {
		return fmt.Errorf("iouring: Probe: %d completions, want 2", got)
	}
	if res[1] < 0 {
		return fmt.Errorf("iouring: Probe: read of /dev/zero: %w", unix.Errno(-res[1]))
	}
	if res[2] < 0 {
		return fmt.Errorf("iouring: Probe: write to /dev/null: %w", unix.Errno(-res[2]))
	}
	if res[1] != int32(len(rbuf)) || res[2] != int32(len(wbuf)) {
		return fmt.Errorf("iouring: Probe: read of /dev/zero gave %d bytes, write to /dev/null %d, want %d and %d", res[1], res[2], len(rbuf), len(wbuf))
	}
	for _, b := range rbuf {
		if b != 0 {
			return fmt.Errorf("iouring: Probe: read of /dev/zero did not fill the buffer with zeros: %v", rbuf)
		}
	}
	return nil
}
