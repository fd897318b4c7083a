package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/app"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// smallFS mounts a tmpfs of size (e.g. "256k") for the test and unmounts it
// at the end. Mounting needs root: elsewhere the test is skipped, except
// under CI=true, where it fails.
func smallFS(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "small")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a %s tmpfs on %s: %v (CI=true: the disk-full tests must run; run them as root)", size, dir, err)
		}
		t.Skipf("mount a %s tmpfs: %v (needs root; set CI=true to make this a failure)", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes a file in dir until the filesystem is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// snapshotFiles reads every regular file of dir but the filler.
func snapshotFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range ents {
		if e.Name() == "filler" || !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = b
	}
	return m
}

// intact checks that the files of before are still there, unchanged, and
// that the results among them decode.
func intact(t *testing.T, dir string, before map[string][]byte) {
	t.Helper()
	for name, want := range before {
		p := filepath.Join(dir, name)
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s changed (%v)", name, err)
			continue
		}
		if strings.HasSuffix(name, ".json") {
			mustReadResult(t, p)
		}
	}
}

// TestResultsUntilTheDiskIsFull writes results into a 256 KiB filesystem
// until it is full: the run that cannot write its result fails (exit 1)
// naming the file and "no space left on device"; the earlier results are
// unchanged and valid; no temporary file is left; a checkpoint left in
// place (renamed <out>-<id>.json.unwritten.partial) is whole and named by
// the error.
func TestResultsUntilTheDiskIsFull(t *testing.T) {
	fs := smallFS(t, "256k")
	db := "sqlite:" + filepath.Join(t.TempDir(), "db.sqlite")
	for k := 0; ; k++ {
		if k == 40 {
			t.Fatalf("40 results fit in 256 KiB?")
		}
		out := filepath.Join(fs, fmt.Sprintf("r%02d.json", k))
		prepare := "never"
		if k == 0 {
			prepare = "always"
		}
		before := snapshotFiles(t, fs)
		o := run(t, context.Background(), "run", "oltp_point_select", "--target", db, "--prepare", prepare, "--table-size", "500",
			"--time", "1s", "--report-interval", "250ms", "--out", out, "--no-history")
		if o.code == ExitOK {
			mustReadResult(t, out)
			noTempFiles(t, fs)
			continue
		}
		t.Logf("result #%d: exit %d: %s", k, o.code, strings.TrimSpace(o.stderr))
		if o.code != ExitFailure {
			t.Errorf("exit %d, want %d", o.code, ExitFailure)
		}
		if !strings.Contains(o.stderr, "rightsize: result "+out+": ") || !strings.Contains(o.stderr, "no space left on device") {
			t.Errorf("the error does not name %s and the full disk:\n%s", out, o.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s exists after the failure: %v", out, err)
		}
		noTempFiles(t, fs)
		intact(t, fs, before)
		if kept, _ := filepath.Glob(strings.TrimSuffix(out, ".json") + "-*.json.unwritten.partial"); len(kept) > 0 {
			if !strings.Contains(o.stderr, "the checkpoint "+kept[0]+" of the run so far is kept") {
				t.Errorf("a checkpoint the error does not mention: %s", kept[0])
			}
			if r, err := readResult(kept[0]); err != nil || !r.Partial {
				t.Errorf("the kept checkpoint: %v", err)
			}
		}
		if _, err := os.Stat(out + ".partial"); !os.IsNotExist(err) {
			t.Errorf("a checkpoint left under the name of a run in progress: %v", err)
		}
		if k < 2 {
			t.Errorf("only %d results fit", k)
		}
		return
	}
}

// failingWriter fails every write as a file on a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// TestResultWrittenWhenStdoutIsFull: stdout redirected to a file on a full
// disk does not cost the result: it is written, and the run fails (exit 1)
// saying why and where the result is.
func TestResultWrittenWhenStdoutIsFull(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var errb bytes.Buffer
	code := Main(context.Background(), Env{
		Args: []string{"run", "oltp_point_select", "--target", "sqlite:" + filepath.Join(dir, "db.sqlite"), "--prepare", "always",
			"--table-size", "500", "--time", "1s", "--out", out, "--no-history"},
		Stdout: failingWriter{}, Stderr: &errb, Getenv: func(string) string { return "" },
	})
	if code != ExitFailure {
		t.Errorf("exit %d, want %d\n%s", code, ExitFailure, errb.String())
	}
	if !strings.Contains(errb.String(), "no space left on device") || !strings.Contains(errb.String(), "result: "+out) {
		t.Errorf("stderr:\n%s", errb.String())
	}
	if r := mustReadResult(t, out); r.Partial || r.Summary.Count == 0 {
		t.Errorf("result: partial %v, count %d", r.Partial, r.Summary.Count)
	}
	noTempFiles(t, dir)
}

// TestFileioOnAFullDisk runs fileio against a file on a full 1 MiB
// filesystem: laying the file out fails with a clear error (exit 1) and the
// result written earlier on that filesystem is unchanged; once space is
// freed a smaller layout replaces the incomplete one without --force; and a
// run writing into a sparse file on the full filesystem stops on the first
// failed write with a partial result that says the disk is full (exit 3,
// the documented code of a run that could not complete its window).
func TestFileioOnAFullDisk(t *testing.T) {
	fs := smallFS(t, "1m")
	elsewhere := t.TempDir()
	// An earlier result on the small filesystem.
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(elsewhere, "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--time", "1s", "--out", filepath.Join(fs, "earlier.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("earlier result: exit %d\n%s", o.code, o.stderr)
	}
	fill(t, fs)
	before := snapshotFiles(t, fs)
	file := filepath.Join(fs, "f.dat")
	fio := func(args ...string) outcome {
		return run(t, context.Background(), append([]string{"run", "fileio", "--file", file, "--buffered", "--bs", "4k",
			"--time", "1s", "--out", filepath.Join(elsewhere, "fio.json"), "--no-history"}, args...)...)
	}

	// No room at all: even the layout's record cannot be written.
	o = fio("--size", "512k")
	t.Logf("full: exit %d: %s", o.code, strings.TrimSpace(o.stderr))
	if o.code != ExitFailure || !strings.Contains(o.stderr, file) || !strings.Contains(o.stderr, "no space left on device") {
		t.Errorf("fileio prepare on a full disk: exit %d\n%s", o.code, o.stderr)
	}
	intact(t, fs, before)
	if _, err := os.Stat(filepath.Join(elsewhere, "fio.json")); !os.IsNotExist(err) {
		t.Errorf("a result of a run that did not start: %v", err)
	}

	// 256 KiB free: the 512 KiB layout fails part way.
	if err := os.Remove(filepath.Join(fs, "filler")); err != nil {
		t.Fatal(err)
	}
	fillTo(t, fs, 256<<10)
	o = fio("--size", "512k")
	t.Logf("256 KiB free: exit %d: %s", o.code, strings.TrimSpace(o.stderr))
	if o.code != ExitFailure || !strings.Contains(o.stderr, file+": the disk is full (write at offset") || !strings.Contains(o.stderr, "no space left on device") {
		t.Errorf("fileio layout of 512 KiB in 256 KiB: exit %d\n%s", o.code, o.stderr)
	}
	intact(t, fs, before)
	// Run again as it is: the incomplete layout is refused, not read.
	o = fio("--size", "512k", "--prepare", "never")
	if o.code != ExitFailure || !strings.Contains(o.stderr, "incomplete") {
		t.Errorf("a run on the incomplete layout: exit %d\n%s", o.code, o.stderr)
	}
	// A smaller layout replaces the incomplete one, without --force.
	o = fio("--size", "128k", "--prepare", "always")
	if o.code != ExitOK {
		t.Errorf("a 128 KiB layout after the failed one: exit %d\n%s", o.code, o.stderr)
	} else if r := mustReadResult(t, filepath.Join(elsewhere, "fio.json")); r.Partial || r.Summary.Count == 0 {
		t.Errorf("fileio on the 128 KiB layout: partial %v, %d I/Os", r.Partial, r.Summary.Count)
	}
	intact(t, fs, before)

	// Writes into the holes of a sparse file on the full filesystem.
	fill(t, fs)
	sparse := filepath.Join(fs, "sparse.dat")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<20); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(elsewhere, "sparse.json")
	o = run(t, context.Background(), "run", "fileio", "--file", sparse, "--force-write", "--rw", "randwrite", "--buffered", "--bs", "4k",
		"--time", "2s", "--out", out, "--no-history")
	t.Logf("sparse file: exit %d: %s", o.code, strings.TrimSpace(o.stderr))
	if o.code != ExitInterrupted {
		t.Errorf("writes on a full disk: exit %d, want %d\n%s", o.code, ExitInterrupted, o.stderr)
	}
	r := mustReadResult(t, out)
	if !r.Partial || !strings.Contains(r.PartialReason, "the disk is full") || !strings.Contains(r.PartialReason, "no space left on device") || r.Summary.Errors == 0 {
		t.Errorf("result: partial %v (%s), %d errors", r.Partial, r.PartialReason, r.Summary.Errors)
	}
	intact(t, fs, before)
}

// fillTo writes a filler file in dir that leaves about free bytes free.
func fillTo(t *testing.T, dir string, free int64) {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	avail := int64(st.Bavail) * st.Bsize
	if avail < free {
		t.Fatalf("only %d bytes free, want %d", avail, free)
	}
	if err := os.WriteFile(filepath.Join(dir, "filler"), make([]byte, avail-free), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportOnAFullDisk: report -o on a full disk fails (exit 1) naming the
// file and the full disk, and leaves the previous report whole (a small
// one, which a larger page written in its place would only half replace),
// with no temporary file.
func TestReportOnAFullDisk(t *testing.T) {
	fs := smallFS(t, "256k")
	r := tinyResult(t, t.TempDir(), "r.json")
	page := filepath.Join(fs, "report")
	if o := run(t, context.Background(), "report", r, "--format", "md", "-o", page); o.code != ExitOK {
		t.Fatalf("the first report: exit %d\n%s", o.code, o.stderr)
	}
	fill(t, fs)
	before := snapshotFiles(t, fs)
	o := run(t, context.Background(), "report", r, "--format", "html", "-o", page)
	t.Logf("full: exit %d: %s", o.code, strings.TrimSpace(o.stderr))
	if o.code != ExitFailure || !strings.Contains(o.stderr, page) || !strings.Contains(o.stderr, "no space left on device") {
		t.Errorf("report -o on a full disk: exit %d, want %d naming %s and the full disk\n%s", o.code, ExitFailure, page, o.stderr)
	}
	intact(t, fs, before)
	noTempFiles(t, fs)
}

// TestUnwrittenResultIsNotAnInterruption: a run whose result cannot be
// written keeps its checkpoint as <out>-<id>.json.unwritten.partial, and
// the next run says that run's result could not be written (with why, when
// there was room to record it), not that it was interrupted. Once with a
// directory put at the result's path during the run (room to spare), once
// with the disk filled during the run.
func TestUnwrittenResultIsNotAnInterruption(t *testing.T) {
	spoil := map[string]func(t *testing.T, dir, out string){
		"directory": func(t *testing.T, _, out string) {
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(out, "x"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"full disk": func(t *testing.T, dir, _ string) { fill(t, dir) },
	}
	for _, name := range []string{"directory", "full disk"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if name == "full disk" {
				dir = smallFS(t, "1m")
			}
			out := filepath.Join(dir, "r.json")
			db := "sqlite:" + filepath.Join(t.TempDir(), "db.sqlite")
			done := make(chan outcome, 1)
			go func() {
				done <- runOn(t, "run", "oltp_point_select", "--target", db, "--prepare", "always", "--table-size", "100",
					"--time", "3s", "--report-interval", "200ms", "--out", out, "--no-history")
			}()
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if _, err := os.Stat(out + ".partial"); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no checkpoint after 20 s")
				}
			}
			spoil[name](t, dir, out)
			o := <-done
			kept, _ := filepath.Glob(filepath.Join(dir, "r-*.json.unwritten.partial"))
			if o.code != ExitFailure || len(kept) != 1 || !strings.Contains(o.stderr, "the checkpoint "+kept[0]+" of the run so far is kept") {
				t.Fatalf("exit %d, kept %v\n%s", o.code, kept, o.stderr)
			}
			r := mustReadResult(t, kept[0])
			if name == "directory" && (r.Checkpoint == nil || !strings.Contains(r.Checkpoint.ResultError, "result "+out)) {
				t.Errorf("the kept checkpoint does not say why: %+v", r.Checkpoint)
			}
			os.Remove(filepath.Join(dir, "filler"))
			// As if written by a process that has ended (this one goes on).
			r.Checkpoint.PID = deadPID(t)
			if err := session.WriteResult(kept[0], r); err != nil {
				t.Fatal(err)
			}
			o = runOn(t, "run", "oltp_point_select", "--target", db, "--table-size", "100", "--time", "300ms",
				"--out", filepath.Join(dir, "next.json"), "--no-history")
			t.Logf("the next run: %s", strings.TrimSpace(o.stderr))
			want := "rightsize: an earlier run's result could not be written"
			if name == "directory" {
				want += " (result " + out
			}
			if o.code != ExitOK || !strings.Contains(o.stderr, want) || !strings.Contains(o.stderr, "its checkpoint is at "+kept[0]) || strings.Contains(o.stderr, "interrupted") {
				t.Errorf("the next run: exit %d, want %q naming %s\n%s", o.code, want, kept[0], o.stderr)
			}
		})
	}
}

// TestSweepMarkdownOnAFullDisk: a sweep file written again (import --into)
// on a disk with room for its JSON but not its Markdown report fails, and
// the Markdown report before it is whole, not half replaced.
func TestSweepMarkdownOnAFullDisk(t *testing.T) {
	fs := smallFS(t, "256k")
	analysed := func(steps int) *analysis.Result {
		xs := make([]float64, steps)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		var sw result.Sweep
		if err := json.Unmarshal(mustRead(t, writeSweep(t, t.TempDir(), "S", "oltp_point_select", "threads", 1000, xs...)), &sw); err != nil {
			t.Fatal(err)
		}
		return analysis.Analyze(&sw, analysis.OptionsOf(&sw))
	}
	path := filepath.Join(fs, "s-sweep.json")
	if err := session.WriteSweep(path, analysed(2), app.SweepMarkdown); err != nil {
		t.Fatal(err)
	}
	// How much the larger sweep's JSON takes, written elsewhere.
	big := analysed(200)
	elsewhere := filepath.Join(t.TempDir(), "s-sweep.json")
	if err := session.WriteSweep(elsewhere, big, app.SweepMarkdown); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(elsewhere)
	if err != nil {
		t.Fatal(err)
	}
	fillTo(t, fs, (st.Size()+4095)/4096*4096)
	md := session.MarkdownPath(path)
	before := mustRead(t, md)
	err = session.WriteSweep(path, big, app.SweepMarkdown)
	t.Logf("full: %v", err)
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Errorf("WriteSweep on a full disk: %v", err)
	}
	unchanged(t, md, before)
	noTempFiles(t, fs)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
