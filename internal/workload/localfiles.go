package workload

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/rightsize/rightsize/internal/exitcode"
)

// LocalFile is a file of this machine that one of a workload's options
// names (pgbench's -f FILE@W), which the workload reads when it runs: a
// run elsewhere (the pods of 'k8s job') needs a copy of it, and the option
// given the copy's path.
type LocalFile struct {
	// Flag is the option's long name ("file"); Arg its value as given
	// ("scripts/acct.sql@3"), which begins with Path ("scripts/acct.sql").
	Flag, Arg, Path string
	// Data is the file's text.
	Data []byte
}

// MaxLocalFile is the most ReadLocalFile reads: 1 MiB, what a Kubernetes
// ConfigMap holds.
const MaxLocalFile = 1 << 20

// ErrLocalFile wraps ReadLocalFile's refusals.
var ErrLocalFile = errors.New("cannot be given to a run elsewhere")

// ErrNotAFile wraps ReadUserFile's refusal of a path that is no regular
// file (a device such as /dev/zero, a named pipe, a directory, a socket)
// or is larger than its bound: a usage error, refused before anything is
// read.
var ErrNotAFile = exitcode.New("not a file rightsize reads", exitcode.Usage)

// ReadUserFile reads the regular file at path that the command line names
// (a workload file, a pgbench script, a study file), at most max bytes. A
// device, a named pipe (whose open would block until a writer came), a
// directory or a socket is refused without being opened, and a file
// larger than max without being read (both wrapping ErrNotAFile); what is
// read is bounded too, for a file that grows meanwhile.
func ReadUserFile(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() {
		return nil, fmt.Errorf("%s: %w: it is %s, not a regular file", path, ErrNotAFile, KindOf(m))
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, over the %d it may weigh", path, ErrNotAFile, fi.Size(), max)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: it grew past the %d bytes it may weigh while it was read", path, ErrNotAFile, max)
	}
	return data, nil
}

// KindOf names what a file mode is, for messages: "a character device",
// "a directory", ...
func KindOf(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// ReadLocalFile reads the regular file at path, at most MaxLocalFile
// bytes: a device, a named pipe or a larger file is refused (wrapping
// ErrLocalFile and ErrNotAFile) without being read.
func ReadLocalFile(path string) ([]byte, error) {
	data, err := ReadUserFile(path, MaxLocalFile)
	if errors.Is(err, ErrNotAFile) {
		return nil, fmt.Errorf("%w (%w)", err, ErrLocalFile)
	}
	return data, err
}
