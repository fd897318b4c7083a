//go:build unix

package workload

import "syscall"

// nonblock opens a file without waiting: a path swapped for a named pipe
// between Stat and open does not block the open.
const nonblock = syscall.O_NONBLOCK
