package iouring

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrClosed is returned by the methods of a Ring after Close.
var ErrClosed = errors.New("iouring: ring is closed")

// maxIO is the largest length one read or write is given: the kernel's
// MAX_RW_COUNT (INT_MAX rounded down to a page). A longer buffer completes as
// a short read or write, exactly as pread/pwrite of it would.
const maxIO = math.MaxInt32 &^ 4095

// closeDrainTimeout bounds how long Close waits for I/O still in flight (a
// variable so that the test of giving up need not take 10 s).
var closeDrainTimeout = 10 * time.Second

// Ring is one io_uring instance: a submission queue (SQ) the caller fills with
// PrepRead/PrepWrite and hands to the kernel with Submit or SubmitAndWait, and
// a completion queue (CQ) the caller drains with Reap.
//
// A Ring is not safe for concurrent use: one goroutine at a time may call its
// methods. It need not be the same goroutine or OS thread each time.
type Ring struct {
	fd int // -1 once closed

	// Submission queue. *sqHead is written by the kernel (atomic load);
	// *sqTail is ours (atomic store, after the SQE it publishes is written).
	sqHead    *uint32
	sqTail    *uint32
	sqFlags   *uint32
	sqMask    uint32
	sqEntries uint32
	sqes      []sqe
	tail      uint32 // our copy of *sqTail

	// Completion queue. *cqTail is written by the kernel (atomic load);
	// *cqHead is ours (atomic store, after the CQE it releases is read).
	cqHead     *uint32
	cqTail     *uint32
	cqDropped  *uint32 // completions the kernel had to drop (cq_overflow)
	cqMask     uint32
	cqEntries  uint32
	cqes       []cqe
	reaped     uint32 // CQEs consumed since New, mod 2^32
	features   uint32
	setupFlags uint32

	sqMem, cqMem, sqeMem []byte

	// Arguments of the timed wait in Close; fields of the (heap-allocated)
	// Ring so that their addresses, given to the kernel as integers, cannot
	// move with a goroutine stack.
	waitTS  unix.Timespec
	waitArg getEventsArg

	fixedBufs  [][]byte // registered with RegisterBuffers
	fixedFiles int      // descriptors registered with RegisterFiles
}

// bufEscape makes every buffer given to prep escape to the heap, as seen by
// the compiler's escape analysis: the kernel keeps only the integer address
// of a buffer, and a buffer on a goroutine stack would move when the stack
// grows, so the kernel would write into memory no longer the buffer. The
// branch is never taken.
var (
	bufEscapeNever bool
	bufEscapeSink  []byte
)

// New creates a ring with a submission queue of entries slots (rounded up to
// a power of two by the kernel, and clamped to its maximum, 32768) and a
// completion queue twice that size.
//
// It also asks the kernel (IORING_REGISTER_PROBE) whether IORING_OP_READ and
// IORING_OP_WRITE are supported. When the kernel refuses io_uring, the error
// wraps ErrUnsupported (and errors.ErrUnsupported) and the errno, and its text
// says why, so the caller can fall back to pread/pwrite.
func New(entries uint32) (*Ring, error) {
	return newRing(entries, false)
}

// newRing is New; separateMmap maps the SQ and CQ rings separately even when
// the kernel offers IORING_FEAT_SINGLE_MMAP, as on kernels before 5.4, so
// that the tests cover that path too.
func newRing(entries uint32, separateMmap bool) (*Ring, error) {
	if entries == 0 {
		return nil, errors.New("iouring: New: entries must be at least 1")
	}
	var p params
	flags := uint32(setupClamp | setupSubmitAll)
	fd, err := setup(entries, &p, flags)
	if err == unix.EINVAL {
		// A kernel older than 5.18 refuses IORING_SETUP_SUBMIT_ALL.
		p = params{}
		flags = setupClamp
		fd, err = setup(entries, &p, flags)
	}
	if err != nil {
		return nil, setupError(err)
	}
	if separateMmap {
		p.features &^= featSingleMmap
	}
	r := &Ring{fd: fd, features: p.features, setupFlags: flags}
	if err := r.mmapRings(&p); err != nil {
		r.unmapAndClose()
		return nil, fmt.Errorf("iouring: mmap of the rings: %w", err)
	}
	if err := r.probeOps(); err != nil {
		r.unmapAndClose()
		return nil, err
	}
	return r, nil
}

