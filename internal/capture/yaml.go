package capture

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/sqltext"
	"github.com/rightsize/rightsize/internal/workfile"
)

// ErrNothing is returned for a window in which no statement of the
// application was counted: there is no file to write.
var ErrNothing = errors.New("no statement of the application was counted in the window")

func (m *Model) nothing() error {
	if m.Unseen > 0 {
		return fmt.Errorf("%w on database %s: the server ran %s prepared statements (binary protocol) that its digest summary does not break down by statement (MariaDB; see docs/capture.md)", ErrNothing, m.Source.Database, group(m.Unseen))
	}
	return fmt.Errorf("%w on database %s: is the application running, and on this database?", ErrNothing, m.Source.Database)
}

// ErrRender wraps a file capture wrote that the workload file's checker
// refuses: a bug of capture's, never the user's.
var ErrRender = errors.New("capture wrote a workload file it cannot read back")

// Render writes the model as a workload file, with a comment on every
// guess and a TODO where capture could not tell, and checks that
// workfile.Parse accepts it. A transaction the checker refuses (a
// statement capture's scanner read otherwise than the checker's) is left
// out, with a note in the header, and 1x recomputed without it. name is
// how problems would call the file.
func (m *Model) Render(name string) ([]byte, error) {
	if len(m.Txs) == 0 {
		return nil, m.nothing()
	}
	writes := false
	for {
		out, blocks := m.render(writes)
		if len(out) > workfile.MaxFile {
			if len(m.Txs) == 1 {
				return out, fmt.Errorf("%w: one transaction of %d statements makes a file of %d bytes, over the workload file's limit of %d MiB", ErrRender, len(m.Txs[0].Stmts), len(out), workfile.MaxFile>>20)
			}
			m.fit(out, blocks)
			continue
		}
		spec, err := workfile.Parse(name, out)
		var perr *workfile.Error
		if errors.As(err, &perr) {
			drop := map[int]bool{}
			for _, p := range perr.Problems {
				i := blockOf(blocks, p.Line)
				if i < 0 {
					return out, fmt.Errorf("%w: %v", ErrRender, err) // not the file's ErrInvalid: the user did nothing wrong
				}
				drop[i] = true
			}
			for i, tx := range m.Txs {
				if !drop[i] {
					continue
				}
				m.Notes = append(m.Notes, fmt.Sprintf("left out: transaction %s (%s calls), which the workload file's checker refuses as capture wrote it", tx.Name, group(tx.Calls)))
			}
			if m.leaveOut(drop); len(m.Txs) == 0 {
				return nil, fmt.Errorf("%w that the workload file's checker accepts as capture wrote it (%v)", ErrNothing, err)
			}
			continue
		}
		if err != nil {
			return out, fmt.Errorf("%w: %v", ErrRender, err)
		}
		if spec.Writes() && !writes {
			writes = true
			continue
		}
		return out, nil
	}
}

// ReplayThreads is how many virtual users a replay of the file up to 5x
// wants: twice the transactions in flight at 5x by Little's law (the rate
// times a transaction's time: its statements' mean times and a millisecond's
// round trip each), and 16 at least: an open loop's idle users cost
// nothing, and too few start late.
func (m *Model) ReplayThreads() int {
	var calls int64
	var ms float64
	for _, tx := range m.Txs {
		for _, st := range tx.Stmts {
			ms += float64(tx.Calls) * (st.MeanMs + 1)
		}
		calls += tx.Calls
	}
	if calls == 0 {
		return 16
	}
	inFlight := 5 * m.Rate * ms / float64(calls) / 1000
	return min(max(16, int(math.Ceil(2*inFlight))), 1024)
}

// fit leaves out the least-called transactions, as many as make the file
// (out, its transactions' lines in blocks) fit the workload file's limit
// (workfile.MaxFile), with a note: a capture of thousands of statements
// (MariaDB's long texts among them) is cut, never lost.
func (m *Model) fit(out []byte, blocks [][2]int) {
	lines := bytes.SplitAfter(out, []byte("\n"))
	size := func(b [2]int) (n int) {
		for l := b[0]; l <= b[1] && l-1 < len(lines); l++ {
			n += len(lines[l-1])
		}
		return n
	}
	order := make([]int, len(m.Txs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(m.Txs[a].Calls, m.Txs[b].Calls) })
	over := len(out) - workfile.MaxFile*9/10 // room for the note and the parameters
	drop := map[int]bool{}
	var calls int64
	for _, i := range order {
		if over <= 0 || len(drop) == len(m.Txs)-1 {
			break
		}
		drop[i] = true
		calls += m.Txs[i].Calls
		over -= size(blocks[i])
	}
	m.Notes = append(m.Notes, fmt.Sprintf("left out: the %d least-called transactions (%s calls), to keep the file under the workload file's limit of %d MiB", len(drop), group(calls), workfile.MaxFile>>20))
	m.leaveOut(drop)
}

