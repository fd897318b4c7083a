package fileio

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/workload"
)

// loopDevice attaches img to a free loop device (needs root and losetup) and
// detaches it when the test ends; it skips the test where that is not possible.
func loopDevice(t *testing.T, img string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("attaching a loop device needs root")
	}
	out, err := exec.Command("losetup", "--find", "--show", img).CombinedOutput()
	if err != nil {
		t.Skipf("losetup: %v: %s", err, out)
	}
	dev := strings.TrimSpace(string(out))
	t.Cleanup(func() { _ = exec.Command("losetup", "-d", dev).Run() })
	return dev
}

// A real block device holding a filesystem: reads run, writes are refused
// with the reason, and --force-device-write allows them.
func TestBlockDeviceWithAFilesystem(t *testing.T) {
	img := filepath.Join(t.TempDir(), "vol.img")
	if err := os.WriteFile(img, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 32<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", img).CombinedOutput(); err != nil {
		t.Skipf("mkfs.ext4: %v: %s", err, out)
	}
	dev := loopDevice(t, img)

	_, _, res := runOn(t, dev, 200*time.Millisecond, func(o *Options) { o.PatternText = "t1 o4 b4k" })
	if res.Partial || section(t, res).Read.Count == 0 {
		t.Fatalf("read-only run on %s: partial %v (%s)", dev, res.Partial, res.PartialReason)
	}

	in := openIn(t, dev, func(o *Options) { o.Read = "70" })
	_, err := in.NewVU(t.Context(), 0, 1)
	if !errors.Is(err, ErrDeviceWrite) || !strings.Contains(err.Error(), "ext2/3/4 filesystem") {
		t.Fatalf("a writing run on %s: %v, want a refusal naming the filesystem", dev, err)
	}
	_, in2, res := runOn(t, dev, 200*time.Millisecond, func(o *Options) {
		o.Read, o.ForceDevice, o.PatternText, o.Precondition = "70", true, "t1 o4 b4k", true
	})
	if res.Partial || section(t, res).Write.Count == 0 {
		t.Errorf("--force-device-write --precondition: partial %v (%s), %d writes", res.Partial, res.PartialReason, section(t, res).Write.Count)
	}
	if in2.size != 32<<20 {
		t.Errorf("device size after preconditioning: %d", in2.size)
	}
}

// A full disk during the layout: a clear error, nothing left half-claimed
// as complete. A small tmpfs plays the full disk (needs root and mount).
func TestPrepareOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "rs.dat")
	in := openIn(t, path, func(o *Options) { o.Size, o.Buffered = "16m", true })
	err := in.Prepare(t.Context(), workload.PrepareOptions{}, nil)
	if err == nil || !strings.Contains(err.Error(), "the disk is full") {
		t.Fatalf("prepare of 16 MiB on a 4 MiB disk: %v", err)
	}
	if rec, owned := readRecord(path); !owned || rec.Complete {
		t.Errorf("record after the failure: %+v (owned %v), want owned and incomplete", rec, owned)
	}
	// The next run says the layout is incomplete rather than reading holes.
	_, err = in.NewVU(t.Context(), 0, 1)
	if err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("NewVU on an incomplete layout: %v", err)
	}
}
