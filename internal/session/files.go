package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
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

// writeInPlace writes what write writes to the existing file at path (a
// device or a pipe), returning the bytes written.
func writeInPlace(path string, write func(io.Writer) error) (int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	cw := &countingWriter{w: f}
	err = write(cw)
	return cw.n, errors.Join(err, f.Close())
}

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
