package workload

import (
	"errors"
	"fmt"
	"io"
	"os"
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

// LocalFiler is a workload whose options name files it reads.
type LocalFiler interface {
	// LocalFiles returns the files the options name, in their order (a
	// file named twice is listed twice), read as ReadLocalFile reads.
	LocalFiles() ([]LocalFile, error)
}

// MaxLocalFile is the most ReadLocalFile reads: 1 MiB, what a Kubernetes
// ConfigMap holds.
const MaxLocalFile = 1 << 20

// ErrLocalFile wraps ReadLocalFile's refusals.
var ErrLocalFile = errors.New("cannot be given to a run elsewhere")

// ReadLocalFile reads the regular file at path, at most MaxLocalFile
// bytes: a device, a named pipe or a larger file is refused (wrapping
// ErrLocalFile) without being read.
func ReadLocalFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w: not a regular file", path, ErrLocalFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxLocalFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > MaxLocalFile {
		return nil, fmt.Errorf("%s: %w: more than 1 MiB", path, ErrLocalFile)
	}
	return data, nil
}
