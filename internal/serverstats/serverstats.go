package serverstats

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/stmtstats"
)

// DefaultInterval is how often the sessions are sampled by default.
const DefaultInterval = 100 * time.Millisecond

// statementTimeout bounds each query of the monitoring connection (the
// server's statement_timeout). A network that stalls is bounded at the
// step's end instead (stopWait): a query's own context cannot be, as the
// dialect ends a connection whose query's context is cancelled.
const statementTimeout = "5s"

// stopWait is how long Stop waits for a sampler busy on a query before it
// cancels the monitor's context, which ends the connection (its figures
// then say it failed), so that a stalled network cannot hold the run's end.
const stopWait = 6 * time.Second

// Target is one instance's database: its location and dialect (Loc nil:
// not a database server, never sampled).
type Target struct {
	Loc *dialect.Location
	D   dialect.Dialect
	// Counters are the workload's counters in its data (name: a query of
	// one number, workload.Meta.ServerCounters), read with the server's.
	Counters map[string]string
}

// Sampler samples the servers of a run's instances, one monitoring
// connection each, opened at the first step that drives the instance
// (after prepare, which may create the database) and kept until Close.
// Its methods are called from one goroutine (the session's).
type Sampler struct {
	targets  []Target
	interval time.Duration
	opt      Options
	mons     []*monitor
}

// Options are what a Sampler reads beyond its default.
type Options struct {
	// MySQLSessions samples the sessions of MySQL/MariaDB servers too
	// (their process list or performance_schema threads, joined with
	// INNODB_TRX), which --server-stats given on the command line asks
	// for. By default only their status counters are read: in a deadlock
	// storm on MariaDB 10.11, reading INNODB_TRX every 100 ms held up
	// InnoDB's lock waits (transactions of the run still waited 5 s after
	// it ended, their lock wait timeout 1 s; chaos TestDeadlockStormMariaDB).
	MySQLSessions bool
}

// New returns a sampler of targets every interval (0: DefaultInterval).
func New(targets []Target, interval time.Duration, opt Options) *Sampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	return &Sampler{targets: targets, interval: interval, opt: opt, mons: make([]*monitor, len(targets))}
}

// Close closes the monitoring connections.
func (s *Sampler) Close() {
	for _, m := range s.mons {
		if m != nil {
			m.close()
		}
	}
}

// Start starts sampling the first n instances' servers for one step.
func (s *Sampler) Start(ctx context.Context, n int) *Step {
	st := &Step{insts: make([]*instStep, min(n, len(s.targets)))}
	for i := range st.insts {
		m := s.monitor(ctx, i)
		if m == nil {
			continue
		}
		is := &instStep{m: m, interval: s.interval, cuts: make(chan string, maxPendingCuts), stop: make(chan struct{}), done: make(chan struct{})}
		st.insts[i] = is
		go is.run(m.ctx)
	}
	return st
}

// monitor returns instance i's monitor, opening it (again, after a failure)
// when it has none; nil for a target that is not sampled.
func (s *Sampler) monitor(ctx context.Context, i int) *monitor {
	t := s.targets[i]
	if t.Loc == nil || t.D == nil {
		return nil
	}
	var srv server
	cw, local := t.D.(dialect.ClientWaiter)
	switch {
	case t.Loc.Dialect == "postgres":
		srv = &postgres{}
	case t.Loc.Dialect == "mysql":
		srv = &mysql{noSessions: !s.opt.MySQLSessions}
	case local: // SQLite
		if w := cw.ClientWaits(t.Loc); w != nil {
			srv = &client{product: "SQLite", w: w}
		}
	}
	if srv == nil {
		return nil
	}
	if m := s.mons[i]; m != nil && (m.c != nil || m.failed || m.local) {
		return m
	}
	m := &monitor{interval: s.interval, srv: srv, extra: t.Counters}
	s.mons[i] = m
	if local {
		// Counted by the virtual users' connections: nothing to connect to.
		m.local = true
		m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
		return m
	}
	cctx, cancel, _ := t.Loc.ConnectWithin(ctx)
	defer cancel()
	c, err := t.D.Connect(cctx, t.Loc)
	if err != nil {
		m.failed, m.note = true, fmt.Sprintf("server figures not sampled: the monitoring connection failed: %v", err)
		return m
	}
	m.c = c
	// The dialect ends a connection whose query's context is cancelled (a
	// virtual user's, at the run's end): every query of the monitor's is
	// given one context, cancelled as it closes, and bounded by the
	// server's statement_timeout instead.
	m.ctx, m.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if err := m.srv.check(m.ctx, c); err != nil {
		m.fail(fmt.Sprintf("server figures not sampled: %v", err))
		return m
	}
	m.stmts, m.stmtNote = openStatements(m.ctx, c)
	return m
}

