package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/testenv"
)

// soakPlan is one size of the soak test.
type soakPlan struct {
	vus            int
	length         time.Duration // the measured window
	every, settle  time.Duration // RSS sampling; growth counts after settle
	maxGrowth      float64       // allowed growth of rightsize's (Go) memory after settle, a fraction
	maxRSSGrowth   float64       // allowed RSS growth after settle (SQLite's C heap included)
	liveSlackKB    int64         // live heap growth allowed whatever the share
	maxLateTickPct float64       // 0: not checked
}

var (
	// soakFull is the soak of issue 8: RIGHTSIZE_SOAK=1.
	soakFull = soakPlan{vus: 1000, length: 10 * time.Minute, every: 10 * time.Second, settle: time.Minute, maxGrowth: 0.10, maxRSSGrowth: 0.15, liveSlackKB: 2048, maxLateTickPct: 5}
	// soakMini runs by default: the same properties, looser, in 30 s. Its
	// live heap is still sizing itself after 10 s (the virtual users'
	// buffers grow to their intervals, larger when a loaded machine makes
	// ticks late: in a CI run 8 → 11 MB, 12 → 13 MB alone; growth is
	// measured from the high-water mark up to settle, see flat), so it
	// catches gross leaks only; the full soak holds the 10 %. On a loaded
	// machine (another package's tests beside it, as in CI) the live heap
	// grew 21-47 % (4-8 MB) after 10 s, the same before and after issue
	// 20's changes, and once 50.0 % (18 → 27 MB) in a CI run; hence 8 MB
	// of slack. A leak of 3 bytes per transaction (3.7 million of them
	// after settle) would still exceed it.
	soakMini = soakPlan{vus: 200, length: 30 * time.Second, every: 2 * time.Second, settle: 10 * time.Second, maxGrowth: 0.50, maxRSSGrowth: 0.25, liveSlackKB: 8 << 10}
)

// memSample is a memory figure at a moment of the run, KiB.
type memSample struct {
	at time.Duration
	kb int64
}

func series(ss []memSample) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, " %v:%d", s.at, s.kb/1024)
	}
	return b.String()
}

// flat fails the test when the highest sample after settle is more than
// maxGrowth above the reference: the highest sample up to settle (the
// high-water mark the settling reached; one sample at settle can be a dip
// after a collection: a CI run's live heap read 9 MB at 8 s, 8 at 10 s,
// then 12, "50 %").
func flat(t *testing.T, what string, ss []memSample, settle time.Duration, maxGrowth float64) {
	t.Helper()
	flatWithin(t, what, ss, settle, maxGrowth, 0)
}

// flatWithin is flat with growth up to slackKB allowed whatever the share
// (a measure's granularity: gctrace prints whole MB).
func flatWithin(t *testing.T, what string, ss []memSample, settle time.Duration, maxGrowth float64, slackKB int64) {
	t.Helper()
	var base, peak, first memSample
	n := 0
	for _, s := range ss {
		if s.at <= settle && s.kb >= base.kb {
			base = s
		}
		if s.at < settle {
			continue
		}
		if n == 0 {
			first = s
		}
		if n == 0 || s.kb > peak.kb {
			peak = s
		}
		n++
	}
	if base.kb == 0 {
		base = first // no sample while settling
	}
	if base.kb == 0 || n < 2 {
		t.Fatalf("%s: too few samples after %v: %v", what, settle, ss)
	}
	growth := float64(peak.kb-base.kb) / float64(base.kb)
	t.Logf("%s: %.1f MiB at %v, peak after it %.1f MiB at %v: growth %.1f %%", what, float64(base.kb)/1024, base.at, float64(peak.kb)/1024, peak.at, 100*growth)
	if growth >= maxGrowth && peak.kb-base.kb > slackKB {
		t.Errorf("%s grew %.1f %% after %v, want under %.0f %%", what, 100*growth, settle, 100*maxGrowth)
	}
}

// liveHeapKB reads the Go heap live after the last collection from a
// GODEBUG=gctrace=1 trace: the last "gc N @...: ... A->B->C MB" line's C.
func liveHeapKB(trace string) (int64, bool) {
	i := strings.LastIndex(trace, "\ngc ")
	if i < 0 {
		return 0, false
	}
	line, _, _ := strings.Cut(trace[i+1:], "\n")
	f := strings.Fields(line)
	for k, w := range f {
		if k+1 < len(f) && f[k+1] == "MB," && strings.Count(w, "->") == 2 {
			mb, err := strconv.ParseInt(w[strings.LastIndex(w, "->")+2:], 10, 64)
			return mb * 1024, err == nil
		}
	}
	return 0, false
}