// leaveOut removes the transactions in drop, and their calls and time from
// the rate and the shares the header states.
func (m *Model) leaveOut(drop map[int]bool) {
	var kept []Tx
	var calls int64
	for i, tx := range m.Txs {
		if !drop[i] {
			kept = append(kept, tx)
			calls += tx.Calls
			continue
		}
		var stmtCalls int64
		var ms float64
		for _, st := range tx.Stmts {
			stmtCalls += st.Calls
			ms += float64(st.Calls) * st.MeanMs
		}
		if m.Calls > 0 {
			m.CoveredCalls -= float64(stmtCalls) / float64(m.Calls)
		}
		if m.TimeMs > 0 {
			m.CoveredTime -= ms / m.TimeMs
		}
	}
	m.Txs = kept
	if s := m.Window.Seconds(); s > 0 && len(kept) > 0 {
		m.Rate = float64(calls) / s
	}
	// The tables and parameters only the left-out statements named go too.
	var tables []string
	used := map[string]bool{}
	for _, tx := range kept {
		for _, st := range tx.Stmts {
			for _, t := range st.Tables {
				if !slices.Contains(tables, t) {
					tables = append(tables, t)
				}
			}
			toks, _ := sqltext.Lex(st.Text, flavor(m.Source.Dialect == "mysql"))
			for _, r := range sqltext.Refs(toks) {
				used[r.Name] = true
			}
		}
	}
	m.Tables = slices.DeleteFunc(m.Tables, func(t string) bool { return !slices.Contains(tables, t) })
	m.Params = slices.DeleteFunc(m.Params, func(p Param) bool { return !used[p.Name] })
}

// blockOf is the index of the transaction whose lines hold line, or -1.
func blockOf(blocks [][2]int, line int) int {
	for i, b := range blocks {
		if line >= b[0] && line <= b[1] {
			return i
		}
	}
	return -1
}

// header writes the file's comment header: where it came from, what it
// holds and left out, and how to replay it.
func (m *Model) header(w func(string, ...any), writes bool) {
	src := m.Source
	w("# Captured by rightsize capture from %s, database %s, over %s from %s.",
		src.Server, src.Database, m.Window.Round(time.Second), src.Start.UTC().Format(time.RFC3339))
	w("#")
	w("# In the window the application ran %s statements (%s per second); the", group(m.Calls), fmtRate(float64(m.Calls)/m.Window.Seconds()))
	w("# ones below make up %.1f %% of those calls and %.1f %% of their time.", 100*m.CoveredCalls, 100*m.CoveredTime)
	if m.Traced != nil {
		w("# Each transaction's weight is how often the log saw it run in the window")
		w("# (scaled to the statistics' calls where the log saw fewer), so the mix is")
	} else {
		w("# Each transaction's weight is its calls in the window, so the mix is")
	}
	w("# production's; baseline_rate (what --rate 1x means) is the rate at which")
	w("# the transactions replay those calls: %s per second.", fmtRate(m.Rate))
	if m.ServerTx >= 0 {
		w("# The server counted %s transactions per second (%s).", fmtRate(m.ServerTx), src.TxCounter)
		if math.Abs(m.ServerTx-m.Rate) > 0.1*m.Rate {
			w("# That differs from the rate above: the server also counts the implicit")
			w("# transactions of drivers (PostgreSQL's extended protocol: a statement")
			w("# prepared outside a transaction is one), other clients' and statements")
			w("# left out; 1x replays the captured statements' calls instead.")
		}
	} else if src.TxCounter != "" {
		w("# %s", src.TxCounter)
	}
	if m.Evicted > 0 {
		w("# The statistics dropped %s entries in the window for lack of room", group(m.Evicted))
		w("# (pg_stat_statements.max, performance_schema_digests_size): statements")
		w("# may be missing or undercounted; raise the setting and capture again.")
	}
	if m.Unseen > 0 {
		w("# TODO: %s executions of prepared statements (binary protocol) are not", group(m.Unseen))
		w("# broken down by statement in the server's digest summary, so they are not")
		w("# in this file (MariaDB records their count only): see docs/capture.md.")
	}
	if t := m.Traced; t != nil {
		m.traceHeader(w, t)
	}
	for _, n := range m.Notes {
		w("# Note: %s", n)
	}
	w("#")
	w("# Read it before running it: each parameter's comment says what capture")
	w("# guessed it stands for, and TODO marks what it could not tell. No value of")
	w("# production is in this file: statements are normalized, and values are")
	if m.Traced != nil {
		w("# drawn at run time (sampled from the target's own columns), but for the")
		w("# ranges of numbers the log showed (amounts, limits, constants, keys' bounds).")
		w("# Then, on a copy:")
	} else {
		w("# drawn at run time (sampled from the target's own columns). Then, on a copy:")
	}
	w("#")
	consent := ""
	if writes {
		consent = " --allow-writes"
	}
	w("#   rightsize sweep FILE.yaml --rate 1x,2x,3x,4x,5x --threads %d%s --target COPY_URL", m.ReplayThreads(), consent)
	w("#")
	w("# --threads are the virtual users that offer the rate: enough for 5x at")
	w("# production's statement times and a round trip each, with room to spare")
	w("# (an open loop with too few starts late: the result counts the delays).")
}

