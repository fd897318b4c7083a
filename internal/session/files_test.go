package session

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A path that is a pipe or a device (/dev/null) is written to in place,
// never replaced by a regular file renamed over it; a symlink to one too.
func TestWriteFileToAPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, link} {
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo) // blocks until the writer opens it
			if err != nil {
				got <- err.Error()
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- string(b)
		}()
		err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "hello"); return err })
		if err != nil {
			t.Errorf("WriteFile(%s): %v", path, err)
			// unblock the reader
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
		}
		select {
		case s := <-got:
			if s != "hello" {
				t.Errorf("WriteFile(%s): the reader got %q", path, s)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("WriteFile(%s): nothing was written to the pipe (replaced by a file: %v)", path, pipeGone(fifo))
		}
		if pipeGone(fifo) {
			t.Errorf("after WriteFile(%s), %s is no longer a pipe", path, fifo)
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("after WriteFile(%s), %s is no longer a symlink: %v", path, link, err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// pipeGone reports whether path is no longer a named pipe.
func pipeGone(path string) bool {
	st, err := os.Stat(path)
	return err != nil || st.Mode()&os.ModeNamedPipe == 0
}
