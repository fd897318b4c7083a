package iouring

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrFixedUnavailable wraps the errors of RegisterBuffers and RegisterFiles
// that leave the ring usable as before: the caller goes on with PrepRead and
// PrepWrite. The usual cause is RLIMIT_MEMLOCK (registered buffers are
// locked in memory and counted against it, unless the process holds
// CAP_IPC_LOCK).
var ErrFixedUnavailable = errors.New("iouring: registered buffers or files unavailable")

// RegisterBuffers registers bufs with the kernel (IORING_REGISTER_BUFFERS):
// their pages are pinned once, here, instead of at every I/O, which is what
// PrepReadFixed and PrepWriteFixed then save (fio's --fixedbufs). bufs must
// be memory that stays mapped until the ring is closed, such as
// AlignedBuffers' (not the Go heap's: the kernel holds the pages); they are
// unregistered when the ring is closed. A ring has one set of registered
// buffers: a second call is refused.
//
// An error wrapping ErrFixedUnavailable (with the errno: ENOMEM when the
// locked-memory limit is too small, EFAULT or EOPNOTSUPP for memory the
// kernel will not pin) leaves the ring as it was.
func (r *Ring) RegisterBuffers(bufs [][]byte) error {
	if r.fd < 0 {
		return ErrClosed
	}
	if r.fixedBufs != nil {
		return errors.New("iouring: RegisterBuffers: buffers are already registered")
	}
	if len(bufs) == 0 || len(bufs) > maxFixedBuffers {
		return fmt.Errorf("iouring: RegisterBuffers: %d buffers, want 1 to %d", len(bufs), maxFixedBuffers)
	}
	iov := make([]unix.Iovec, len(bufs))
	for i, b := range bufs {
		if len(b) == 0 || len(b) > maxFixedBuffer {
			return fmt.Errorf("iouring: RegisterBuffers: buffer %d holds %d bytes, want 1 to %d", i, len(b), maxFixedBuffer)
		}
		iov[i].Base = unsafe.SliceData(b)
		iov[i].SetLen(len(b))
	}
	if errno := r.register(registerBuffers, unsafe.Pointer(&iov[0]), len(iov)); errno != 0 {
		return fixedError("IORING_REGISTER_BUFFERS", errno)
	}
	r.fixedBufs = bufs
	return nil
}

// RegisterFiles registers descriptors with the kernel
// (IORING_REGISTER_FILES), so that an I/O names its file by index into fds,
// a FixedFile, and the kernel need not look the descriptor up and take a
// reference on it at every I/O (fio's --registerfiles). The descriptors must
// stay open until the ring is closed. A ring has one set of registered files.
// Errors are as RegisterBuffers'.
func (r *Ring) RegisterFiles(fds ...int) error {
	if r.fd < 0 {
		return ErrClosed
	}
	if r.fixedFiles > 0 {
		return errors.New("iouring: RegisterFiles: files are already registered")
	}
	if len(fds) == 0 {
		return errors.New("iouring: RegisterFiles: no descriptors")
	}
	arr := make([]int32, len(fds))
	for i, fd := range fds {
		arr[i] = int32(fd)
	}
	if errno := r.register(registerFiles, unsafe.Pointer(&arr[0]), len(arr)); errno != 0 {
		return fixedError("IORING_REGISTER_FILES", errno)
	}
	r.fixedFiles = len(fds)
	return nil
}

func (r *Ring) register(op uintptr, arg unsafe.Pointer, n int) unix.Errno {
	for {
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), op, uintptr(arg), uintptr(n), 0, 0)
		if errno != unix.EINTR {
			return errno
		}
	}
}

// fixedError wraps ErrFixedUnavailable around the refusals that leave the
// ring usable as before (limits, permissions, memory the kernel will not
// pin); any other errno is a misuse and is returned as it is.
func fixedError(what string, errno unix.Errno) error {
	why := ""
	switch errno {
	case unix.ENOMEM:
		why = " (the locked-memory limit, ulimit -l, is smaller than the buffers)"
	case unix.EPERM:
		why = " (not permitted here)"
	case unix.EFAULT, unix.EOPNOTSUPP, unix.EMFILE, unix.ENFILE:
	default:
		return fmt.Errorf("iouring: %s: %w", what, errno)
	}
	return fmt.Errorf("%w: %s: %w%s", ErrFixedUnavailable, what, errno, why)
}

// FixedFile names a descriptor by its index among those given to
// RegisterFiles.
type FixedFile int

// PrepReadFixed queues a read filling registered buffer bufIndex (all of it)
// from offset off of registered file f, with IORING_OP_READ_FIXED. Like
// PrepRead it returns false when the submission queue is full or the ring is
// closed, and also when bufIndex or f is not registered.
func (r *Ring) PrepReadFixed(f FixedFile, bufIndex int, off int64, user uint64) bool {
	return r.prepFixed(opReadFixed, f, bufIndex, off, user)
}

// PrepWriteFixed queues a write of registered buffer bufIndex (all of it) at
// offset off of registered file f, with IORING_OP_WRITE_FIXED; see
// PrepReadFixed.
func (r *Ring) PrepWriteFixed(f FixedFile, bufIndex int, off int64, user uint64) bool {
	return r.prepFixed(opWriteFixed, f, bufIndex, off, user)
}

func (r *Ring) prepFixed(op uint8, f FixedFile, bufIndex int, off int64, user uint64) bool {
	if uint(bufIndex) >= uint(len(r.fixedBufs)) || uint(f) >= uint(r.fixedFiles) {
		return false
	}
	s := r.nextSQE()
	if s == nil {
		return false
	}
	buf := r.fixedBufs[bufIndex]
	*s = sqe{
		opcode:   op,
		flags:    sqeFixedFile,
		fd:       int32(f),
		off:      uint64(off),
		addr:     uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))),
		len:      uint32(min(len(buf), maxIO)),
		userData: user,
		bufIndex: uint16(bufIndex),
	}
	r.publish()
	return true
}

// unregister releases the registered files and buffers, nothing being in
// flight. Closing the ring would release them too, but later, in the
// kernel's own time: until then a registered file stays open (its
// filesystem cannot be unmounted) and registered pages stay pinned.
func (r *Ring) unregister() error {
	var err error
	if r.fixedFiles > 0 {
		if errno := r.register(unregisterFiles, nil, 0); errno != 0 {
			err = fmt.Errorf("iouring: IORING_UNREGISTER_FILES: %w", errno)
		}
		r.fixedFiles = 0
	}
	if r.fixedBufs != nil {
		if errno := r.register(unregisterBuffers, nil, 0); errno != 0 && err == nil {
			err = fmt.Errorf("iouring: IORING_UNREGISTER_BUFFERS: %w", errno)
		}
		r.fixedBufs = nil
	}
	return err
}
