package fileio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/rightsize/rightsize/internal/workload"
)

// target is a file or block device path, bound to the workload that
// parsed it (w): it opens with w's options.
type target struct {
	w    *Workload
	path string
}

func (t *target) String() string { return t.path }

// Hooks: a file is known by its absolute path.
func (t *target) Hooks() workload.TargetHooks { return workload.TargetHooks{Identity: t.Identity} }

// Identity is the file's absolute path (its path when the working directory
// is unknown), cleaned: one file by any of its names.
func (t *target) Identity() string {
	if a, err := filepath.Abs(t.path); err == nil {
		return "file " + a
	}
	return "file " + filepath.Clean(t.path)
}

// isBlockDevice tells a block device from the other device files:
// os.ModeDevice is set for character devices too (/dev/null, a tty).
func isBlockDevice(m os.FileMode) bool { return m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0 }

// notAFileOrDevice is the error for a target that fileio cannot use,
// saying what it is.
func notAFileOrDevice(path string, m os.FileMode) error {
	return fmt.Errorf("%s is %s, not a regular file or a block device: give a file (prepare lays it out) or a block device", path, workload.KindOf(m))
}

// ErrDeviceWrite marks a refused write to a block device.
var ErrDeviceWrite = errors.New("refusing to write to the device")

// signature is a filesystem or partition-table magic at an offset.
type signature struct {
	name  string
	off   int64
	magic []byte
}

// signatures are magics that mark a device holding data, at the offsets
// their on-disk formats put them (as blkid finds them).
var signatures = []signature{
	{"ext2/3/4 filesystem", 1080, []byte{0x53, 0xEF}},
	{"XFS filesystem", 0, []byte("XFSB")},
	{"btrfs filesystem", 65600, []byte("_BHRfS_M")},
	{"LUKS encrypted volume", 0, []byte("LUKS\xba\xbe")},
	{"swap area", 4086, []byte("SWAPSPACE2")},
	{"LVM physical volume", 536, []byte("LVM2 001")},
	{"GPT partition table", 512, []byte("EFI PART")},
	{"NTFS filesystem", 3, []byte("NTFS    ")},
	{"FAT filesystem", 82, []byte("FAT32   ")},
	{"GPT partition table (4 KiB sectors)", 4096, []byte("EFI PART")},
	{"DOS/MBR partition table", 510, []byte{0x55, 0xAA}},
}

// signatureOn returns the name of the first known signature on r, or "".
func signatureOn(r io.ReaderAt) (string, error) {
	for _, s := range signatures {
		buf := make([]byte, len(s.magic))
		n, err := r.ReadAt(buf, s.off)
		if n < len(buf) {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				continue // too small to hold it
			}
			if err != nil {
				return "", err
			}
		}
		if bytes.Equal(buf, s.magic) {
			return s.name, nil
		}
	}
	return "", nil
}

// mountedAt returns where the device with number rdev is mounted, from
// /proc/self/mountinfo's text (field 3 is major:minor, field 5 the mount
// point), or "".
func mountedAt(mountinfo io.Reader, rdev uint64) string {
	want := strconv.FormatUint(uint64(unix.Major(rdev)), 10) + ":" + strconv.FormatUint(uint64(unix.Minor(rdev)), 10)
	sc := bufio.NewScanner(mountinfo)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && f[2] == want {
			return f[4]
		}
	}
	return ""
}

// deviceWriteCheck returns an error wrapping ErrDeviceWrite that says why
// writing to the block device at path is refused: it is mounted, or it holds
// a filesystem or other signature. nil when neither.
func deviceWriteCheck(path string, rdev uint64) error {
	if mi, err := os.Open("/proc/self/mountinfo"); err == nil {
		at := mountedAt(mi, rdev)
		mi.Close()
		if at != "" {
			return fmt.Errorf("%w %s: it is mounted on %s (writes would corrupt that filesystem); unmount it, or pass --force-device-write", ErrDeviceWrite, path, at)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	sig, err := signatureOn(f)
	if err != nil {
		return fmt.Errorf("%s: reading its first blocks: %w", path, err)
	}
	if sig != "" {
		return fmt.Errorf("%w %s: it holds a %s (writes would destroy it); use another device, wipe it yourself, or pass --force-device-write", ErrDeviceWrite, path, sig)
	}
	return nil
}

// sidecar is the record of a file rightsize laid out: <file>.rightsize.json.
func sidecar(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".rightsize.json")
}

// deviceInUse refuses a block device that has partitions or that another
// user holds: opening it with O_EXCL fails with EBUSY when it is mounted or
// claimed by device-mapper, RAID or another exclusive opener.
func deviceInUse(path string, rdev uint64) error {
	sysDir := fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(rdev), unix.Minor(rdev))
	if entries, err := os.ReadDir(sysDir); err == nil {
		for _, e := range entries {
			if _, err := os.Stat(filepath.Join(sysDir, e.Name(), "partition")); err == nil {
				return fmt.Errorf("%w %s: it has partitions (%s, ...); write to a partition, or pass --force-device-write", ErrDeviceWrite, path, e.Name())
			}
		}
	}
	if holders, err := os.ReadDir(filepath.Join(sysDir, "holders")); err == nil && len(holders) > 0 {
		return fmt.Errorf("%w %s: it is held by %s (device-mapper, RAID or similar); pass --force-device-write to write anyway", ErrDeviceWrite, path, holders[0].Name())
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_EXCL|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EBUSY) {
		return fmt.Errorf("%w %s: it is in use (mounted, or claimed by another user of the device); pass --force-device-write to write anyway", ErrDeviceWrite, path)
	}
	if err == nil {
		unix.Close(fd)
	}
	return nil
}
