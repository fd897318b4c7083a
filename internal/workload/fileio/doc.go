// Package fileio is the storage workload: fio-style I/O patterns ("t1 o32
// b16k": threads, outstanding I/Os per thread, block size) at a read mix,
// random or sequential, with direct I/O, against a file rightsize lays out
// or a block device. Each thread is a virtual user that keeps its queue depth
// in flight from one goroutine (io_uring where the kernel allows it, with
// the thread's buffers and file registered where the locked-memory limit
// allows that, else one blocking pread/pwrite per outstanding request), and
// every I/O is timed
// by the runner's histograms as a read or a write. The result adds the
// seed studies' per-volume table: IOPS, MB/s and latency per direction, and,
// given the VMs sharing the volume and its capacity, per-VM and per-GB
// figures.
package fileio
