package result

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// MaxFileSize is the most a result, sweep or plan file may weigh, in
// bytes: 256 MiB. A day-long run's result with one-second intervals is
// about 17 MB, so every real file fits many times over; a larger one (or a
// device such as /dev/zero, a stream that never ends) would only fill the
// memory before it failed to decode.
const MaxFileSize = 256 << 20

// ErrNotRead wraps the refusal of an input over MaxFileSize, and of a
// device (which may never end) or anything else not a file.
var ErrNotRead = errors.New("not read")

// CheckFile refuses, with an error that wraps ErrNotRead and names path,
// to read the file at path of info fi as a result, sweep or plan: one over
// MaxFileSize, and anything that is neither a regular file nor a pipe (a
// device such as /dev/zero, a directory, a socket). A pipe (a shell's
// <(...)) passes: ReadCapped bounds it.
func CheckFile(path string, fi fs.FileInfo) error {
	switch m := fi.Mode(); {
	case m.IsRegular():
		if fi.Size() > MaxFileSize {
			return fmt.Errorf("%s: %w: %s, over the %s a result, sweep or plan file may weigh", path, ErrNotRead, mib(fi.Size()), mib(MaxFileSize))
		}
	case m&fs.ModeNamedPipe != 0:
	default:
		return fmt.Errorf("%s: %w: it is %s, not a regular file", path, ErrNotRead, kind(m))
	}
	return nil
}

// ReadCapped reads rd to its end, refusing (ErrNotRead) past MaxFileSize.
// It reads in chunks (4 KiB, growing with what was read up to readChunk)
// and joins them at the end, so an endless stream costs about MaxFileSize
// of memory before it is refused (io.ReadAll's doubling buffer would cost
// three times that).
func ReadCapped(rd io.Reader) ([]byte, error) {
	var chunks [][]byte
	total := 0
	for {
		c := make([]byte, min(readChunk, max(4096, total)))
		n, err := io.ReadFull(rd, c)
		chunks, total = append(chunks, c[:n]), total+n
		if total > MaxFileSize {
			return nil, fmt.Errorf("%w: more than the %s a result, sweep or plan file may weigh", ErrNotRead, mib(MaxFileSize))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return bytes.Join(chunks, nil), nil
}

// readChunk is the size of ReadCapped's largest reads.
const readChunk = 1 << 20

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0, m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// mib writes a size in MiB.
func mib(n int64) string { return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20) }