func setup(entries uint32, p *params, flags uint32) (int, error) {
	p.flags = flags
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(p)), 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func (r *Ring) mmapRings(p *params) error {
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(sizeofCQE)
	single := p.features&featSingleMmap != 0
	if single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	prot, fl := unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE
	if r.sqMem, err = unix.Mmap(r.fd, offSQRing, sqSize, prot, fl); err != nil {
		return fmt.Errorf("SQ ring: %w", err)
	}
	if single {
		r.cqMem = r.sqMem
	} else if r.cqMem, err = unix.Mmap(r.fd, offCQRing, cqSize, prot, fl); err != nil {
		return fmt.Errorf("CQ ring: %w", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(sizeofSQE), prot, fl); err != nil {
		return fmt.Errorf("SQE array: %w", err)
	}

	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	r.sqHead = u32(r.sqMem, p.sqOff.head)
	r.sqTail = u32(r.sqMem, p.sqOff.tail)
	r.sqFlags = u32(r.sqMem, p.sqOff.flags)
	r.sqMask = *u32(r.sqMem, p.sqOff.ringMask)
	r.sqEntries = *u32(r.sqMem, p.sqOff.ringEntries)
	r.sqes = unsafe.Slice((*sqe)(unsafe.Pointer(&r.sqeMem[0])), r.sqEntries)
	r.tail = atomic.LoadUint32(r.sqTail)
	// The SQ array maps ring slots to SQE indexes; we always use slot i for
	// SQE i, so it is filled once here, as liburing does.
	array := unsafe.Slice(u32(r.sqMem, p.sqOff.array), r.sqEntries)
	for i := range array {
		array[i] = uint32(i)
	}

	r.cqHead = u32(r.cqMem, p.cqOff.head)
	r.cqTail = u32(r.cqMem, p.cqOff.tail)
	r.cqDropped = u32(r.cqMem, p.cqOff.overflow)
	r.cqMask = *u32(r.cqMem, p.cqOff.ringMask)
	r.cqEntries = *u32(r.cqMem, p.cqOff.ringEntries)
	r.cqes = unsafe.Slice((*cqe)(unsafe.Pointer(&r.cqMem[p.cqOff.cqes])), r.cqEntries)
	r.reaped = atomic.LoadUint32(r.cqHead)
	return nil
}

// probeOps checks, with IORING_REGISTER_PROBE (5.6), that the kernel
// supports the opcodes this package submits.
func (r *Ring) probeOps() error {
	const nops = 256
	var buf [unsafe.Sizeof(probeHeader{}) + nops*unsafe.Sizeof(probeOp{})]byte
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerProbe,
		uintptr(unsafe.Pointer(&buf[0])), nops, 0, 0)
	if errno != 0 {
		if errno == unix.EINVAL {
			return unsupported("IORING_REGISTER_PROBE is refused (EINVAL): the kernel predates 5.6, so IORING_OP_READ/WRITE are missing too", errno)
		}
		return unsupported("IORING_REGISTER_PROBE failed", errno)
	}
	h := (*probeHeader)(unsafe.Pointer(&buf[0]))
	ops := unsafe.Slice((*probeOp)(unsafe.Pointer(&buf[unsafe.Sizeof(probeHeader{})])), nops)
	for _, op := range []struct {
		code uint8
		name string
	}{{opRead, "IORING_OP_READ"}, {opWrite, "IORING_OP_WRITE"},
		{opReadFixed, "IORING_OP_READ_FIXED"}, {opWriteFixed, "IORING_OP_WRITE_FIXED"}} {
		if int(op.code) >= int(h.opsLen) || ops[op.code].flags&opSupported == 0 {
			return unsupported(fmt.Sprintf("the kernel does not support %s (probe: last op %d)", op.name, h.lastOp), unix.EINVAL)
		}
	}
	return nil
}

