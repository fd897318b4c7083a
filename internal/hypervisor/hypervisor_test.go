package hypervisor

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
)

// testdata/esxtop-ready.csv is esxtop batch output written from its format:
// host esx01 with VMs DB01 (4 vCPUs: worlds vcpu-0..3, beside vmx and mks)
// and WEB01, twelve samples 5 s apart from 10:00:05 to 10:01:00 UTC. In
// the first half DB01 is ready 1.5 % and co-stopped 0.2 % per vCPU, the
// host 55 % busy; in the second half 25 % and 4 %, the host 97 %.
func readFixture(t *testing.T, name, vm string, vcpus int) (*Series, error) {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return ReadESXTop(f, vm, vcpus)
}

func at(hms string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05", "2026-12-02 "+hms)
	if err != nil {
		panic(err)
	}
	return t
}

func TestReadESXTop(t *testing.T) {
	s, err := readFixture(t, "esxtop-ready.csv", "DB01", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.VCPUs != 4 || len(s.Samples) != 12 || !s.Samples[0].At.Equal(at("10:00:05")) {
		t.Fatalf("%d vCPUs, %d samples from %v; want 4 (counted from the vcpu worlds), 12 from 10:00:05", s.VCPUs, len(s.Samples), s.Samples[0].At)
	}
	if from, to := s.Span(); !from.Equal(at("10:00:00")) || !to.Equal(at("10:01:00")) {
		t.Errorf("span %v..%v, want 10:00:00..10:01:00", from, to)
	}
	// Two steps: 10:00:00-10:00:30 and 10:00:30-10:01:00.
	low, high := s.Window(at("10:00:00"), at("10:00:30")), s.Window(at("10:00:30"), at("10:01:00"))
	for name, c := range map[string]struct {
		got  *float64
		want float64
	}{
		"low ready": {low.ReadyPct, 1.5}, "low costop": {low.CoStopPct, 0.2}, "low host": {low.HostCPUPct, 55}, "low used": {low.UsedPct, 70},
		"high ready": {high.ReadyPct, 25}, "high costop": {high.CoStopPct, 4}, "high host": {high.HostCPUPct, 97}, "high max limited": {high.MaxLimitedPct, 0},
	} {
		if c.got == nil || math.Abs(*c.got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", name, c.got, c.want)
		}
	}
	if low.Samples != 6 || high.Samples != 6 || low.VM != "DB01" || low.Source != "esxtop" || low.VCPUs != 4 {
		t.Errorf("windows %+v %+v, want 6 samples each of DB01", low, high)
	}
	if w := s.Window(at("11:00:00"), at("11:01:00")); w != nil {
		t.Errorf("a window after the file: %+v", w)
	}
	// --vcpus that agrees with the file's count changes nothing (one that
	// does not is refused: TestReadESXTopVCPUsContradiction).
	s, err = readFixture(t, "esxtop-ready.csv", "DB01", 4)
	if err != nil || s.VCPUs != 4 || *s.Window(at("10:00:30"), at("10:01:00")).ReadyPct != 25 {
		t.Errorf("--vcpus 4: %v %v", s, err)
	}
}

func TestReadESXTopErrors(t *testing.T) {
	if _, err := readFixture(t, "esxtop-ready.csv", "DB02", 0); !errors.Is(err, ErrNoVM) || !strings.Contains(err.Error(), `"DB01", "WEB01"`) {
		t.Errorf("a VM not in the file: %v, want ErrNoVM naming the VMs there", err)
	}
	if _, err := readFixture(t, "esxtop-malformed.csv", "DB01", 0); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `row 5: \\esx01.lab.local\Group Cpu(71234:DB01)\% Ready: "n/a"`) {
		t.Errorf("a cell that is no number: %v, want ErrFormat naming row 5, the column and the cell", err)
	}
	for name, in := range map[string]string{
		"empty":          "",
		"not perfmon":    "time,cpu\n1,2\n",
		"no samples":     `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Used","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n",
		"bad time":       `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Used","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n\"yesterday\",\"1\",\"1\"\n",
		"ragged row":     `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Used","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n\"12/02/2026 10:00:05\",\"1\"\n",
		"no vcpu worlds": `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Used"` + "\n\"12/02/2026 10:00:05\",\"1\"\n",
		"out of order":   `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Used","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n\"12/02/2026 10:00:10\",\"1\",\"1\"\n\"12/02/2026 10:00:05\",\"1\",\"1\"\n",
	} {
		if _, err := ReadESXTop(strings.NewReader(in), "DB01", 0); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// A VM restarted during the capture has a second group (a new GID) with
// its own vCPU worlds: its vCPUs are counted once, and the figures come
// from whichever group has them in a row.
func TestReadESXTopRestartedVM(t *testing.T) {
	in := `"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Ready","\\h\Group Cpu(9:DB01)\% Ready",` +
		`"\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used","\\h\Vcpu(1:DB01:3:vcpu-1:DB01)\% Used","\\h\Vcpu(9:DB01:10:vcpu-0:DB01)\% Used","\\h\Vcpu(9:DB01:11:vcpu-1:DB01)\% Used"` + "\n" +
		`"12/02/2026 10:00:05","40","","1","1","",""` + "\n" + `"12/02/2026 10:00:10","","60","","","1","1"` + "\n"
	s, err := ReadESXTop(strings.NewReader(in), "DB01", 0)
	if err != nil || s.VCPUs != 2 || s.Samples[0].V[Ready] != 20 || s.Samples[1].V[Ready] != 30 {
		t.Fatalf("%+v (%v), want 2 vCPUs, ready 20 then 30 per vCPU", s, err)
	}
}

// The header's bias is minutes to add to the local times for UTC.
func TestReadESXTopBias(t *testing.T) {
	in := `"(PDH-CSV 4.0) (Pacific Standard Time)(480)","\\h\Group Cpu(1:DB01)\% Ready","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n\"12/02/2026 02:00:05\",\"3\",\"1\"\n"
	s, err := ReadESXTop(strings.NewReader(in), "DB01", 0)
	if err != nil || !s.Samples[0].At.Equal(at("10:00:05")) {
		t.Fatalf("%v (%v), want 10:00:05 UTC", s, err)
	}
}

func TestReadCSV(t *testing.T) {
	in := "time,metric,value\n" +
		"2026-12-02T10:00:05Z,ready_pct,2\n2026-12-02T10:00:05Z,host_cpu_pct,50\n2026-12-02T10:00:05Z,disk_ms,9\n" +
		"1796205610,ready_pct,20\n" + // 10:00:10 in Unix seconds
		"2026-12-02T10:00:15Z, costop_pct, 3\n"
	s, err := ReadCSV(strings.NewReader(in), "db", 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Samples) != 3 || !s.Samples[1].At.Equal(at("10:00:10")) || s.Samples[1].V[Ready] != 20 || s.Samples[0].V[HostCPU] != 50 {
		t.Fatalf("%+v", s.Samples)
	}
	w := s.Window(at("10:00:00"), at("10:00:15"))
	if w == nil || *w.ReadyPct != 11 || *w.CoStopPct != 3 || w.UsedPct != nil || w.Samples != 3 || w.VCPUs != 4 {
		t.Errorf("window %+v, want ready 11 (mean of 2 and 20), co-stop 3, no used", w)
	}
	// One instant written in two zones is one sample.
	s, err = ReadCSV(strings.NewReader("2026-12-02T15:30:05+05:30,ready_pct,2\n2026-12-02T10:00:05Z,costop_pct,1\n"), "", 0)
	if err != nil || len(s.Samples) != 1 || s.Samples[0].V[Ready] != 2 || s.Samples[0].V[CoStop] != 1 {
		t.Errorf("one instant in two zones: %+v (%v)", s, err)
	}
	for name, in := range map[string]string{
		"two columns":   "2026-12-02T10:00:05Z,ready_pct\n",
		"bad time":      "noon,ready_pct,2\n",
		"bad value":     "2026-12-02T10:00:05Z,ready_pct,lots\n",
		"no known rows": "time,metric,value\n2026-12-02T10:00:05Z,disk_ms,9\n",
	} {
		if _, err := ReadCSV(strings.NewReader(in), "", 0); !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v, want ErrFormat", name, err)
		}
	}
}

