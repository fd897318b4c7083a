package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// makeIgnoredDir creates dir (and its parents) for files rightsize writes on
// its own, such as quickstart's; when it creates dir itself it also writes
// dir/.gitignore holding "*", so that a run inside any git work tree leaves
// no untracked files (as Go's and pytest's cache folders do). A directory
// that already exists is left as it is: it may be the user's own.
func makeIgnoredDir(dir string) error {
	_, err := os.Stat(dir)
	switch {
	case err == nil:
		return os.MkdirAll(dir, 0o755) // not a directory: MkdirAll says so
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("# written by rightsize: everything here is its output\n*\n"), 0o644)
}