// Entries is the size of the submission queue: how many I/Os can be prepared
// before Submit. It is entries given to New rounded up to a power of two.
func (r *Ring) Entries() int { return int(r.sqEntries) }

// CQEntries is the size of the completion queue. More I/Os than this may be
// in flight: completions that do not fit are kept by the kernel (and
// delivered by Reap) on every kernel since 5.5.
func (r *Ring) CQEntries() int { return int(r.cqEntries) }

// Pending is the number of prepared I/Os not yet taken by the kernel.
func (r *Ring) Pending() int {
	if r.fd < 0 {
		return 0
	}
	return int(r.tail - atomic.LoadUint32(r.sqHead))
}

// InFlight is the number of I/Os submitted to the kernel whose completion has
// not been reaped yet (including those waiting in the completion queue).
func (r *Ring) InFlight() int {
	if r.fd < 0 {
		return 0
	}
	return int(r.inFlight())
}

func (r *Ring) inFlight() uint32 {
	return atomic.LoadUint32(r.sqHead) - r.reaped - atomic.LoadUint32(r.cqDropped)
}

// Ready is the number of completions waiting in the completion queue, to be
// delivered by Reap. It reads the ring's shared memory, without a system
// call.
func (r *Ring) Ready() int {
	if r.fd < 0 {
		return 0
	}
	return int(r.ready())
}

// ready is the number of completions in the CQ ring.
func (r *Ring) ready() uint32 {
	return atomic.LoadUint32(r.cqTail) - r.reaped
}

// PrepRead queues a read of len(buf) bytes at offset off of fd (off -1: at
// and advancing the file position). It returns false, queueing nothing, when
// the submission queue is full (call Submit or SubmitAndWait first) or the
// ring is closed.
//
// The kernel writes into buf after PrepRead returns, possibly long after:
// buf must stay valid, and not be used for anything else, until the
// completion carrying user has been reaped. See the package documentation.
func (r *Ring) PrepRead(fd int, buf []byte, off int64, user uint64) bool {
	return r.prep(opRead, fd, buf, off, user)
}

// PrepWrite queues a write of buf at offset off of fd (off -1: at the file
// position). Like PrepRead it returns false when the queue is full, and buf
// must stay valid and unchanged until the completion has been reaped.
func (r *Ring) PrepWrite(fd int, buf []byte, off int64, user uint64) bool {
	return r.prep(opWrite, fd, buf, off, user)
}

func (r *Ring) prep(op uint8, fd int, buf []byte, off int64, user uint64) bool {
	s := r.nextSQE()
	if s == nil {
		return false
	}
	if bufEscapeNever {
		bufEscapeSink = buf
	}
	*s = sqe{
		opcode:   op,
		fd:       int32(fd),
		off:      uint64(off),
		addr:     uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))),
		len:      uint32(min(len(buf), maxIO)),
		userData: user,
	}
	r.publish()
	return true
}

// nextSQE is the submission queue's next free entry, or nil when the queue
// is full or the ring closed; publish hands it to the kernel.
func (r *Ring) nextSQE() *sqe {
	if r.fd < 0 || r.tail-atomic.LoadUint32(r.sqHead) >= r.sqEntries {
		return nil
	}
	return &r.sqes[r.tail&r.sqMask]
}

// publish makes the entry nextSQE returned visible to the kernel.
func (r *Ring) publish() {
	r.tail++
	// Release: the kernel reads the SQE only after it sees the new tail.
	atomic.StoreUint32(r.sqTail, r.tail)
}

