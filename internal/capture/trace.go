package capture

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/sqltext"
)

// Trace is what a server's own statement log said about the window, read
// against the statements its statistics counted: which statements ran
// together in one transaction and in what order, the values their
// parameters took, and how the sessions spread their transactions.
type Trace struct {
	From string // what was read, for the file's header
	// Execs counts the executions of counted statements the log showed;
	// Other the logged statements the statistics did not count (another
	// database's, capture's own, transaction control).
	Execs, Other int64
	// Seqs are the transactions seen, by their statements' IDs in order;
	// OtherTxs counts those of sequences past maxSeqs.
	Seqs     map[string]*Seq
	OtherTxs int64
	// Values counts, per statement ID and per position of a placeholder
	// or literal among its normalized text's tokens, the values taken.
	Values map[string]map[int]*Counts
	// Unaligned counts executions whose text did not match their
	// statement's normalized text token for token (values not read).
	Unaligned int64
	Sessions  int
	// BusyMs sums the transactions' spans (first statement's start to last
	// one's end): over the window, the mean number of sessions inside a
	// transaction.
	BusyMs float64
	// Gaps samples the times a session spent between the end of one
	// transaction and the start of its next one, in milliseconds.
	Gaps []float64

	// NoThink tells that the log's times cannot show the pauses between
	// transactions (MySQL's slow log: whole seconds): Gaps stays empty.
	NoThink bool

	sessions map[string]*openTx
	norm     map[string][]tok // statement ID -> its normalized text's tokens
	mysql    bool
	distinct int                      // distinct values kept, over every parameter
	shapes   map[string]string        // MySQL: a statement's shape -> its ID
	lists    map[string]map[int]int64 // MySQL: an ID's IN list lengths, counted
}

// Seq is one sequence of statements that ran as one transaction.
type Seq struct {
	IDs   []string
	Count int64
	// Spans samples the transaction's time inside the server, in
	// milliseconds.
	Spans []float64
	// Eq counts, for two slots (a statement's place in the sequence and a
	// token's index in it, twice), the transactions in which they took
	// the same value, out of EqTxs whose every value was read.
	Eq    map[[4]int]int64
	EqTxs int64
}

// slotVal is a value one slot of an open transaction took.
type slotVal struct {
	pos, at int
	v       string
}

// Counts are the values one parameter took, with how often; past
// maxValues distinct values, the rest are counted in Over.
type Counts struct {
	N    map[string]int64
	Over int64
}

const (
	maxValues  = 200_000
	maxSamples = 20_000
	maxSpans   = 2_000 // per sequence
	// maxSeqs bounds the sequences kept; a transaction of another is
	// counted in OtherTxs.
	maxSeqs = 10_000
	// maxEqValues bounds the values of a transaction compared pairwise for
	// equality (a transaction of more is not compared).
	maxEqValues = 64
	// maxDistinct bounds the distinct values a trace keeps over all its
	// parameters (the memory of a long window of a large application);
	// past it, new values are counted in their parameter's Over.
	maxDistinct = 2_000_000
)

type openTx struct {
	vxid       string
	ids        []string
	vals       []slotVal
	partial    bool // a value was not read
	start, end time.Time
	lastEnd    time.Time // the session's previous transaction's end
}

// NewTrace starts a trace of the statements of d: their IDs and
// normalized texts.
func NewTrace(from string, d Delta) *Trace {
	tr := &Trace{From: from, Seqs: map[string]*Seq{}, Values: map[string]map[int]*Counts{}, sessions: map[string]*openTx{}, norm: map[string][]tok{}}
	for _, s := range d.Stmts {
		// Transaction control and the catalogs' statements are not the
		// application's: the log's transaction IDs delimit transactions.
		if toks := lex(s.Text, false); toks != nil && classOf(toks) != classUtility && !isSystem(s.Text, toks) {
			tr.norm[s.ID] = toks
		}
	}
	return tr
}

// PostgreSQL's csvlog columns (13 through 17 keep these places; query_id,
// the last one read, came in 14).
const (
	csvTime, csvDB, csvSession, csvVXID, csvMessage, csvDetail, csvQueryID = 0, 2, 5, 9, 13, 14, 25
)

// ErrLog wraps a statement log capture cannot read.
var ErrLog = errors.New("cannot read the statement log")

// ReadPostgresCSV reads PostgreSQL csvlog lines (log_destination =
// 'csvlog', log_min_duration_statement = 0) for database db into tr: each
// "duration: ... ms" line of a statement the statistics counted (by its
// query_id), grouped by session and virtual transaction ID.
func (tr *Trace) ReadPostgresCSV(r io.Reader, db string) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrLog, err)
		}
		if len(rec) <= csvQueryID {
			if len(rec) > csvMessage && strings.HasPrefix(rec[csvMessage], "duration: ") {
				return fmt.Errorf("%w: its lines have no query_id (PostgreSQL 14 or later writes it in csvlog)", ErrLog)
			}
			continue
		}
		if rec[csvDB] != db || !strings.HasPrefix(rec[csvMessage], "duration: ") {
			continue
		}
		tr.line(rec)
	}
	tr.flush()
	return nil
}

