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
