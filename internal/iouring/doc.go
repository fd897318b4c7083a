// Package iouring is a small io_uring binding for the storage benchmark's I/O
// engine: positioned reads and writes (IORING_OP_READ, IORING_OP_WRITE) of
// regular files or block devices, buffered or O_DIRECT, at queue depths from
// 1 to thousands, driven by one goroutine. It uses the raw system calls
// through golang.org/x/sys/unix; there is no cgo and no liburing.
//
// # API
//
//	func New(entries uint32) (*Ring, error)
//	func (r *Ring) PrepRead(fd int, buf []byte, off int64, user uint64) bool
//	func (r *Ring) PrepWrite(fd int, buf []byte, off int64, user uint64) bool
//	func (r *Ring) Submit() (int, error)
//	func (r *Ring) SubmitAndWait(minComplete uint32) error
//	func (r *Ring) Reap(fn func(user uint64, res int32)) int
//	func (r *Ring) Close() error
//	func (r *Ring) Entries() int     // SQ size: I/Os that can be prepared before a submit
//	func (r *Ring) CQEntries() int   // CQ size (2 × Entries)
//	func (r *Ring) Pending() int     // prepared, not yet taken by the kernel
//	func (r *Ring) InFlight() int    // taken by the kernel, completion not yet reaped
//	func (r *Ring) Ready() int       // completions waiting to be reaped
//	func Probe() error
//	func AlignedBuffers(n, size int) ([][]byte, func() error, error)
//	var ErrUnsupported, ErrClosed, ErrFixedUnavailable
//
// and, for registered ("fixed") buffers and files, as fio's --fixedbufs and
// --registerfiles:
//
//	func (r *Ring) RegisterBuffers(bufs [][]byte) error
//	func (r *Ring) RegisterFiles(fds ...int) error
//	func (r *Ring) PrepReadFixed(f FixedFile, bufIndex int, off int64, user uint64) bool
//	func (r *Ring) PrepWriteFixed(f FixedFile, bufIndex int, off int64, user uint64) bool
//
// A registered buffer's pages are pinned once, at RegisterBuffers, instead
// of at every I/O, and a registered file is found without a descriptor
// lookup (measured on 4k random reads at depth 32: 3.2 instead of 3.5 µs of
// client CPU per I/O). Registered buffers are locked memory: where
// RLIMIT_MEMLOCK is too small, RegisterBuffers fails with an error wrapping
// ErrFixedUnavailable and the ring is used with PrepRead/PrepWrite as before.
//
// A typical loop keeps depth I/Os in flight:
//
//	r, err := iouring.New(depth)
//	if errors.Is(err, iouring.ErrUnsupported) { /* use pread/pwrite */ }
//	bufs, release, err := iouring.AlignedBuffers(depth, 4096)
//	for i := range depth { r.PrepRead(fd, bufs[i], offset(), uint64(i)) }
//	for running {
//		if err := r.SubmitAndWait(1); err != nil { ... }
//		r.Reap(func(user uint64, res int32) {
//			// res: bytes read, or -errno
//			r.PrepRead(fd, bufs[user], offset(), user) // submitted by the next SubmitAndWait
//		})
//	}
//	r.Close()  // waits for what is still in flight
//	release()
//
// The user value travels with an I/O to its completion; the caller typically
// makes it the index of the buffer or of its own request record.
//
// # Buffers
//
// The kernel is given only the address of a buffer, and reads or writes it
// at any time between the submit and the completion. So buf must stay valid
// (referenced by the caller, not released, not reused for other data, and for
// writes unchanged) until its completion has been reaped, or until Close has
// returned nil. The package makes every buffer passed to PrepRead/PrepWrite
// escape to the heap, so a buffer never lives on a goroutine stack (which
// moves); Go's heap does not move objects, but the garbage collector frees
// one the program no longer references, so a heap buffer must be kept
// referenced, for example in a slice of buffers, until its I/O completes.
// AlignedBuffers sidesteps this: its buffers are mmap'd outside the Go heap,
// 4096-aligned as O_DIRECT needs, and live until their release func is
// called.
//
// # Completions
//
// res is what pread or pwrite would have returned: the number of bytes
// transferred or a negated errno (-EBADF for a bad descriptor, -EINVAL for
// an O_DIRECT transfer whose offset, length or buffer is not aligned as the
// device needs, -EIO, ...). A short count is reported as it is, never
// retried: at end of file a read returns fewer bytes (0 at or past the end),
// and the caller decides whether to resubmit the rest. Completions arrive in
// completion order, not submission order.
//
// More I/Os may be in flight than the completion queue holds. Completions that
// do not fit are kept by the kernel (IORING_FEAT_NODROP, 5.5+), which sets
// IORING_SQ_CQ_OVERFLOW; Reap then has the kernel move them into the ring
// (io_uring_enter with IORING_ENTER_GETEVENTS) and delivers them too. While
// it holds such completions the kernel may refuse new submissions (EBUSY);
// Submit and SubmitAndWait then return nil with the refused I/Os still
// prepared (see Pending), as soon as there is something to reap.
//
// # Concurrency and threads
//
// A Ring is used by one goroutine at a time; several goroutines each with its
// own Ring is the way to scale. The goroutine may move between OS threads:
// the ring is set up without IORING_SETUP_SINGLE_ISSUER and
// IORING_SETUP_DEFER_TASKRUN, which tie a ring to one thread (the Go
// scheduler does not), and without IORING_SETUP_COOP_TASKRUN, which would
// leave completions waiting until the submitting thread next enters the
// kernel (a Go thread may park for a long time). Interrupted waits (EINTR,
// which Go's preemption signals cause) are resumed.
//
// # Memory ordering
//
// The rings are shared with the kernel. The indexes the kernel writes (SQ
// head, CQ tail, SQ flags) are read with atomic loads (acquire), and the ones
// the package writes (SQ tail, after the entry it publishes; CQ head, after
// the entry it frees has been read) with atomic stores (release). Rings
// mapped as one region (IORING_FEAT_SINGLE_MMAP, 5.4+) and as two are both
// handled.
//
// # Availability
//
// New and Probe return an error wrapping ErrUnsupported (and
// errors.ErrUnsupported, and the errno) when io_uring cannot be used: the
// system call does not exist (ENOSYS), it is denied (EPERM from
// kernel.io_uring_disabled, from a seccomp filter such as a container's
// default profile, or from a security module), or the kernel predates the
// read and write opcodes (IORING_REGISTER_PROBE refused or not listing
// them). The error text names the cause. Probe additionally reads /dev/zero
// and writes /dev/null through a ring, so a filter that allows the ring's
// creation but not its use is caught too.
//
// # Hot path
//
// PrepRead, PrepWrite, their Fixed forms, Submit, SubmitAndWait and Reap do not allocate (a
// func literal given to Reap does not escape). Submit and SubmitAndWait make
// one io_uring_enter system call in the common case; Reap makes none unless
// completions overflowed.
package iouring
