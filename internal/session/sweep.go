package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/runplan"
)

// sweep assembles the sweep from its steps' results, analyses it and, unless
// --out -, writes the sweep file and, with Options.SweepReport, its
// Markdown beside it.
func (s *session) sweep() error {
	p, o := s.plan, s.out
	sw := &result.Sweep{SchemaVersion: result.SchemaVersion, ID: o.ID, Workload: p.Workload.Meta().Name, Config: s.configName(), Axis: p.Axis, OwnSteps: p.OwnAxis,
		CPUTargetPct: p.CPUTarget, TypeSLOMs: p.TypeSLO}
	if p.SLOPct != "p95" {
		sw.SLOMs = p.SLO // the slo knee's objective is on the p99
	}
	if p.Multiples() {
		sw.BaselineRate = s.baseline
	}
	if o.Baseline != nil && !p.Out.None() {
		sw.Baseline = o.BaselinePath
	}
	sw.HostIsServer, sw.Embedded = s.hostFacts()
	for i, r := range o.Runs {
		sw.Steps = append(sw.Steps, s.sweepStep(r, o.Specs[i], o.Paths[i]))
	}
	if o.Search != nil {
		sw.Search = o.Search
		sw.Steps = searchSteps(sw.Steps, o.Search)
	}
	a := analysis.Analyze(sw, analysis.OptionsOf(sw))
	o.Sweep = a
	if p.Out.None() {
		return nil
	}
	path := p.Out.Sweep(o.ID)
	if err := WriteSweep(path, a, s.opt.SweepReport); err != nil {
		return err
	}
	o.SweepPath = path
	return nil
}

// hostFacts tells whether every database ran on the measured host, and
// whether one was embedded (from the last run's instances).
func (s *session) hostFacts() (hostIsServer, embedded bool) {
	o := s.out
	if len(o.Runs) == 0 {
		return false, false
	}
	hostIsServer = true
	for i, ri := range o.Runs[len(o.Runs)-1].Instances {
		info := s.ins[min(i, len(s.ins)-1)].Info()
		hostIsServer = hostIsServer && (info.Local || onThisHost(ri.Target, s.opt.Hostname))
		embedded = embedded || info.Embedded
	}
	return hostIsServer, embedded
}

// sweepStep is the sweep's step of run r, which ran step l into path.
func (s *session) sweepStep(r *result.Run, l runplan.Step, path string) result.SweepStep {
	st := result.SweepStep{Label: l.Label, X: l.X, Throughput: r.Summary.Throughput, P95Ms: r.Summary.Latency.P95Ms, P99Ms: r.Summary.Latency.P99Ms,
		AvgMs: r.Summary.Latency.AvgMs, Errors: r.Summary.Errors, Host: r.Host, ServerStats: r.ServerStats, TickerLag: r.TickerLag}
	if r.Client != nil {
		st.ClientCPUUs, st.ClientSharePct = r.Client.CPUPerEventUs, r.Client.HostSharePct
	}
	if l := r.Summary.StartLag; l != nil {
		st.StartLagP99Ms = l.P99Ms
	}
	st.Retries, st.Deadlocks = r.Summary.Retries, r.Summary.Deadlocks()
	st.Instances, st.Fairness = len(r.Instances), r.Fairness
	st.Offered, st.Late, st.Dropped = r.Summary.Offered, r.Summary.Late, r.Summary.Dropped
	st.From, st.To = r.Window()
	if len(r.Summary.Types) > 1 {
		st.Types, st.SlowestFrequent = r.Summary.Types, r.Summary.SlowestFrequent
	}
	if !s.plan.Out.None() {
		st.Result = path
	}
	return st
}

// WriteSweep writes an analysed sweep's file at path and, when markdown is
// not nil, the Markdown report it writes beside it (MarkdownPath). The
// file holds the sweep's data and what the analysis found (knees, the
// fit, the demand, the diagnosis) for whoever reads it without rightsize;
// rightsize analyses the data again. It holds no verdict in words: files
// written before held one ("verdict"), which readers pass over. Each file
// is written atomically (WriteFile).
func WriteSweep(path string, a *analysis.Result, markdown func(io.Writer, *analysis.Result) error) error {
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if _, err := writeFileAtomic(path, true, func(w io.Writer) error { _, err := w.Write(append(b, '\n')); return err }); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if markdown == nil {
		return nil
	}
	var md bytes.Buffer
	if err := markdown(&md, a); err != nil {
		return err
	}
	if err := WriteFile(MarkdownPath(path), func(w io.Writer) error { _, err := w.Write(md.Bytes()); return err }); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	return nil
}

// MarkdownPath is where a sweep file's Markdown report goes.
func MarkdownPath(sweepPath string) string { return strings.TrimSuffix(sweepPath, ".json") + ".md" }

// onThisHost reports whether a server target runs on this host: on
// loopback, a socket or this host's own name.
func onThisHost(target, hostname string) bool {
	u, err := url.Parse(target)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "" || strings.EqualFold(h, "localhost") || (hostname != "" && strings.EqualFold(h, hostname)) {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
