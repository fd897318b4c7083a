// Package browser opens the HTML reports in headless Chromium (chromedp):
// charts drawn, nothing wider than the window, no console error. It was
// internal/cli's report_browser_test.go; it lives in the e2e module so that
// chromedp stays out of the main module.
package browser

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/rightsize/rightsize/internal/cli"
)

// ExitOK is the exit code of a command that succeeded.
const ExitOK = cli.ExitOK

type outcome struct {
	code           int
	stdout, stderr string
}

// run runs rightsize with args, as internal/cli's tests do.
func run(t *testing.T, ctx context.Context, args ...string) outcome {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(ctx, cli.Env{
		Args: args, Stdout: &out, Stderr: &errb,
		Getenv:   func(string) string { return "" },
		CPUTime:  func() (time.Duration, time.Duration) { return time.Second, time.Second },
		ProcRoot: "/proc",
		SysFS:    os.DirFS("/sys"),
	})
	return outcome{code, out.String(), errb.String()}
}

// chromium finds a headless-capable Chromium; in CI a missing browser is a
// failure (.ci/run installs Debian's chromium), elsewhere a skip.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH (CI=true: the browser test must run; .ci/run installs it)")
	}
	t.Skip("no chromium on PATH (set CI=true to make this a failure)")
	return ""
}

