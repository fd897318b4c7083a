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

// An output path is only ever replaced when it is a regular file: a
// symlink to a regular file stays a symlink (its target is replaced), a
// device is written through, a named pipe that no one reads is refused
// rather than waited on for ever, and a directory is refused.
func TestWriteFileKeepsWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	if err := WriteFile(link, write); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the symlink's target holds %q, want new", b)
	}
	devLink := filepath.Join(dir, "null")
	if err := os.Symlink("/dev/null", devLink); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/null", devLink} {
		if err := WriteFile(p, write); err != nil {
			t.Errorf("WriteFile(%s): %v", p, err)
		}
	}
	if st, err := os.Lstat(devLink); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink to /dev/null was replaced: %v", err)
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v", err)
	}
	if err := WriteFile("/dev/full", write); err == nil {
		t.Error("WriteFile(/dev/full): no error")
	}
	if st, err := os.Stat("/dev/full"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/full is no longer a device: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := WriteFile(fifo, write); err == nil || time.Since(start) > 3*pipeReaderWait {
		t.Errorf("WriteFile to a pipe no one reads: %v after %v", err, time.Since(start))
	}
	if err := WriteFile(dir, write); err == nil {
		t.Error("WriteFile to a directory: no error")
	}
}