// Submit hands every prepared I/O to the kernel without waiting for any to
// complete, and returns how many it took.
//
// When the kernel pushes back (EBUSY: completions it is holding must be
// reaped first; EAGAIN: it is short of memory for new requests) while I/O is
// in flight or completions are waiting, Submit returns what was taken so far
// and a nil error; the rest stays prepared (see Pending) for the next Submit
// after a Reap. Only when nothing could ever free the kernel does it return
// the errno.
func (r *Ring) Submit() (int, error) {
	if r.fd < 0 {
		return 0, ErrClosed
	}
	total := 0
	for {
		toSubmit := r.tail - atomic.LoadUint32(r.sqHead)
		if toSubmit == 0 {
			return total, nil
		}
		n, errno := r.enter(toSubmit, 0, 0)
		total += int(n)
		switch errno {
		case 0:
			if n == 0 {
				// Nothing taken and no error: do not spin.
				return total, nil
			}
		case unix.EINTR:
		case unix.EBUSY, unix.EAGAIN:
			if r.inFlight() > 0 {
				return total, nil
			}
			return total, fmt.Errorf("iouring: io_uring_enter: %w", errno)
		default:
			return total, fmt.Errorf("iouring: io_uring_enter: %w", errno)
		}
	}
}

// SubmitAndWait hands every prepared I/O to the kernel and waits until at
// least minComplete completions can be reaped. minComplete is capped at the
// number of I/Os in flight and at CQEntries, so it never waits for a
// completion that cannot come. Interrupted waits (EINTR, which Go's
// preemption signals cause) are resumed.
//
// When the kernel pushes back on submission (EBUSY or EAGAIN, see Submit),
// SubmitAndWait returns nil as soon as any completion is ready, even fewer
// than minComplete, leaving the rest prepared: Reap, then call it again.
func (r *Ring) SubmitAndWait(minComplete uint32) error {
	if r.fd < 0 {
		return ErrClosed
	}
	for {
		toSubmit := r.tail - atomic.LoadUint32(r.sqHead)
		want := min(minComplete, r.inFlight()+toSubmit, r.cqEntries)
		ready := r.ready()
		if toSubmit == 0 && ready >= want {
			return nil
		}
		n, errno := r.enter(toSubmit, want, enterGetEvents)
		switch errno {
		case 0, unix.EINTR:
			// Re-check: the kernel returns the submitted count even when
			// the wait that followed was interrupted.
		case unix.EBUSY, unix.EAGAIN:
			if n > 0 {
				continue
			}
			if r.ready() > 0 {
				return nil
			}
			if r.inFlight() == 0 {
				return fmt.Errorf("iouring: io_uring_enter with nothing in flight: %w", errno)
			}
			// Wait for one completion without submitting, then retry.
			if _, errno := r.enter(0, 1, enterGetEvents); errno != 0 && errno != unix.EINTR {
				return fmt.Errorf("iouring: io_uring_enter: %w", errno)
			}
		default:
			return fmt.Errorf("iouring: io_uring_enter: %w", errno)
		}
	}
}

func (r *Ring) enter(toSubmit, minComplete, flags uint32) (uint32, unix.Errno) {
	n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd),
		uintptr(toSubmit), uintptr(minComplete), uintptr(flags), 0, 0)
	if errno != 0 {
		return 0, errno // n is -1 then, not a count
	}
	return uint32(n), 0
}

