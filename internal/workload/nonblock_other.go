//go:build !unix

package workload

const nonblock = 0
