package fileio

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

// layoutChunk is the size of prepare's sequential writes.
const layoutChunk = 1 << 20

// record is what the sidecar file says about a file rightsize laid out.
type record struct {
	Size     int64  `json:"size"`
	Complete bool   `json:"complete"`
	Created  string `json:"created"`
}

func readRecord(path string) (record, bool) {
	b, err := os.ReadFile(sidecar(path))
	if err != nil {
		return record{}, false
	}
	var r record
	if json.Unmarshal(b, &r) != nil {
		return record{}, true // ours, in an unknown state
	}
	return r, true
}

func writeRecord(path string, r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(sidecar(path), b, 0o644)
}

// Prepare lays the file out: --size bytes written sequentially with random
// data, so that no read hits a hole the filesystem answers without the
// device. It keeps a complete layout of the same size, refuses a file it did
// not create (objects.ErrNotOwned) or one it would shrink unless
// opt.Force, says why it lays out an existing file again, and records the
// file beside it before writing.
func (in *instance) Prepare(ctx context.Context, opt workload.PrepareOptions, p workload.Progress) error {
	p = workload.SyncProgress(p)
	size := in.o.size
	st, err := os.Stat(in.path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("%s: %w", in.path, err)
	case isBlockDevice(st.Mode()):
		p.Message("a block device needs no layout; nothing done")
		return nil
	case !st.Mode().IsRegular():
		return notAFileOrDevice(in.path, st.Mode())
	default:
		rec, owned := readRecord(in.path)
		why := ""
		switch {
		case !owned && !opt.Force:
			return fmt.Errorf("%s: the file exists and was %w (no %s); nothing was changed; use --force to overwrite it",
				in.path, objects.ErrNotOwned, sidecar(in.path))
		case owned && rec.Complete && rec.Size == size && st.Size() == size:
			p.Message(fmt.Sprintf("already laid out with %s, kept", FormatSize(size)))
			return nil
		// An incomplete layout (a prepare that failed, on a full disk say)
		// holds nothing to keep: a smaller one replaces it without --force.
		case st.Size() > size && !opt.Force && !(owned && !rec.Complete):
			return fmt.Errorf("%s is %s; refusing to shrink it to --size %s without --force", in.path, FormatSize(st.Size()), FormatSize(size))
		case !owned:
			why = "the file was not laid out by rightsize (--force)"
		case !rec.Complete:
			why = "its layout is incomplete (an interrupted prepare)"
		default:
			why = fmt.Sprintf("the file holds %s (laid out by prepare), --size asks %s", FormatSize(st.Size()), FormatSize(size))
		}
		p.Message(why + ": laying it out again")
	}
	if err := writeRecord(in.path, record{Size: size, Created: time.Now().UTC().Format(time.RFC3339)}); err != nil {
		return fmt.Errorf("%s: record the layout: %w", in.path, err)
	}
	workload.SetUnit(p, workload.Bytes)
	p.Total(size)
	p.Message("writing " + FormatSize(size))
	if err := layOut(ctx, in.path, size, !in.o.Buffered, true, p); err != nil {
		return err
	}
	return writeRecord(in.path, record{Size: size, Complete: true, Created: time.Now().UTC().Format(time.RFC3339)})
}

// Match compares a given --size with the file (InstanceHooks.Match): a regular
// file of another size is a mismatch, whether prepare laid it out or not,
// since its size is what the I/Os cover (with --force they cover the file
// as it is). Without --size nothing is compared: run takes the file as it
// is. A block device is never compared (--size does not apply to it, a
// note says so); a missing or incomplete file is NewVU's to report.
func (in *instance) Match(ctx context.Context) ([]string, error) {
	if strings.TrimSpace(in.o.Size) == "" {
		return nil, nil
	}
	st, err := os.Stat(in.path)
	switch {
	case err != nil:
		return nil, nil
	case st.Mode()&os.ModeDevice != 0:
		note := "--size does not apply to a block device: the run covers the whole device"
		in.Note(note)
		return []string{note}, nil
	case !st.Mode().IsRegular(), st.Size() == in.o.size:
		return nil, nil
	}
	how := "not laid out by rightsize"
	if _, owned := readRecord(in.path); owned {
		how = "laid out by prepare"
	}
	msg := fmt.Sprintf("%s holds %s (%s), --size asks %s", in.path, FormatSize(st.Size()), how, FormatSize(in.o.size))
	in.Note(fmt.Sprintf("%s (run with --force: the I/Os cover its %s)", msg, FormatSize(st.Size())))
	return nil, workload.Mismatchf("%s", msg)
}

// layOut writes size bytes of random data to path from offset 0 and syncs;
// truncate first sets a regular file's length to size (never for a
// preconditioning pass, which must not shorten the target).
func layOut(ctx context.Context, path string, size int64, direct, truncate bool, p workload.Progress) error {
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC
	if direct {
		flags |= unix.O_DIRECT
	}
	fd, err := unix.Open(path, flags, 0o644)
	if errors.Is(err, unix.EINVAL) && direct {
		fd, err = unix.Open(path, flags&^unix.O_DIRECT, 0o644) // a filesystem without O_DIRECT (tmpfs)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if truncate {
		if err := f.Truncate(size); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	buf, err := unix.Mmap(-1, 0, layoutChunk, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	src := datagen.NewSource(uint64(time.Now().UnixNano()))
	for off := int64(0); off < size; {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := 0; i+8 <= len(buf); i += 8 {
			binary.LittleEndian.PutUint64(buf[i:], src.Uint64())
		}
		n := min(int64(len(buf)), size-off)
		w, err := unix.Pwrite(fd, buf[:n], off)
		if err != nil {
			return ioError(path, "write", off, err)
		}
		off += int64(w)
		p.Add(int64(w))
	}
	if err := unix.Fsync(fd); err != nil {
		return ioError(path, "sync", size, err)
	}
	return nil
}

// ioError words an I/O error for the user: a full disk and a permission
// problem say so plainly.
func ioError(path, what string, off int64, err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s: the disk is full (%s at offset %s): %w", path, what, FormatSize(off), err)
	case errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%s: disk quota exceeded (%s at offset %s): %w", path, what, FormatSize(off), err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return fmt.Errorf("%s: not allowed to %s: %w", path, what, err)
	}
	return fmt.Errorf("%s: %s at offset %d: %w", path, what, off, err)
}

// Cleanup deletes the file and its record when rightsize laid it out (or
// with opt.Force); never a block device.
func (in *instance) Cleanup(ctx context.Context, opt workload.PrepareOptions) ([]string, error) {
	st, err := os.Stat(in.path)
	if errors.Is(err, os.ErrNotExist) {
		_ = os.Remove(sidecar(in.path))
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file; rightsize deletes only files it laid out", in.path, workload.KindOf(st.Mode()))
	}
	if _, owned := readRecord(in.path); !owned && !opt.Force {
		return nil, fmt.Errorf("%s: left in place: it was %w (no %s); use --force to delete it", in.path, objects.ErrNotOwned, sidecar(in.path))
	}
	if err := os.Remove(in.path); err != nil {
		return nil, fmt.Errorf("%s: %w", in.path, err)
	}
	removed := []string{in.path}
	if err := os.Remove(sidecar(in.path)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return removed, err
	}
	return removed, nil
}