// line takes one duration line of the log.
func (tr *Trace) line(rec []string) {
	ms, text, ok := duration(rec[csvMessage])
	if !ok {
		return // a parse or bind step of the extended protocol
	}
	end, err := time.Parse("2006-01-02 15:04:05.000 MST", rec[csvTime])
	if err != nil {
		return
	}
	vx := rec[csvVXID]
	tr.exec(execution{session: rec[csvSession], tx: vx, alone: strings.HasSuffix(vx, "/0"), id: rec[csvQueryID],
		start: end.Add(-time.Duration(ms * float64(time.Millisecond))), end: end, text: text, params: params(rec[csvDetail])})
}

// execution is one statement's execution as a log shows it.
type execution struct {
	session string
	// tx identifies the session's transaction; alone tells a statement
	// outside any (PostgreSQL's vxid x/0).
	tx         string
	alone      bool
	id         string // the statement's ID in the statistics
	start, end time.Time
	text       string   // as run: its literals, or placeholders
	params     []string // the placeholders' values, by number
}

// exec takes one execution of a statement: into its session's open
// transaction (closing the one before when it is another), its values
// into the counts.
func (tr *Trace) exec(e execution) {
	norm, counted := tr.norm[e.id]
	if !counted {
		tr.Other++
		return
	}
	tr.Execs++
	o := tr.sessions[e.session]
	if o == nil {
		o = &openTx{}
		tr.sessions[e.session] = o
		tr.Sessions++
	}
	if e.tx != o.vxid || e.alone {
		tr.close(o)
		o.vxid, o.start = e.tx, e.start
	}
	o.ids = append(o.ids, e.id)
	o.end = e.end
	if e.text == "" || !tr.values(o, e.id, norm, e.text, e.params) {
		o.partial = true
	}
}

// close ends the transaction o holds.
func (tr *Trace) close(o *openTx) {
	if len(o.ids) == 0 {
		return
	}
	key := strings.Join(o.ids, "\x00")
	s := tr.Seqs[key]
	if s == nil && len(tr.Seqs) >= maxSeqs {
		tr.OtherTxs++
		o.ids, o.vals, o.partial = o.ids[:0], o.vals[:0], false
		return
	}
	if s == nil {
		s = &Seq{IDs: slices.Clone(o.ids), Eq: map[[4]int]int64{}}
		tr.Seqs[key] = s
	}
	s.Count++
	if !o.partial && len(o.vals) <= maxEqValues {
		s.EqTxs++
		for i, a := range o.vals {
			for _, b := range o.vals[i+1:] {
				if a.v == b.v {
					s.Eq[[4]int{a.pos, a.at, b.pos, b.at}]++
				}
			}
		}
	}
	span := float64(o.end.Sub(o.start)) / float64(time.Millisecond)
	if len(s.Spans) < maxSpans {
		s.Spans = append(s.Spans, span)
	}
	tr.BusyMs += span
	if !o.lastEnd.IsZero() && len(tr.Gaps) < maxSamples && !tr.NoThink {
		tr.Gaps = append(tr.Gaps, max(float64(o.start.Sub(o.lastEnd))/float64(time.Millisecond), 0))
	}
	o.lastEnd = o.end
	o.ids, o.vals, o.partial = o.ids[:0], o.vals[:0], false
}

func (tr *Trace) flush() {
	for _, o := range tr.sessions {
		tr.close(o)
	}
}

// duration splits "duration: 0.123 ms  statement: SELECT ..." (or
// "execute <name>: ...", or no text when log_statement logged it) into
// the time and the text; ok is false for a parse or bind step.
func duration(msg string) (ms float64, text string, ok bool) {
	rest := strings.TrimPrefix(msg, "duration: ")
	num, rest, _ := strings.Cut(rest, " ms")
	ms, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, "", false
	}
	rest = strings.TrimLeft(rest, " ")
	switch {
	case rest == "":
		return ms, "", true
	case strings.HasPrefix(rest, "statement: "):
		return ms, rest[len("statement: "):], true
	case strings.HasPrefix(rest, "execute "):
		if _, t, found := strings.Cut(rest, ": "); found {
			return ms, t, true
		}
	}
	return 0, "", false
}