// Reap calls fn for every completion available now, in completion order, and
// returns how many there were. user is the value given to PrepRead/PrepWrite;
// res is the number of bytes transferred (which may be fewer than asked: a
// short read at end of file, for one; the caller decides what to do) or a
// negated errno such as -EBADF or -EINVAL.
//
// Each completion's slot is released before fn is called, so fn may prepare
// and submit new I/O, or panic, without losing or repeating completions.
// Reap never blocks; it enters the kernel only to collect completions that
// overflowed the completion queue.
func (r *Ring) Reap(fn func(user uint64, res int32)) int {
	if r.fd < 0 {
		return 0
	}
	n := 0
	for {
		tail := atomic.LoadUint32(r.cqTail) // acquire: the CQEs up to tail are written
		// int32: a Reap called from fn may have reaped past tail.
		for int32(tail-r.reaped) > 0 {
			c := &r.cqes[r.reaped&r.cqMask]
			user, res := c.userData, c.res
			r.reaped++
			atomic.StoreUint32(r.cqHead, r.reaped) // release the slot to the kernel
			n++
			fn(user, res)
			if r.fd < 0 { // fn closed the ring
				return n
			}
		}
		if atomic.LoadUint32(r.sqFlags)&sqCQOverflow == 0 {
			return n
		}
		// The kernel holds completions that did not fit: have it move them
		// into the (now drained) ring, then go on reaping.
		if _, errno := r.enter(0, 0, enterGetEvents); errno != 0 && errno != unix.EINTR {
			return n
		}
		if atomic.LoadUint32(r.cqTail) == r.reaped {
			return n
		}
	}
}

// Close waits for the I/O still in flight to complete (discarding those
// completions: Reap first to see them), then unmaps the rings and closes the
// ring. Waiting is what makes it safe to release the buffers afterwards; if
// I/O is still in flight after 10 s, Close gives up waiting, closes anyway
// and returns an error saying so, and the buffers of that I/O must then not
// be released. Registered files and buffers are released before Close
// returns (a registered file is closed then). Prepared but unsubmitted I/O
// is dropped. Close is idempotent.
func (r *Ring) Close() error {
	if r.fd < 0 {
		return nil
	}
	var err error
	if r.inFlight() > 0 {
		err = r.drain(closeDrainTimeout)
	}
	if err == nil {
		err = r.unregister()
	}
	if cerr := r.unmapAndClose(); err == nil {
		err = cerr
	}
	return err
}

func (r *Ring) drain(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	discard := func(uint64, int32) {}
	for {
		r.Reap(discard)
		left := r.inFlight()
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("iouring: Close: %d I/Os still in flight after %v; their buffers must not be reused", left, timeout)
		}
		var errno unix.Errno
		if r.features&featExtArg != 0 {
			r.waitTS = unix.NsecToTimespec(int64(100 * time.Millisecond))
			r.waitArg = getEventsArg{ts: uint64(uintptr(unsafe.Pointer(&r.waitTS)))}
			_, _, errno = unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 0, 1,
				enterGetEvents|enterExtArg, uintptr(unsafe.Pointer(&r.waitArg)), unsafe.Sizeof(r.waitArg))
		} else {
			_, errno = r.enter(0, 1, enterGetEvents)
		}
		switch errno {
		case 0, unix.EINTR, unix.ETIME:
		default:
			return fmt.Errorf("iouring: Close: waiting for %d I/Os in flight: %w", left, errno)
		}
	}
}

func (r *Ring) unmapAndClose() error {
	var err error
	if r.sqeMem != nil {
		err = errors.Join(err, unix.Munmap(r.sqeMem))
	}
	if r.cqMem != nil && unsafe.SliceData(r.cqMem) != unsafe.SliceData(r.sqMem) {
		err = errors.Join(err, unix.Munmap(r.cqMem))
	}
	if r.sqMem != nil {
		err = errors.Join(err, unix.Munmap(r.sqMem))
	}
	r.sqeMem, r.cqMem, r.sqMem = nil, nil, nil
	r.sqes, r.cqes = nil, nil
	r.sqHead, r.sqTail, r.sqFlags, r.cqHead, r.cqTail, r.cqDropped = nil, nil, nil, nil, nil, nil
	r.fixedBufs, r.fixedFiles = nil, 0
	if r.fd >= 0 {
		err = errors.Join(err, unix.Close(r.fd))
		r.fd = -1
	}
	if err != nil {
		return fmt.Errorf("iouring: Close: %w", err)
	}
	return nil
}
