package hypervisor

import (
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/testenv/endless"
)

// An endless line (/dev/zero, or a CSV of one huge row) is refused after
// MaxLine bytes with one message naming the line, whatever the reader: the
// reader consumes no more than the cap and a buffer.
func TestReadersRefuseEndlessLine(t *testing.T) {
	header := `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Ready","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n"
	for _, c := range []struct {
		name string
		in   *endless.Reader
		read func(io.Reader) error
		want string
	}{
		{"esxtop zeros", &endless.Reader{}, func(r io.Reader) error { _, err := ReadESXTop(r, "DB01", 0); return err }, "line 1 longer than 8 MiB: not an esxtop batch file?"},
		{"esxtop row", &endless.Reader{Prefix: []byte(header + `"12/02/2026 10:00:05","`), Fill: '1'}, func(r io.Reader) error { _, err := ReadESXTop(r, "DB01", 0); return err }, "line 2 longer than 8 MiB"},
		{"csv zeros", &endless.Reader{}, func(r io.Reader) error { _, err := ReadCSV(r, "db", 0); return err }, "line 1 longer than 1 MiB: not a time, metric, value CSV?"},
	} {
		err := c.read(c.in)
		if !errors.Is(err, ErrFormat) || !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want ErrFormat, ErrTooLong and %q", c.name, err, c.want)
		}
		if c.in.N > MaxLine+1<<20 {
			t.Errorf("%s: read %d bytes, more than the %d of a line and a buffer", c.name, c.in.N, MaxLine+1<<20)
		}
	}
}

// Endless empty lines, or endless samples, stop at MaxSamples rows rather
// than run (and grow) for ever.
func TestReadersRefuseEndlessRows(t *testing.T) {
	in := &endless.Reader{Fill: '\n'}
	if _, err := ReadCSV(in, "db", 0); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("endless newlines: %v", err)
	}
	rows := &endless.Rows{Head: []byte(`"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Ready","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n"),
		Row: []byte(`"12/02/2026 10:00:05","3","1"` + "\n")}
	if _, err := ReadESXTop(rows, "DB01", 0); !errors.Is(err, ErrTooLong) || !strings.Contains(err.Error(), "the most samples read is 524288") {
		t.Errorf("endless rows: %v", err)
	}
}

// --vcpus must agree with the vCPUs the file shows (its vcpu-N worlds).
func TestReadESXTopVCPUsContradiction(t *testing.T) {
	for _, n := range []int{8, 99999999999} {
		_, err := readFixture(t, "esxtop-ready.csv", "DB01", n)
		if !errors.Is(err, ErrVCPUs) || !strings.Contains(err.Error(), "the file shows 4 vCPUs") {
			t.Errorf("--vcpus %d: %v", n, err)
		}
	}
	if s, err := readFixture(t, "esxtop-ready.csv", "DB01", 4); err != nil || s.VCPUs != 4 {
		t.Errorf("--vcpus 4: %v, %v", s, err)
	}
}

// FuzzReadersBounded: whatever a file starts with, an endless rest is
// refused having read at most a line's cap and a buffer, allocating a few
// times the cap.
func FuzzReadersBounded(f *testing.F) {
	f.Add([]byte(`"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Ready"`+"\n"), byte('1'))
	f.Add([]byte("time,metric,value\n"), byte(0))
	f.Add([]byte{}, byte('\n'))
	f.Fuzz(func(t *testing.T, prefix []byte, fill byte) {
		if fill == '\n' || fill == '\r' {
			fill = 'x' // endless rows are TestReadersRefuseEndlessRows' (slower)
		}
		for _, read := range []func(io.Reader) error{
			func(r io.Reader) error { _, err := ReadESXTop(r, "DB01", 0); return err },
			func(r io.Reader) error { _, err := ReadCSV(r, "DB01", 0); return err },
		} {
			in := &endless.Reader{Prefix: prefix, Fill: fill}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := read(in)
			runtime.ReadMemStats(&after)
			if err == nil {
				t.Fatal("an endless input was read to an end")
			}
			if in.N > int64(len(prefix))+MaxLine+1<<20 {
				t.Fatalf("read %d bytes of an endless input", in.N)
			}
			// What the reader allocated in all (csv's line and record
			// buffers growing to the cap): a few times the cap, not the input.
			if d := after.TotalAlloc - before.TotalAlloc; d > 8*MaxLine {
				t.Fatalf("the reader allocated %d MiB", d>>20)
			}
		}
	})
}
