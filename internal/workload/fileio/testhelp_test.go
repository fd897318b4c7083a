package fileio

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

func makedev(major, minor uint32) uint64 { return unix.Mkdev(major, minor) }

func blocksOf(st os.FileInfo) int64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return s.Blocks
	}
	return 0
}