// monitor is one instance's monitoring connection.
type monitor struct {
	interval time.Duration
	c        dialect.Conn
	srv      server
	local    bool            // srv needs no connection (client)
	ctx      context.Context // every query's (see Sampler.monitor)
	cancel   context.CancelFunc
	// failed: the connection could not be opened or read; note says why
	// (every step's figures carry it).
	failed bool
	note   string
	// stmts reads the statements' counters where the server keeps them
	// and the user may read them (nil otherwise); stmtNote says why they
	// are kept but not read.
	stmts    *stmtstats.Reader
	stmtNote string
	// extra are the workload's counters (Target.Counters); a query that
	// failed is dropped, and extraNote says why.
	extra     map[string]string
	extraNote string
}

// counters reads the server's counters and the workload's.
func (m *monitor) counters(ctx context.Context) (*snapshot, error) {
	snap, err := m.srv.counters(ctx, m.c)
	if err == nil {
		m.readExtra(ctx, snap)
	}
	return snap, err
}

// readExtra adds the workload's counters to snap, as "workload.<name>". A
// counter whose query fails is not read again (the data may not hold it:
// a table another tool loaded), and the figures' note says so.
func (m *monitor) readExtra(ctx context.Context, snap *snapshot) {
	if m.c == nil || snap.values == nil {
		return // counted by the client (SQLite): no server to ask
	}
	for _, name := range slices.Sorted(maps.Keys(m.extra)) {
		var v float64
		if err := m.c.QueryRow(ctx, m.extra[name], nil, &v); err != nil {
			m.extraNote = joinNote(m.extraNote, fmt.Sprintf("the workload's counter %s was not read: %v", name, err))
			m.extra = maps.Clone(m.extra)
			delete(m.extra, name)
			continue
		}
		snap.values["workload."+name] = v
	}
}

func (m *monitor) fail(note string) {
	m.failed, m.note = true, note
	m.close()
}

func (m *monitor) close() {
	if m.c != nil {
		_ = m.c.Close()
		m.c = nil
	}
	if m.cancel != nil {
		m.cancel()
	}
}

// Step is one step's sampling of its instances' servers.
type Step struct {
	insts []*instStep // nil where an instance is not sampled
}

// Interval tells the step that a report interval of the phase ("warmup",
// "measure") has just ended. Called from the runner's ticker, it does not
// block: the sampling goroutines cut their figures there.
func (s *Step) Interval(phase string) {
	for _, is := range s.insts {
		if is == nil {
			continue
		}
		select {
		case is.cuts <- phase:
		default:
			is.lostCuts.Store(true)
		}
	}
}

// Stop ends the sampling and returns each instance's figures over the
// intervals of the measured window (nil for an instance not sampled).
func (s *Step) Stop() []*result.ServerStats {
	out := make([]*result.ServerStats, len(s.insts))
	for i, is := range s.insts {
		if is == nil {
			continue
		}
		close(is.stop)
		select {
		case <-is.done:
		case <-time.After(stopWait):
			is.m.cancel() // ends the query it is stuck in
			<-is.done
		}
		out[i] = is.out
	}
	return out
}

// maxPendingCuts is how many interval ends may wait for a sampling
// goroutine (busy on a slow query) before further ones are lost.
const maxPendingCuts = 1024

// instStep samples one instance's server during a step.
type instStep struct {
	m        *monitor
	interval time.Duration
	cuts     chan string
	stop     chan struct{}
	done     chan struct{}
	lostCuts atomic.Bool
	out      *result.ServerStats
	// noStmts: reading the statements' counters failed (stmtNote says
	// how); they are not read again in the step.
	noStmts  bool
	stmtNote string
}

// run samples until stop; the figures go to out.
func (is *instStep) run(ctx context.Context) {
	defer close(is.done)
	m := is.m
	src, product := m.srv.describe()
	out := &result.ServerStats{Source: src, Product: product, IntervalMs: float64(is.interval) / float64(time.Millisecond)}
	is.out = out
	if m.failed {
		out.Note = m.note
		return
	}
	var cur, meas activity
	var gauges gaugeMeans
	counters := func() (*snapshot, error) { return m.counters(ctx) }
	prev, err := counters()
	if err != nil {
		m.fail(fmt.Sprintf("server figures not sampled: reading the counters: %v", err))
		out.Note = m.note
		return
	}
	var first, last *snapshot
	// The statements' counters are read at the step's start and at each
	// interval's end before the window (the last of them is the window's
	// start), and at the step's end.
	stmtFirst := is.statements(ctx)
	tick := time.NewTicker(is.interval)
	defer tick.Stop()
	cut := func(phase string) error {
		snap, err := counters()
		if err != nil {
			return err
		}
		if phase != "measure" && !is.noStmts && stmtFirst != nil {
			stmtFirst = is.statements(ctx)
		}
		if phase == "measure" {
			meas.add(cur)
			if first == nil {
				first = prev
			}
			last = snap
			gauges.add(snap.gauges)
		}
		prev = snap
		cur = activity{}
		return nil
	}
	for err == nil {
		select {
		case <-tick.C:
			err = m.srv.sample(ctx, &cur)
		case ph := <-is.cuts:
			err = cut(ph)
		case <-is.stop:
			for pending := true; pending && err == nil; {
				select {
				case ph := <-is.cuts:
					err = cut(ph)
				default:
					pending = false
				}
			}
			if err == nil {
				is.finish(out, meas, gauges, first, last)
				if first != nil && stmtFirst != nil && !is.noStmts {
					is.topStatements(ctx, out, stmtFirst)
				}
				out.Note = joinNote(out.Note, is.stmtNote)
				return
			}
		}
	}
	m.fail(fmt.Sprintf("server figures incomplete: the monitoring connection failed during the step: %v", err))
	is.finish(out, meas, gauges, first, last)
	out.Note = m.note
}

