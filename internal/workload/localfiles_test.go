package workload

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ReadLocalFile reads a regular file whole, and refuses at once, without
// reading, a device, a named pipe (opening one would block) and a file
// over 1 MiB.
func TestReadLocalFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "x.sql")
	if err := os.WriteFile(small, []byte("SELECT 1;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadLocalFile(small); err != nil || string(data) != "SELECT 1;\n" {
		t.Errorf("ReadLocalFile(%s) = %q, %v", small, data, err)
	}
	big := filepath.Join(dir, "big.sql")
	if err := os.WriteFile(big, make([]byte, MaxLocalFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{big, fifo, "/dev/zero", dir} {
		done := make(chan error, 1)
		go func() { _, err := ReadLocalFile(p); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrLocalFile) {
				t.Errorf("ReadLocalFile(%s) = %v, want ErrLocalFile", p, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadLocalFile(%s) still reading after 5 s", p)
		}
	}
	if _, err := ReadLocalFile(filepath.Join(dir, "none.sql")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// ReadUserFile refuses, unopened, what is not a regular file and, unread,
// a file over its bound, as usage errors (ErrNotAFile).
func TestReadUserFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(f, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadUserFile(f, 100); err != nil || string(data) != "name: x\n" {
		t.Errorf("ReadUserFile(%s) = %q, %v", f, data, err)
	}
	if _, err := ReadUserFile(f, 4); !errors.Is(err, ErrNotAFile) {
		t.Errorf("over the bound: %v, want ErrNotAFile", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		if _, err := ReadUserFile(p, 1<<20); !errors.Is(err, ErrNotAFile) {
			t.Errorf("ReadUserFile(%s) = %v, want ErrNotAFile", p, err)
		}
	}
}