// TestSoak runs oltp_point_select on embedded SQLite with many virtual
// users and samples two memories: the Go heap live after each collection
// (the process runs with GODEBUG=gctrace=1), which is what rightsize holds,
// and the process's RSS, which also holds SQLite's C heap (one page cache
// and statement set per connection, in modernc's allocator) and the
// collector's headroom. After the first minute the live heap must stay flat
// (under 10 % growth, or 2 MB: gctrace prints whole MB); the RSS must stay
// within maxRSSGrowth; the histograms must not clamp silently (a clamped
// count is in the summary and warned about; here none is expected, and the
// result must say so); and the report ticks must keep up. RIGHTSIZE_SOAK=1
// runs the full soak: 10 minutes with 1,000 virtual users, every 10 s; by
// default a 30 s miniature with 200 virtual users checks the same, looser
// (RSS 25 % and live heap 50 % or 8 MB after 10 s). The table is small (1,000 rows,
// about 50 pages) so that every connection's page cache is warm within
// seconds.
//
// Measured on the full soak (2 CPUs, 1,000 connections), before the
// histograms' buffers were cut back after bursts: the RSS grew 376 → 417 MiB
// (11 %) from minute 1 to 10, most of it in 1 MiB mappings of SQLite's
// allocator outside the Go heap (346 of them after 4 minutes, one more
// about every 10 s, decelerating), and the live heap 12 → 18 MB in 4
// minutes (the buffers' ratchet); hence an RSS bound of 15 % here. After
// that fix: RSS 370 → 408 MiB (10.3 %), live heap 12-14 MB over the 10
// minutes (gctrace's whole MB), 26.7 million transactions.
// internal/chaos's TestSoakPostgres soaks a server database, where the
// process is rightsize alone.
func TestSoak(t *testing.T) {
	plan := soakMini
	if os.Getenv("RIGHTSIZE_SOAK") == "1" {
		plan = soakFull
	} else if testing.Short() {
		t.Skip("the soak miniature takes 30 s; RIGHTSIZE_SOAK=1 for the full one")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	p := startEnv(t, dir, []string{"GODEBUG=gctrace=1"}, "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "db.sqlite"), "--prepare", "always",
		"--table-size", "1000", "--threads", strconv.Itoa(plan.vus), "--time", plan.length.String(), "--out", out)
	for !strings.Contains(p.stdout.String(), "rightsize ") { // the header: prepared, connecting
		if p.exited() {
			t.Fatalf("exit %d before the run:\n%s", p.code, p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	t0 := time.Now()
	var rss, live []memSample
	for next := t0; !p.exited(); next = next.Add(plan.every) {
		if !p.wait(time.Until(next)) {
			at := time.Since(t0).Round(time.Second)
			if kb, err := testenv.RSSKiB(p.cmd.Process.Pid); err == nil {
				rss = append(rss, memSample{at, kb})
			}
			if kb, ok := liveHeapKB(p.stderr.String()); ok {
				live = append(live, memSample{at, kb})
			}
		}
		if time.Since(t0) > plan.length+2*time.Minute {
			t.Fatalf("still running %v after the start", time.Since(t0))
		}
	}
	t.Logf("%d virtual users for %v, every %v; RSS MiB:%s", plan.vus, plan.length, plan.every, series(rss))
	t.Logf("Go heap live at the last collection (gctrace), MiB:%s", series(live))
	if p.code != 0 {
		t.Fatalf("exit %d\n%s", p.code, p.stderr.String())
	}
	flatWithin(t, "rightsize's memory (the Go heap live at the last collection)", live, plan.settle, plan.maxGrowth, plan.liveSlackKB)
	flat(t, "RSS", rss, plan.settle, plan.maxRSSGrowth)

	r, err := decodeFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Partial || r.Summary.Count == 0 {
		t.Errorf("result: partial %v (%s), %d transactions", r.Partial, r.PartialReason, r.Summary.Count)
	}
	// Nothing clamped, and nothing clamped silently: a clamped count would
	// be in the summary, with a warning.
	if r.Summary.Clamped != 0 || strings.Contains(p.stdout.String(), "recorded as 1 h") {
		t.Errorf("%d transactions clamped at 1 h in a %v run", r.Summary.Clamped, plan.length)
	}
	if r.Summary.Latency.MaxMs >= float64(time.Hour/time.Millisecond) {
		t.Errorf("max latency %v ms is the histograms' ceiling, yet nothing is reported clamped", r.Summary.Latency.MaxMs)
	}
	t.Logf("%d transactions, %.0f/s, p99 %.1f ms, max %.1f ms, client CPU %.1f µs per transaction",
		r.Summary.Count, r.Summary.Throughput, r.Summary.Latency.P99Ms, r.Summary.Latency.MaxMs, r.Client.CPUPerEventUs)
	if l := r.TickerLag; l != nil {
		t.Logf("ticker lag: %d of %d ticks late, worst %.1f s", l.Late, l.Ticks, l.MaxS)
		// The miniature only reports it: on a shared CI machine the ticker
		// is starved by other processes as much as by the virtual users.
		if pct := 100 * float64(l.Late) / float64(l.Ticks); plan.maxLateTickPct > 0 && pct > plan.maxLateTickPct {
			t.Errorf("%.0f %% of the report ticks were late (worst %.1f s): the ticker cannot keep up with %d virtual users", pct, l.MaxS, plan.vus)
		}
	}
	if l := leftovers(dir); len(l) > 0 {
		t.Errorf("left behind: %v", l)
	}
}
