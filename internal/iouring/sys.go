package iouring

import "unsafe"

// Kernel ABI of io_uring (include/uapi/linux/io_uring.h). Only what this
// package uses is declared; the layouts are fixed by the kernel's UAPI and are
// checked by TestABISizes.

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

// params is struct io_uring_params.
type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// sqe is struct io_uring_sqe (64 bytes, without IORING_SETUP_SQE128).
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad2        uint64
}

// cqe is struct io_uring_cqe (16 bytes, without IORING_SETUP_CQE32).
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// getEventsArg is struct io_uring_getevents_arg, passed with IORING_ENTER_EXT_ARG.
type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	minWait   uint32 // min_wait_usec (6.12+), zero otherwise
	ts        uint64 // *struct __kernel_timespec
}

// probeHeader is struct io_uring_probe without its flexible ops array.
type probeHeader struct {
	lastOp uint8
	opsLen uint8
	resv   uint16
	resv2  [3]uint32
}

// probeOp is struct io_uring_probe_op.
type probeOp struct {
	op    uint8
	resv  uint8
	flags uint16
	resv2 uint32
}

const (
	sizeofSQE    = unsafe.Sizeof(sqe{})
	sizeofCQE    = unsafe.Sizeof(cqe{})
	sizeofParams = unsafe.Sizeof(params{})

	// enum io_uring_op
	opNop        = 0
	opReadFixed  = 4
	opWriteFixed = 5
	opRead       = 22
	opWrite      = 23

	// io_uring_sqe.flags
	sqeFixedFile = 1 << 0 // fd is an index into the registered files

	// io_uring_setup flags
	setupClamp     = 1 << 4 // clamp entries to the kernel's maximum instead of EINVAL
	setupSubmitAll = 1 << 7 // keep submitting the batch when one SQE fails to initialise (5.18)

	// io_uring_params.features
	featSingleMmap = 1 << 0 // 5.4: SQ and CQ rings share one mmap
	featNoDrop     = 1 << 1 // 5.5: overflowing CQEs are kept by the kernel, not dropped
	featExtArg     = 1 << 8 // 5.11: IORING_ENTER_EXT_ARG (wait with timeout)

	// io_uring_enter flags
	enterGetEvents = 1 << 0
	enterExtArg    = 1 << 3

	// sq ring flags (shared memory, written by the kernel)
	sqCQOverflow = 1 << 1

	// mmap offsets
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	// io_uring_register opcodes
	registerBuffers   = 0
	unregisterBuffers = 1
	registerFiles     = 2
	unregisterFiles   = 3
	registerProbe     = 8

	// Kernel limits of IORING_REGISTER_BUFFERS: IORING_MAX_REG_BUFFERS
	// buffers of at most 1 GiB each.
	maxFixedBuffers = 1 << 14
	maxFixedBuffer  = 1 << 30

	// io_uring_probe_op.flags
	opSupported = 1 << 0
)