// wideESXTop writes an esxtop file of about cols columns (VMs of 12 group
// counters each) and rows samples.
func wideESXTop(cols, rows int) []byte {
	var b bytes.Buffer
	b.WriteString(`"(PDH-CSV 4.0) (UTC)(0)","\\h\Physical Cpu(_Total)\% Util Time"`)
	vms := cols / 13
	for v := range vms {
		for _, c := range []string{"Members", "% Used", "% Run", "% System", "% Wait", "% VmWait", "% Ready", "% Idle", "% Overlap", "% CoStop", "% Max Limited", "% Swap Wait"} {
			fmt.Fprintf(&b, `,"\\h\Group Cpu(%d:vm%d)\%s"`, 1000+v, v, c)
		}
		fmt.Fprintf(&b, `,"\\h\Vcpu(%d:vm%d:%d:vcpu-0:vm%d)\%% Used"`, 1000+v, v, 5000+v, v)
	}
	b.WriteString("\r\n")
	t0 := at("10:00:00")
	for r := range rows {
		b.WriteString(`"` + t0.Add(time.Duration(r+1)*5*time.Second).Format(pdhTime) + `","50.00"`)
		for range vms * 13 {
			b.WriteString(`,"12.34"`)
		}
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

func TestReadWideESXTop(t *testing.T) {
	data := wideESXTop(5000, 50)
	s, err := ReadESXTop(bytes.NewReader(data), "vm300", 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.VCPUs != 1 || len(s.Samples) != 50 || s.Samples[0].V[Ready] != 12.34 || s.Samples[0].V[HostCPU] != 50 {
		t.Errorf("%d vCPUs, %d samples, first %+v", s.VCPUs, len(s.Samples), s.Samples[0].V)
	}
}

// BenchmarkReadESXTop reads an hour of 5 s samples of a host with about
// 20,000 columns (1,500 VMs): bench/README.md quotes it.
func BenchmarkReadESXTop(b *testing.B) {
	data := wideESXTop(20000, 720)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ReadESXTop(bytes.NewReader(data), "vm700", 0); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzReadESXTop(f *testing.F) {
	f.Add([]byte(`"(PDH-CSV 4.0) (UTC)(0)","\\h\Group Cpu(1:DB01)\% Ready","\\h\Vcpu(1:DB01:2:vcpu-0:DB01)\% Used"` + "\n\"12/02/2026 10:00:05\",\"3\",\"1\"\n"))
	f.Add(wideESXTop(30, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadESXTop(bytes.NewReader(data), "DB01", 0)
		if err != nil {
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrNoVM) {
				t.Fatalf("error %v is neither ErrFormat nor ErrNoVM", err)
			}
			return
		}
		if s.VCPUs < 1 || len(s.Samples) == 0 {
			t.Fatalf("%+v", s)
		}
		from, to := s.Span()
		if w := s.Window(from, to); w == nil || w.Samples != len(s.Samples) {
			t.Fatalf("the whole span holds %+v of %d samples", w, len(s.Samples))
		}
	})
}