// params reads a detail's "parameters: $1 = '2', $2 = NULL" into a list
// indexed by the placeholder's number (index 0 unused; NULL is "").
func params(detail string) []string {
	rest, ok := strings.CutPrefix(detail, "parameters: ")
	if !ok {
		return nil
	}
	out := []string{""}
	for rest != "" {
		if !strings.HasPrefix(rest, "$") {
			return out
		}
		num, after, found := strings.Cut(rest[1:], " = ")
		n, err := strconv.Atoi(num)
		if !found || err != nil || n != len(out) {
			return out
		}
		var v string
		if strings.HasPrefix(after, "NULL") {
			after = after[len("NULL"):]
		} else if strings.HasPrefix(after, "'") {
			end, closed := sqltext.Quoted(after, 0, '\'', false)
			if !closed {
				return out
			}
			v = strings.ReplaceAll(after[1:end-1], "''", "'")
			after = after[end:]
		} else {
			return out
		}
		out = append(out, v)
		rest = strings.TrimPrefix(after, ", ")
	}
	return out
}

// values reads the values of one execution's placeholders and literals by
// walking its text against the normalized text, token for token, into
// the counts and the open transaction o; false when they do not match.
func (tr *Trace) values(o *openTx, id string, norm []tok, text string, ps []string) bool {
	got, _ := sqltext.Lex(text, flavor(tr.mysql))
	slots := tr.Values[id]
	if slots == nil {
		slots = map[int]*Counts{}
		tr.Values[id] = slots
	}
	type val struct {
		at int
		v  string
	}
	var vals []val
	j := 0
	for i, n := range norm {
		if j >= len(got) {
			tr.Unaligned++
			return false
		}
		g := got[j]
		if !n.placeholder() && n.Kind != sqltext.String && n.Kind != sqltext.Number {
			if !sameToken(n, g) {
				tr.Unaligned++
				return false
			}
			j++
			continue
		}
		v, used, ok := constant(got, j, ps)
		if !ok {
			tr.Unaligned++
			return false
		}
		vals = append(vals, val{i, v})
		j += used
	}
	if j != len(got) && !(j == len(got)-1 && got[j].Text == ";") {
		tr.Unaligned++
		return false
	}
	pos := len(o.ids) - 1
	for _, v := range vals {
		o.vals = append(o.vals, slotVal{pos, v.at, v.v})
		c := slots[v.at]
		if c == nil {
			c = &Counts{N: map[string]int64{}}
			slots[v.at] = c
		}
		if _, seen := c.N[v.v]; !seen && tr.distinct >= maxDistinct {
			c.Over++
			continue
		}
		if c.add(v.v) {
			tr.distinct++
		}
	}
	return true
}

// sameToken reports whether a token of a normalized text and one of an
// execution's are the same: names alike whether quoted or not, in any
// case; anything else as written.
func sameToken(n tok, g sqltext.Token) bool {
	name := func(k sqltext.Kind) bool { return k == sqltext.Word || k == sqltext.Ident }
	if name(n.Kind) && name(g.Kind) {
		return strings.EqualFold(n.Text, g.Text)
	}
	return n.Kind == g.Kind && n.Text == g.Text
}

// constant is the value the tokens at got[j] stand for where the
// normalized text has a placeholder: a literal (a sign and a number too),
// or a placeholder whose value the log's parameters give.
func constant(got []sqltext.Token, j int, ps []string) (v string, used int, ok bool) {
	g := got[j]
	switch g.Kind {
	case sqltext.String:
		return strings.ReplaceAll(g.Text, "''", "'"), 1, true
	case sqltext.Number:
		return g.Text, 1, true
	case sqltext.DollarN:
		n, err := strconv.Atoi(g.Text[1:])
		if err != nil || n <= 0 || n >= len(ps) {
			return "", 1, false
		}
		return ps[n], 1, true
	case sqltext.Punct:
		if (g.Text == "-" || g.Text == "+") && j+1 < len(got) && got[j+1].Kind == sqltext.Number {
			return strings.TrimPrefix(g.Text, "+") + got[j+1].Text, 2, true
		}
	case sqltext.Word:
		if u := g.Upper(); u == "E" && j+1 < len(got) && got[j+1].Kind == sqltext.String && got[j+1].Start == g.End {
			return got[j+1].Text, 2, true
		}
		if u := g.Upper(); u == "TRUE" || u == "FALSE" || u == "NULL" {
			return strings.ToLower(u), 1, true
		}
	}
	return "", 0, false
}

// add counts v, and reports whether it is a value c had not seen.
func (c *Counts) add(v string) bool {
	n, ok := c.N[v]
	if ok || len(c.N) < maxValues {
		c.N[v] = n + 1
		return !ok
	}
	c.Over++
	return false
}

// total is the number of values counted.
func (c *Counts) total() int64 {
	t := c.Over
	for _, n := range c.N {
		t += n
	}
	return t
}

// sorted is the counts, most frequent first.
func (c *Counts) sorted() []int64 {
	out := make([]int64, 0, len(c.N))
	for _, n := range c.N {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(b, a) })
	return out
}