// traceHeader says what the statement log added.
func (m *Model) traceHeader(w func(string, ...any), t *Traced) {
	w("#")
	w("# The server's statement log (%s) showed %s transactions of these", t.From, group(t.Txs))
	w("# statements from %d sessions; on average %.2f sessions were inside a", t.Sessions, t.Active)
	w("# transaction at once, and a session paused %s ms between two (the mean;", fmtMs(t.ThinkMs))
	w("# each transaction's think time). The transactions below are the log's: the")
	w("# statements each one ran, in their order; each parameter's comment says")
	w("# what its values showed.")
	if t.Incomplete() {
		w("# WARNING: the log showed %.0f %% of the calls the statistics counted: were", 100/t.Scale)
		w("# statements logged apart (log_min_duration_statement above 0, sampling), or")
		w("# did the log move to a file --log did not name? Weights are scaled up.")
	}
	if t.Unaligned > 0 {
		w("# %s executions' text did not match their statement's normalized text:", group(t.Unaligned))
		w("# their values were not read.")
	}
}

// render writes the file and returns, for each transaction, its first
// and last lines.
func (m *Model) render(writes bool) ([]byte, [][2]int) {
	var b strings.Builder
	var blocks [][2]int
	lines := 0 // written so far: a transaction's first and last
	w := func(format string, args ...any) {
		at := b.Len()
		fmt.Fprintf(&b, format+"\n", args...)
		lines += strings.Count(b.String()[at:], "\n")
	}
	m.header(w, writes)
	src := m.Source
	w("version: 1")
	w("name: %s", m.Name)
	w("description: %s", quote(fmt.Sprintf("%s captured from %s over %s", src.Database, src.Server, m.Window.Round(time.Second))))
	w("dialects: [%s]", src.Dialect)
	w("baseline_rate: %s", strconv.FormatFloat(max(m.Rate, 0.001), 'f', 3, 64))
	if writes {
		w("# Its statements write tables that exist in the target (a copy of")
		w("# production, never production itself): give your consent here, or")
		w("# with --allow-writes on the command line.")
		w("# allow_writes: true")
	}
	w("tables:")
	if len(m.Tables) == 0 {
		w("  # TODO: capture found no table of the target's catalog in the statements.")
		w("  - {name: todo_table, existing: true}")
	}
	for _, t := range m.Tables {
		if slices.Contains(m.Unknown, t) {
			w("  # TODO: a statement writes %s, which the catalog capture read does not show", t)
			w("  # (another schema, a view?): check that the copy has it.")
		}
		w("  - {name: %s, existing: true}", t)
	}
	if len(m.Params) > 0 {
		w("params:")
		for _, p := range m.Params {
			w("  # %s", p.Comment)
			w("  %s: %s", p.Name, p.Value)
		}
	}
	w("transactions:")
	total := int64(0)
	for _, tx := range m.Txs {
		total += tx.Calls
	}
	for _, tx := range m.Txs {
		w("")
		first := lines + 1
		for _, c := range tx.Comment {
			w("  # %s", c)
		}
		w("  - name: %s", tx.Name)
		w("    weight: %d  # %.1f %% of the transactions", tx.Calls, 100*float64(tx.Calls)/float64(max(total, 1)))
		if !tx.Grouped {
			w("    autocommit: true")
		}
		if tx.Think > 0 {
			w("    think: %v  # production's sessions' mean pause between transactions (a closed loop's; --rate ignores it)", time.Duration(tx.Think*float64(time.Millisecond)).Round(time.Microsecond))
			w("    think_dist: exponential")
		}
		w("    statements:")
		for _, s := range tx.Stmts {
			w("      # %s calls, %.3f ms mean, %.1f rows per call", group(s.Calls), s.MeanMs, s.Rows)
			for _, c := range s.Comment {
				w("      # %s", c)
			}
			w("      - %s", quote(s.Text))
		}
		blocks = append(blocks, [2]int{first, lines})
	}
	return []byte(b.String()), blocks
}

// quote is s as a YAML double-quoted scalar.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', 1, 64) }
