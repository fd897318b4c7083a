package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rightsize/rightsize/internal/result"
)

// ReadFile reads the result, sweep or plan file at path: no more than
// result.MaxFileSize bytes, and no device, directory or socket (refused
// with an error that wraps result.ErrNotRead and names path, as
// result.CheckFile says).
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := result.CheckFile(path, fi); err != nil {
		return nil, err
	}
	b, err := result.ReadCapped(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// ReadResult reads a result file, as ReadFile reads.
func ReadResult(path string) (*result.Run, error) {
	b, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := result.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// WriteResult writes the JSON atomically: a temporary file beside it,
// synced and renamed into place, so an interrupted write never leaves half a
// result and a full or failing disk is reported here, not after the rename.
// A device or a pipe (/dev/null) is written to as it is, never replaced.
// Errors name the result's path (the temporary file's name means nothing to
// the user), and the temporary file is removed on failure.
func WriteResult(path string, r *result.Run) error {
	if _, err := writeAtomic(path, r, true); err != nil {
		return fmt.Errorf("result %s: %w", path, err)
	}
	return nil
}

// WriteFile writes what write writes at path as WriteResult writes a
// result: a temporary file beside it, fsynced and renamed into place, so
// that a failing write (a full disk) leaves path as it was and no
// temporary file; a device or a pipe is written to in place. Errors name
// path.
func WriteFile(path string, write func(io.Writer) error) error {
	if _, err := writeFileAtomic(path, true, write); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CheckWritable reports, before anything is run, why WriteFile could not
// write path: a folder, a socket, a folder that does not exist or that
// the user may not write in (tried with a temporary file, removed at
// once). A command whose output comes at the end of a long wait (capture's
// window) checks it first, so that no window is lost to a typo.
func CheckWritable(path string) error {
	dst, inPlace, err := destination(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if inPlace {
		return nil // a device or a pipe, written through
	}
	dir := filepath.Dir(dst)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s: the folder %s does not exist", path, dir)
	}
	f, err := os.CreateTemp(dir, ".rightsize-check-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write in %s: %w", path, dir, errors.Unwrap(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeAtomic writes r as JSON to a temporary file in path's directory,
// and renames it to path, returning the bytes written; on failure the
// temporary file is removed and path is as it was. A final result is
// indented and fsynced; a checkpoint (final false) is compact, which halves
// the memory its encoding takes, and not fsynced.
func writeAtomic(path string, r *result.Run, final bool) (int64, error) {
	encode := result.EncodeCompact
	if final {
		encode = result.Encode
	}
	return writeFileAtomic(path, final, func(w io.Writer) error { return encode(w, r) })
}

// writeFileAtomic writes what write writes to a temporary file in path's
// directory, fsynced when sync, and renames it to path, returning the bytes
// written; on failure the temporary file is removed and path is as it was.
// A path that exists and is not a regular file (a device such as
// /dev/null, a pipe, or a symlink to one) is written to in place, never
// replaced.
func writeFileAtomic(path string, sync bool, write func(io.Writer) error) (n int64, err error) {
	path, inPlace, err := destination(path)
	if err != nil {
		return 0, err
	}
	if inPlace {
		return writeInPlace(path, write)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.CreateTemp(dir, "."+strings.TrimSuffix(filepath.Base(path), ".json")+"-*.tmp")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			var pe *fs.PathError
			var le *os.LinkError
			switch {
			case errors.As(err, &pe) && pe.Path == tmp.Name():
				err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
			case errors.As(err, &le) && le.Old == tmp.Name():
				err = fmt.Errorf("%s: %w", le.Op, le.Err)
			}
		}
	}()
	cw := &countingWriter{w: tmp}
	if err := write(cw); err != nil {
		return cw.n, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return cw.n, err
	}
	if sync {
		if err := tmp.Sync(); err != nil {
			return cw.n, err
		}
	}
	if err := tmp.Close(); err != nil {
		return cw.n, err
	}
	return cw.n, os.Rename(tmp.Name(), path)
}

// destination decides how an output at path is written: the path whose
// directory gets the temporary file and the rename (a symlink to a regular
// file is followed, so that the link stays a link), or inPlace for a
// device, a named pipe or a symlink to one (/dev/stdout, /dev/null), which
// is written through and never renamed over. A directory or a socket is
// refused.
func destination(path string) (string, bool, error) {
	lst, err := os.Lstat(path)
	if err != nil {
		return path, false, nil // nothing there yet: a new regular file
	}
	if lst.Mode().IsRegular() {
		return path, false, nil
	}
	st, err := os.Stat(path) // what a symlink points at
	if err != nil {
		return "", false, fmt.Errorf("a symlink whose target cannot be read (%w): not replaced", err)
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return "", false, errors.New("is a directory")
	case m&fs.ModeSocket != 0:
		return "", false, errors.New("is a socket, not a file")
	case m.IsRegular():
		if throughProc(path) {
			// /dev/stdout -> /proc/self/fd/1 -> the file a shell
			// opened: replacing it would take it from under the
			// process that writes to it; write through it.
			return path, true, nil
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return path, true, nil
		}
		return real, false, nil
	}
	return path, true, nil // a device or a named pipe
}

// openFD returns the descriptor a path names that is one of the process's
// own open files: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N.
func openFD(path string) (int, bool) {
	switch path = filepath.Clean(path); path {
	case "/dev/stdout":
		return 1, true
	case "/dev/stderr":
		return 2, true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			fd, err := strconv.Atoi(n)
			return fd, err == nil && fd >= 0
		}
	}
	return 0, false
}

// throughProc reports whether the chain of symlinks from path passes
// through /proc or /dev (a process's open file, /dev/stdout), where a
// link names an open file rather than a place to write a new one.
func throughProc(path string) bool {
	for range 40 { // the kernel's own limit on a chain
		target, err := os.Readlink(path)
		if err != nil {
			return false // the end of the chain
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		if strings.HasPrefix(target, "/proc/") || strings.HasPrefix(target, "/dev/") || strings.HasPrefix(path, "/dev/") {
			return true
		}
		path = target
	}
	return true
}

// writeInPlace writes what write writes to the existing file at path (a
// device or a pipe, or a regular file only reached through /proc, such as
// /dev/stdout redirected to a file: appended to), returning the bytes
// written. A named pipe with no
// reader within pipeReaderWait is refused rather than waited on for ever.
func writeInPlace(path string, write func(io.Writer) error) (int64, error) {
	if fd, ok := openFD(path); ok {
		// The process's own open file (/dev/stdout): written through a
		// copy of its descriptor, which shares its offset, so that what
		// the process writes to it after comes after, not over, this.
		dup, err := syscall.Dup(fd)
		if err != nil {
			return 0, err
		}
		f := os.NewFile(uintptr(dup), path)
		cw := &countingWriter{w: f}
		err = write(cw)
		return cw.n, errors.Join(err, f.Close())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	for wait := time.Now().Add(pipeReaderWait); errors.Is(err, syscall.ENXIO) && time.Now().Before(wait); {
		time.Sleep(20 * time.Millisecond)
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	}
	if errors.Is(err, syscall.ENXIO) {
		return 0, fmt.Errorf("a named pipe with no reader (waited %v for one)", pipeReaderWait)
	}
	if err != nil {
		return 0, err
	}
	// Written in blocking mode: a pipe's reader may be slower than us.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return 0, err
	}
	cw := &countingWriter{w: f}
	err = write(cw)
	return cw.n, errors.Join(err, f.Close())
}

// pipeReaderWait is how long an output to a named pipe waits for a reader
// to open it before it is refused (opening it blocking would wait forever).
const pipeReaderWait = 5 * time.Second

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
