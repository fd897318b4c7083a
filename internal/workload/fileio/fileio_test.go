package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runner"
	"github.com/rightsize/rightsize/internal/workload"
	"github.com/rightsize/rightsize/internal/workload/objects"
)

func TestSignatures(t *testing.T) {
	dir := t.TempDir()
	for _, s := range signatures {
		p := filepath.Join(dir, "dev")
		b := make([]byte, 128<<10)
		copy(b[s.off:], s.magic)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		err := deviceWriteCheck(p, 0)
		if !errors.Is(err, ErrDeviceWrite) || !strings.Contains(err.Error(), s.name) || !strings.Contains(err.Error(), "--force-device-write") {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	p := filepath.Join(dir, "blank")
	if err := os.WriteFile(p, make([]byte, 128<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := deviceWriteCheck(p, 0); err != nil {
		t.Errorf("a blank device refused: %v", err)
	}
	// Too small to hold the deeper signatures: not an error.
	if err := os.WriteFile(p, make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := deviceWriteCheck(p, 0); err != nil {
		t.Errorf("a tiny blank device: %v", err)
	}
}

func TestMountedAt(t *testing.T) {
	mi := `22 28 0:20 / /sys rw,nosuid - sysfs sysfs rw
28 1 253:0 / / rw,relatime - ext4 /dev/vda rw
41 28 259:3 / /data rw,relatime - xfs /dev/nvme0n1p1 rw
`
	if got := mountedAt(strings.NewReader(mi), makedev(259, 3)); got != "/data" {
		t.Errorf("mountedAt(259:3) = %q, want /data", got)
	}
	if got := mountedAt(strings.NewReader(mi), makedev(259, 4)); got != "" {
		t.Errorf("mountedAt(259:4) = %q, want none", got)
	}
}

func openIn(t *testing.T, path string, mod func(o *Options)) *instance {
	t.Helper()
	w := New()
	w.opt.File = path
	if mod != nil {
		mod(&w.opt)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	tg, err := w.ParseTarget("", workload.TargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in, err := tg.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return in.(*instance)
}

func TestPrepareOwnsWhatItLaysOut(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "rs.dat")
	in := openIn(t, path, func(o *Options) { o.Size = "4m" })
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != 4<<20 {
		t.Fatalf("laid out: %v, %v", st, err)
	}
	// Written, not sparse: the blocks are allocated.
	if sys := st.Sys(); sys != nil {
		if blocks := blocksOf(st); blocks*512 < 4<<20 {
			t.Errorf("%d bytes allocated of 4 MiB: sparse", blocks*512)
		}
	}
	if err := in.Prepare(ctx, workload.PrepareOptions{}, nil); err != nil {
		t.Errorf("second prepare: %v", err)
	}
	small := openIn(t, path, func(o *Options) { o.Size = "1m" })
	if err := small.Prepare(ctx, workload.PrepareOptions{}, nil); err == nil || !strings.Contains(err.Error(), "shrink") {
		t.Errorf("shrinking prepare: %v", err)
	}
	foreign := filepath.Join(dir, "user.dat")
	if err := os.WriteFile(foreign, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	fin := openIn(t, foreign, func(o *Options) { o.Size = "1m" })
	if err := fin.Prepare(ctx, workload.PrepareOptions{}, nil); !errors.Is(err, objects.ErrNotOwned) {
		t.Errorf("prepare over a user's file: %v", err)
	}
	if removed, err := fin.Cleanup(ctx, workload.PrepareOptions{}); !errors.Is(err, objects.ErrNotOwned) || len(removed) != 0 {
		t.Errorf("cleanup of a user's file: %v, removed %q", err, removed)
	}
	if b, _ := os.ReadFile(foreign); string(b) != "precious" {
		t.Errorf("the user's file changed: %q", b)
	}
	if removed, err := in.Cleanup(ctx, workload.PrepareOptions{}); err != nil || !slices.Equal(removed, []string{path}) {
		t.Fatalf("cleanup: removed %q, %v; want %s", removed, err, path)
	}
	if removed, err := in.Cleanup(ctx, workload.PrepareOptions{}); err != nil || len(removed) != 0 {
		t.Errorf("second cleanup: removed %q, %v; want nothing", removed, err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cleanup left the file: %v", err)
	}
	if _, err := os.Stat(sidecar(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cleanup left the record: %v", err)
	}
}

// runOn runs the workload on path for d and returns the summarized result.
func runOn(t *testing.T, path string, d time.Duration, mod func(o *Options)) (*Workload, *instance, *result.Run) {
	t.Helper()
	w := New()
	w.opt.File = path
	if mod != nil {
		mod(&w.opt)
	}
	if err := w.Validate(); err != nil {
		t.Fatal(err)
	}
	tg, _ := w.ParseTarget("", workload.TargetOptions{})
	i, err := tg.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := i.(*instance)
	res, err := runner.Run(context.Background(), runner.Settings{
		Load:  runner.Load{Threads: w.Meta().VUs, Duration: d},
		Ops:   w.Meta().Ops,
		Event: w.Meta().Event,
	}, []runner.Opened{{NewVU: in.NewVU, Classify: func(err error) errclass.Class { return in.Classify(err) }}})
	if err != nil {
		t.Fatal(err)
	}
	info := in.Info()
	res.Instances[0].Notes = info.Notes
	if err := w.Summarize(res); err != nil {
		t.Fatal(err)
	}
	return w, in, res
}

func TestShortRunsOnARealFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rs.dat")
	prep := openIn(t, path, func(o *Options) { o.Size = "32m" })
	if err := prep.Prepare(context.Background(), workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	for _, engine := range []string{EngineIOUring, EnginePsync} {
		_, in, res := runOn(t, path, 500*time.Millisecond, func(o *Options) {
			o.PatternText, o.Read, o.Engine = "t2 o8 b4k", "70", engine
			o.VMs, o.Capacity = 50, "2TB"
		})
		f, _ := FiguresOf(res.Section)
		if res.Partial || f == nil || f.Read.Count == 0 || f.Write.Count == 0 {
			t.Fatalf("%s: partial %v (%s), figures %+v", engine, res.Partial, res.PartialReason, f)
		}
		if in.engine != engine || f.Engine != engine {
			t.Errorf("engine %q (result %q), want %q", in.engine, f.Engine, engine)
		}
		if notes := strings.Join(in.Info().Notes, "\n"); engine == EngineIOUring && !strings.Contains(notes, "io_uring with registered buffers and file") {
			t.Errorf("io_uring run without registered buffers and file (64 KiB, well under any locked-memory limit); notes:\n%s", notes)
		}
		reads := float64(f.Read.Count) / float64(f.Read.Count+f.Write.Count)
		if reads < 0.6 || reads > 0.8 {
			t.Errorf("%s: %.2f of the I/Os read, want about 0.70", engine, reads)
		}
		if f.Total.Count != res.Summary.Count || f.Total.IOPS <= 0 || f.Total.MBps <= 0 {
			t.Errorf("%s: totals %+v vs summary count %d", engine, f.Total, res.Summary.Count)
		}
		if want := f.Total.MBps * 1e6 / (1 << 20); abs(f.Total.MiBps-want) > 1e-6 {
			t.Errorf("MiB/s %v, want %v", f.Total.MiBps, want)
		}
		if d := f.Derived; d == nil || abs(d.IOPSPerVM-f.Total.IOPS/50) > 1e-6 || abs(d.IOPSPerGB-f.Total.IOPS/2000) > 1e-6 {
			t.Errorf("derived %+v for %v IOPS", d, f.Total.IOPS)
		}
		t.Logf("%s: %.0f IOPS, read p99 %.3f ms, write p99 %.3f ms", engine, f.Total.IOPS, f.Read.Latency.P99Ms, f.Write.Latency.P99Ms)
	}
	// Sequential reads of 1 MiB.
	_, _, res := runOn(t, path, 300*time.Millisecond, func(o *Options) { o.PatternText, o.Sequential = "t1 o4 b1m", true })
	if f := section(t, res); f.Read.Count == 0 || f.Write.Count != 0 || f.Random {
		t.Errorf("sequential read: %+v", f)
	}
}

func TestMissingFileSaysPrepare(t *testing.T) {
	in := openIn(t, filepath.Join(t.TempDir(), "none.dat"), nil)
	if !in.NeedsPrepare() {
		t.Error("a missing file does not need prepare?")
	}
	_, err := in.NewVU(context.Background(), 0, 1)
	if err == nil || !strings.Contains(err.Error(), "rightsize prepare fileio") {
		t.Errorf("NewVU on a missing file: %v", err)
	}
}

// TestTargetThatIsNeitherFileNorBlockDevice: /dev/null is a character
// device, not a block device; prepare, run and cleanup say what the target
// is instead of treating it as a block device, and change nothing.
func TestTargetThatIsNeitherFileNorBlockDevice(t *testing.T) {
	ctx := context.Background()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{"/dev/null": "a character device", t.TempDir(): "a directory", fifo: "a named pipe"} {
		want := path + " is " + kind + ", not a regular file or a block device"
		in := openIn(t, path, func(o *Options) { o.Size = "1m" })
		p := &recordingProgress{}
		if err := in.Prepare(ctx, workload.PrepareOptions{}, p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("prepare %s: %v; want %q", path, err, want)
		}
		if strings.Contains(strings.Join(p.messages, "\n"), "block device") {
			t.Errorf("prepare %s: messages %q call it a block device", path, p.messages)
		}
		if _, err := in.NewVU(ctx, 0, 1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("run on %s: %v; want %q", path, err, want)
		}
		if _, err := in.Cleanup(ctx, workload.PrepareOptions{Force: true}); err == nil || !strings.Contains(err.Error(), path+" is "+kind) {
			t.Errorf("cleanup %s: %v; want it to say %s", path, err, kind)
		}
	}
}

// recordingProgress keeps prepare's messages.
type recordingProgress struct{ messages []string }

func (*recordingProgress) Total(int64)        {}
func (*recordingProgress) Add(int64)          {}
func (p *recordingProgress) Message(s string) { p.messages = append(p.messages, s) }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestPreconditionWritesTheTargetFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rs.dat")
	prep := openIn(t, path, func(o *Options) { o.Size = "8m" })
	if err := prep.Prepare(context.Background(), workload.PrepareOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, in, res := runOn(t, path, 200*time.Millisecond, func(o *Options) { o.Precondition = true; o.PatternText = "t1 o4 b4k" })
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := 0; i+4096 <= len(before); i += 4096 {
		if string(before[i:i+4096]) == string(after[i:i+4096]) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of 2048 blocks unchanged: the target was not rewritten", same)
	}
	var noted bool
	for _, n := range in.Info().Notes {
		noted = noted || strings.HasPrefix(n, "preconditioned")
	}
	if f := section(t, res); !noted || f.Write.Count != 0 {
		t.Errorf("notes %v; writes counted %d (preconditioning is not measured)", in.Info().Notes, f.Write.Count)
	}
}

func TestIOErrorsSayWhat(t *testing.T) {
	for errno, want := range map[syscall.Errno]string{
		syscall.ENOSPC: "the disk is full",
		syscall.EACCES: "not allowed to write",
		syscall.EROFS:  "not allowed to write",
		syscall.EIO:    "write at offset 4096",
	} {
		err := ioError("/data/rs.dat", "write", 4096, errno)
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "/data/rs.dat") || !errors.Is(err, errno) {
			t.Errorf("%v: %v", errno, err)
		}
	}
}

func TestWritingRunOnAFileItDidNotLayOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "user.dat")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	in := openIn(t, path, func(o *Options) { o.Read = "70" })
	if _, err := in.NewVU(context.Background(), 0, 1); err == nil || !strings.Contains(err.Error(), "--force-write") {
		t.Fatalf("a writing run on a user's file: %v", err)
	}
	// Reading it is fine.
	_, _, res := runOn(t, path, 100*time.Millisecond, func(o *Options) { o.PatternText = "t1 o2 b4k" })
	if section(t, res).Read.Count == 0 {
		t.Error("no reads from a user's file")
	}
}

// TestParseTargetFileURL: a target written as a file URL (file:/data/x,
// file:///data/x), as report's layout line shows a file, names the file,
// not a path under a folder called "file:" (prepare failed to record its
// layout in "file:/…").
func TestParseTargetFileURL(t *testing.T) {
	w := New()
	for raw, want := range map[string]string{
		"file:/data/rs.dat":   "/data/rs.dat",
		"file:///data/rs.dat": "/data/rs.dat",
		"file:rs.dat":         "rs.dat",
		"/data/rs.dat":        "/data/rs.dat",
		"/dev/nvme0n1":        "/dev/nvme0n1",
	} {
		tg, err := w.ParseTarget(raw, workload.TargetOptions{})
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if got := tg.(*target).path; got != want {
			t.Errorf("%s: path %q, want %q", raw, got, want)
		}
	}
	if _, err := w.ParseTarget("file:", workload.TargetOptions{}); err == nil {
		t.Errorf("file: with no path was accepted")
	}
}

// TestParseTargetRefusesDatabaseLocations: a database's URL or connection
// string given to fileio (run fileio --target postgres://u:pw@host/db) is
// refused as a usage error that does not quote its password; it was taken
// for a path, and every message after (preparing, opening, the layout
// record) showed it whole. A path with such a colon, written with ./, is
// still a path.
func TestParseTargetRefusesDatabaseLocations(t *testing.T) {
	w := New()
	for _, raw := range []string{
		"postgres://u:secretpw@127.0.0.1/x",
		"mysql://root:secretpw@127.0.0.1:3306/db?tls=false",
		"postgresql://u@h/db?password=secretpw",
		"host=127.0.0.1 user=u password=secretpw dbname=x",
		"sqlite://u:secretpw@h/x",
	} {
		_, err := w.ParseTarget(raw, workload.TargetOptions{})
		if err == nil {
			t.Errorf("%s: accepted as a file", raw)
			continue
		}
		if !errors.Is(err, dialect.ErrBadTarget) || strings.Contains(err.Error(), "secretpw") || !strings.Contains(err.Error(), "tests a file or a block device") {
			t.Errorf("%s: error %q, want a bad target that says what fileio takes, without the password", raw, err)
		}
	}
	for _, raw := range []string{"./postgres://x/y", "/data/a=b/rs.dat", "/data/u@host/rs.dat"} {
		if _, err := w.ParseTarget(raw, workload.TargetOptions{}); err != nil {
			t.Errorf("%s: %v, want a path", raw, err)
		}
	}
}
