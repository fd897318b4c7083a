package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// esxtopFor writes esxtop batch output (its perfmon CSV format) of a host
// and the 2-vCPU VM "DB01" with a sample every second from..to: the host
// 55% busy and the VM ready 1.5% per vCPU until highFrom, then 97% and 22%
// with co-stop 3.5%.
func esxtopFor(t *testing.T, path string, from, to, highFrom time.Time) {
	t.Helper()
	var b strings.Builder
	h := `\\esx01`
	b.WriteString(`"(PDH-CSV 4.0) (UTC)(0)","` + h + `\Physical Cpu(_Total)\% Util Time"`)
	for _, c := range []string{"% Used", "% Ready", "% CoStop", "% Max Limited", "% Wait"} {
		fmt.Fprintf(&b, `,"%s\Group Cpu(500:DB01)\%s","%s\Group Cpu(600:WEB01)\%s"`, h, c, h, c)
	}
	fmt.Fprintf(&b, `,"%s\Vcpu(500:DB01:501:vcpu-0:DB01)\%% Used","%s\Vcpu(500:DB01:502:vcpu-1:DB01)\%% Used"`+"\r\n", h, h)
	for at := from.Truncate(time.Second).Add(time.Second); !at.After(to.Add(time.Second)); at = at.Add(time.Second) {
		host, rdy, cstp := 55.0, 1.5, 0.1
		if at.Add(-500 * time.Millisecond).After(highFrom) {
			host, rdy, cstp = 97, 22, 3.5
		}
		fmt.Fprintf(&b, `"%s","%.2f"`, at.UTC().Format("01/02/2006 15:04:05"), host)
		for _, v := range []float64{120, rdy * 2, cstp * 2, 0, 60} { // summed over 2 vCPUs
			fmt.Fprintf(&b, `,"%.2f","1.00"`, v)
		}
		b.WriteString(`,"60.00","60.00"` + "\r\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportESXTop: a sweep's steps carry the hypervisor's view after an
// import; the steps table shows host beside guest and the verdict names
// ready time where the file has it.
func TestImportESXTop(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "1000", "--threads", "1,2", "--time", "2s", "--out", out, "--no-history")
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	path := filepath.Join(dir, "s-sweep.json")
	sw := readSweep(t, path)
	if sw.Steps[0].From.IsZero() || !sw.Steps[1].From.After(sw.Steps[0].To.Add(-time.Millisecond)) {
		t.Fatalf("steps' windows %v..%v, %v..%v", sw.Steps[0].From, sw.Steps[0].To, sw.Steps[1].From, sw.Steps[1].To)
	}
	csv := filepath.Join(dir, "esx.csv")
	esxtopFor(t, csv, sw.Steps[0].From, sw.Steps[1].To, sw.Steps[1].From)

	o = run(t, context.Background(), "import", "esxtop", csv, "--vm", "DB01", "--into", path)
	if o.code != ExitOK {
		t.Fatalf("import: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	sw = readSweep(t, path)
	low, high := sw.Steps[0].Host.Hypervisor, sw.Steps[1].Host.Hypervisor
	if low == nil || high == nil || low.VCPUs != 2 || *low.ReadyPct > 2 || *high.ReadyPct < 20 || *high.HostCPUPct < 90 || *high.CoStopPct < 3 {
		t.Fatalf("steps' hypervisor figures %+v, %+v: want ready 1.5%% then 22%% per vCPU", low, high)
	}
	for _, want := range []string{"2 of 2 steps aligned", "hv host cpu%", "ready%", "costop%",
		"Held back where the guest's CPU figures do not show it: threads 2 (ready 22.0% per vCPU, co-stop 3.5% per vCPU)"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("import's output lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stdout, "threads 1 (ready") || strings.Contains(o.stdout, "guest's own") {
		t.Errorf("the verdict names ready time where there was little, or calls the figures the guest's own:\n%s", o.stdout)
	}
	if v := strings.Join(sw.Verdict, " "); !strings.Contains(v, "ready 22.0% per vCPU") {
		t.Errorf("the sweep file's verdict: %s", v)
	}
	// The report reads it from the file, beside the guest's CPU.
	md, err := os.ReadFile(filepath.Join(dir, "s-sweep.md"))
	if err != nil || !strings.Contains(string(md), "| ready% |") {
		t.Errorf("Markdown report (%v):\n%s", err, md)
	}
	// Imported again from a file of the second step alone: the first step's
	// earlier figures go, not stay beside the new ones.
	second := filepath.Join(dir, "esx2.csv")
	esxtopFor(t, second, sw.Steps[1].From.Add(time.Second), sw.Steps[1].To, sw.Steps[1].From)
	if o := run(t, context.Background(), "import", "esxtop", second, "--vm", "DB01", "--into", path); o.code != ExitOK || !strings.Contains(o.stdout, "1 of 2 steps aligned") {
		t.Fatalf("second import: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
	if again := readSweep(t, path); again.Steps[0].Host.Hypervisor != nil || again.Steps[1].Host.Hypervisor == nil {
		t.Errorf("after the second import: %+v, %+v; want none, then the second file's", again.Steps[0].Host.Hypervisor, again.Steps[1].Host.Hypervisor)
	}
	html := filepath.Join(dir, "s.html")
	if o := run(t, context.Background(), "report", path, "--format", "html", "-o", html); o.code != ExitOK {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	page, err := os.ReadFile(html)
	for _, want := range []string{"<th>hv host cpu%</th><th>ready%</th><th>costop%</th>", "Guest CPU beside the host&#39;s view", "ready per vCPU", "host CPU (hypervisor)"} {
		if err != nil || !strings.Contains(string(page), want) {
			t.Errorf("HTML report lacks %q (%v)", want, err)
		}
	}
}

// TestImportErrors: each problem is one clear message and its exit code.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "esx.csv")
	esxtopFor(t, good, time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC), time.Date(2026, 12, 2, 10, 1, 0, 0, time.UTC), time.Date(2026, 12, 2, 10, 0, 30, 0, time.UTC))
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("time,cpu\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(dir, "long.csv") // one line of 9 MiB
	if err := os.WriteFile(long, bytes.Repeat([]byte{'0'}, 9<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run whose window is now, not 10:00 on the file's day.
	res := filepath.Join(dir, "r.json")
	if o := run(t, context.Background(), "run", "noop", "--time", "200ms", "--out", res, "--no-history"); o.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", o.code, o.stderr)
	}
	before, _ := os.ReadFile(res)
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"import", "esxtop"}, ExitUsage, "want 'import esxtop FILE'"},
		{"no --vm", []string{"import", "esxtop", good}, ExitUsage, "--vm NAME"},
		{"bad format", []string{"import", "esxtop", good, "--vm", "DB01", "--format", "xml"}, ExitUsage, `--format "xml"`},
		{"missing file", []string{"import", "esxtop", filepath.Join(dir, "none.csv"), "--vm", "DB01"}, ExitFailure, "no such file"},
		{"malformed", []string{"import", "esxtop", bad, "--vm", "DB01"}, ExitFailure, "is this esxtop -b output?"},
		{"missing VM", []string{"import", "esxtop", good, "--vm", "DB02"}, ExitFailure, `"DB02": the file's VMs (Group Cpu) are "DB01", "WEB01"`},
		{"no overlap", []string{"import", "esxtop", good, "--vm", "DB01", "--into", res}, ExitFailure, "the file's samples run from 2026-12-02 10:00:00 to 2026-12-02 10:01:01 UTC"},
		{"vcpus contradict", []string{"import", "esxtop", good, "--vm", "DB01", "--vcpus", "8"}, ExitUsage, `--vcpus 8, but the file shows 2 vCPUs of VM "DB01"`},
		{"vcpus huge", []string{"import", "esxtop", good, "--vm", "DB01", "--vcpus", "99999999999"}, ExitUsage, "--vcpus 99999999999: want a count of vCPUs from 1 to 4096"},
		{"into a device", []string{"import", "esxtop", good, "--vm", "DB01", "--into", os.DevNull}, ExitFailure, "not read: it is a device"},
		{"one endless line", []string{"import", "esxtop", long, "--vm", "DB01"}, ExitFailure, "line 1 longer than 8 MiB: not an esxtop batch file?"},
	} {
		o := run(t, context.Background(), c.args...)
		if o.code != c.code || !strings.Contains(o.stderr, c.want) || strings.Count(o.stderr, "rightsize:") != 1 {
			t.Errorf("%s: exit %d, want %d and one message with %q:\n%s", c.name, o.code, c.code, c.want, o.stderr)
		}
	}
	if after, _ := os.ReadFile(res); string(after) != string(before) {
		t.Error("a failed import changed the result file")
	}
	// Without --into: a summary of the file.
	o := run(t, context.Background(), "import", "esxtop", good, "--vm", "DB01")
	if o.code != ExitOK || !strings.Contains(o.stdout, `VM "DB01", 2 vCPUs, 61 samples`) {
		t.Errorf("summary: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}