// statements reads the server's statement counters (nil: not counted, or
// the read failed: stmtNote says why, and they are not read again).
func (is *instStep) statements(ctx context.Context) stmtSnapshot {
	if is.m.stmts == nil {
		return nil
	}
	st, err := is.m.stmts.Statements(ctx)
	if err != nil {
		is.stmtNote = fmt.Sprintf("the statements' figures were not read: %v", err)
		is.noStmts = true
		return nil
	}
	return st
}

// topStatements reads the statements at the step's end and puts those that
// took the most time since first in out, unless the server's counts
// would mislead (stmtNote then says why).
func (is *instStep) topStatements(ctx context.Context, out *result.ServerStats, first stmtSnapshot) {
	last := is.statements(ctx)
	if last == nil {
		return
	}
	if why := is.m.srv.missedStatements(out.Counters, first, last); why != "" {
		is.stmtNote = why
		return
	}
	out.Statements = topStatements(first, last)
}

// finish fills out from the measured window's activity and its counters'
// snapshots at its edges.
func (is *instStep) finish(out *result.ServerStats, meas activity, gauges gaugeMeans, first, last *snapshot) {
	out.Samples, out.Active, out.Hidden, out.IdleInTx = meas.samples, meas.active, meas.hidden, meas.idleInTx
	for k, n := range meas.waits {
		out.Waits = append(out.Waits, result.Wait{Type: k.typ, Event: k.event, Samples: n})
	}
	result.SortWaits(out.Waits)
	if first != nil && last != nil {
		out.DurationS = last.at.Sub(first.at).Seconds()
		out.Counters = map[string]float64{}
		for k, v := range last.values {
			if a, ok := first.values[k]; ok {
				out.Counters[k] = v - a
			}
		}
		for k, v := range gauges.sum {
			out.Counters[k] = v / float64(gauges.n[k])
		}
	}
	if out.Hidden > 0 {
		out.Note = is.m.srv.hiddenNote()
	}
	out.Note = joinNote(out.Note, is.m.srv.note())
	out.Note = joinNote(out.Note, is.m.stmtNote)
	out.Note = joinNote(out.Note, is.m.extraNote)
	if is.lostCuts.Load() {
		out.Note = joinNote(out.Note, "the sampler fell behind the report intervals: some intervals' samples were counted in the next one")
	}
}

func joinNote(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// activity is session samples added up.
type activity struct {
	samples, active, hidden, idleInTx int64
	waits                             map[waitKey]int64
}

type waitKey struct{ typ, event string }

func (a *activity) add(b activity) {
	a.samples += b.samples
	a.active += b.active
	a.hidden += b.hidden
	a.idleInTx += b.idleInTx
	for k, n := range b.waits {
		a.count(k, n)
	}
}

func (a *activity) count(k waitKey, n int64) {
	if a.waits == nil {
		a.waits = map[waitKey]int64{}
	}
	a.waits[k] += n
}

// snapshot is the server's counters at a moment: values are counters
// (their deltas are reported), gauges levels (their mean over the
// window's snapshots is).
type snapshot struct {
	at     time.Time
	values map[string]float64
	gauges map[string]float64
}

// gaugeMeans adds gauges' readings up, for their means.
type gaugeMeans struct {
	sum map[string]float64
	n   map[string]int
}

func (g *gaugeMeans) add(vs map[string]float64) {
	if len(vs) == 0 {
		return
	}
	if g.sum == nil {
		g.sum, g.n = map[string]float64{}, map[string]int{}
	}
	for k, v := range vs {
		g.sum[k] += v
		g.n[k]++
	}
}

// server is one product's way of reading its sessions and counters, on
// the monitoring connection.
type server interface {
	// check reads what the server has and the user may see, and prepares
	// the queries; an error ends the sampling (a note says why).
	check(ctx context.Context, c dialect.Conn) error
	// sample adds one sample of the sessions to a.
	sample(ctx context.Context, a *activity) error
	// counters reads the counters.
	counters(ctx context.Context, c dialect.Conn) (*snapshot, error)
	// missedStatements says why the statements' counters between first
	// and last would mislead (they missed most of the statements the
	// server counted), "" when they would not.
	missedStatements(counters map[string]float64, first, last stmtSnapshot) string
	// describe names what is read and the product.
	describe() (source, product string)
	// hiddenNote says why sessions were hidden (activity.hidden) and how
	// to let them be seen; note what else is not read and how to let it
	// be ("" for nothing).
	hiddenNote() string
	note() string
}