// The report of a real sweep, opened in headless Chromium: every chart is
// drawn (SVG with visible size and many elements), the console shows no
// error, and a screenshot is saved (RIGHTSIZE_SCREENSHOT names the file;
// default in the test's temporary directory).
func TestReportInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
		"--prepare", "always", "--table-size", "500", "--threads", "1,2,3,4", "--warmup", "300ms", "--time", "600ms",
		"--report-interval", "100ms", "--label", `<b>sweep</b>`, "--out", filepath.Join(dir, "s.json"))
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	page := filepath.Join(dir, "report.html")
	if o := run(t, context.Background(), "report", filepath.Join(dir, "s-sweep.json"), "-o", page); o.code != ExitOK {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}

	tctx, problems := browse(t, browser, page, 1200)
	charts, err := chromedp.Run(tctx, chromedp.Evaluate[[]map[string]float64](`Array.from(document.querySelectorAll("figure.chart svg")).map(s => {
		const r = s.getBoundingClientRect();
		return {w: r.width, h: r.height, marks: s.querySelectorAll("path, text").length};
	})`))
	if err != nil {
		t.Fatalf("count the charts: %v", err)
	}
	// 3 sweep charts (response time, the database's waits: SQLite's lock
	// waits counted by the client, and throughput; 4 where the kernel has
	// CPU pressure to set beside the guest's CPU), then a timeline and a
	// percentile chart per step.
	want := 3 + 2*4
	if _, err := os.Stat("/proc/pressure/cpu"); err == nil {
		want++
	}
	if len(charts) != want {
		t.Errorf("%d charts drawn, want %d", len(charts), want)
	}
	for i, c := range charts {
		if c["w"] < 300 || c["h"] < 100 || c["marks"] < 20 {
			t.Errorf("chart %d is not drawn: %v", i+1, c)
		}
	}
	text, err := chromedp.Run(tctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"oltp_point_select sweep over threads", "Latency percentiles", "<b>sweep</b> threads 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
	// The verdict: a knee, or none in the range. Which one depends on the
	// figures of 600 ms steps on a shared machine (CI saw both); the page
	// must show one of them.
	if !strings.Contains(text, "The knee is at") && !strings.Contains(text, "No knee in the range") {
		t.Errorf("the page shows no verdict on the knee")
	}
	// The page follows the window: at 1200 and 800 px nothing is wider
	// than the window (tables scroll in their own box, charts scale).
	for _, w := range []int64{1200, 800} {
		if err := chromedp.Do(tctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		over, err := chromedp.Run(tctx, chromedp.Evaluate[float64](`document.documentElement.scrollWidth - window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if over > 0 {
			t.Errorf("at %d px the page is %g px wider than the window", w, over)
		}
	}
	shot, err := chromedp.Run(tctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := os.Getenv("RIGHTSIZE_SCREENSHOT")
	if path == "" {
		path = filepath.Join(dir, "report.jpg")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot of %d bytes: %s", len(shot), path)
	if p := problems(); len(p) > 0 {
		t.Errorf("console: %s", strings.Join(p, "; "))
	}
}

// browse opens page in headless Chromium, width pixels wide, and returns
// a context to run in (30 s) and what the console reported so far.
func browse(t *testing.T, browser, page string, width int) (context.Context, func() []string) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(width, 900))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	var mu sync.Mutex
	var problems []string
	if err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeWarning {
				problems = append(problems, fmt.Sprintf("console %s", e.Type))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+e.ExceptionDetails.Text)
		}
	}); err != nil {
		t.Fatalf("chromium (%s): %v", browser, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("open the report: %v", err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(tcancel)
	return tctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), problems...)
	}
}

// A comparison of two real sweeps (two configurations of SQLite, told
// apart by their labels), opened in headless Chromium: the headline comes
// before the first chart in the document, names the winner, and the
// grouped bars and the four overlaid charts are drawn.
func TestCompareReportInBrowser(t *testing.T) {
	browser := chromium(t)
	dir := t.TempDir()
	var sweeps []string
	for _, c := range []struct{ label, threads string }{{"small cache", "1,2,3"}, {"big cache", "1,2,3,4"}} {
		out := filepath.Join(dir, strings.ReplaceAll(c.label, " ", "-")+".json")
		o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"),
			"--prepare", "always", "--table-size", "500", "--threads", c.threads, "--warmup", "200ms", "--time", "400ms",
			"--report-interval", "100ms", "--label", c.label, "--out", out)
		if o.code != ExitOK {
			t.Fatalf("sweep %s: exit %d\n%s", c.label, o.code, o.stderr)
		}
		sweeps = append(sweeps, strings.TrimSuffix(out, ".json")+"-sweep.json")
	}
	page := filepath.Join(dir, "compare.html")
	// At the last common step (by default each would be at its knee).
	if o := run(t, context.Background(), append(append([]string{"report"}, sweeps...), "-o", page, "--at", "3")...); o.code != ExitOK {
		t.Fatalf("report: exit %d\n%s", o.code, o.stderr)
	}
	tctx, problems := browse(t, browser, page, 800)
	order, err := chromedp.Run(tctx, chromedp.Evaluate[map[string]any](`(() => {
		const h = document.querySelector(".headline"), c = document.querySelector("figure.chart");
		return {headline: h ? h.innerText : "", before: !!(h && c && (h.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)),
			charts: document.querySelectorAll("figure.chart svg").length};
	})()`))
	if err != nil {
		t.Fatalf("read the page: %v", err)
	}
	head, _ := order["headline"].(string)
	if before, _ := order["before"].(bool); !before {
		t.Errorf("the headline does not come before the first chart: %v", order)
	}
	// The winner at threads 3 (the last common step), then one knee line each.
	if !strings.Contains(head, "/s at threads 3") || !strings.Contains(head, "small cache:") || !strings.Contains(head, "big cache:") {
		t.Errorf("headline %q", head)
	}
	if n, _ := order["charts"].(float64); n != 5 {
		t.Errorf("%v charts, want 5 (the grouped bars, throughput, avg, p99, host CPU)", n)
	}
	widths, err := chromedp.Run(tctx, chromedp.Evaluate[map[string]float64](`({page: document.documentElement.scrollWidth, window: window.innerWidth})`))
	if err != nil {
		t.Fatal(err)
	}
	if widths["page"] > widths["window"] {
		t.Errorf("the page is wider (%g px) than an 800 px window (%g px)", widths["page"], widths["window"])
	}
	if p := problems(); len(p) > 0 {
		t.Errorf("console: %s", strings.Join(p, "; "))
	}
}
