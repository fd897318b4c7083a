package capture

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/rightsize/rightsize/internal/sqltext"
)

// Traced is what the model took from a statement log, for the header.
type Traced struct {
	From     string
	Txs      int64 // transactions the log showed of the file's statements
	Sessions int
	// Active is the mean number of sessions inside a transaction;
	// ThinkMs the mean time a session spent between two transactions.
	Active, ThinkMs float64
	// Scale is the statistics' calls of the file's statements over the
	// log's (1: the log saw every call).
	Scale     float64
	Unaligned int64
}

// seq is a sequence of the kept statements (their indexes) that ran as
// one transaction, the log's sequences that are it but for statements not
// kept merged.
type seq struct {
	idx   []int
	count int64
	spans []float64
	eq    *Seq // the largest sequence of the log that is all of idx
}

// mergeSeqs is tr's sequences as sequences of kept statements, with the
// transactions they count and their statements' calls.
func mergeSeqs(kept []cand, tr *Trace) (merged map[string]*seq, total, calls int64) {
	byID := map[string]int{}
	for i, c := range kept {
		byID[c.st.ID] = i
	}
	merged = map[string]*seq{}
	for _, s := range tr.Seqs {
		var idx []int
		for _, id := range s.IDs {
			if i, ok := byID[id]; ok {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			continue
		}
		key := fmt.Sprint(idx)
		q := merged[key]
		if q == nil {
			q = &seq{idx: idx}
			merged[key] = q
		}
		q.count += s.Count
		q.spans = append(q.spans, s.Spans...)
		if len(idx) == len(s.IDs) && (q.eq == nil || s.Count > q.eq.Count) {
			q.eq = s
		}
		total += s.Count
		calls += s.Count * int64(len(idx))
	}
	return merged, total, calls
}

// Incomplete tells that the log showed less than 90 % of the calls the
// statistics counted of the statements it did show.
func (t *Traced) Incomplete() bool { return t.Scale > 1/0.9 }

// tracedTransactions groups the kept statements as the log's
// transactions ran them, in their order, each sequence of statements a
// transaction of the file weighted by how often it ran (scaled to the
// statistics' calls); the rarest sequences beyond Coverage are left out
// with a note. It returns nil when tr shows none of them.
func (m *Model) tracedTransactions(kept []cand, tr *Trace) []Tx {
	if tr == nil {
		return nil
	}
	merged, total, calls := mergeSeqs(kept, tr)
	if total == 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("the statement log (%s) showed none of these statements: transactions are grouped from the statistics alone", tr.From))
		return nil
	}
	if tr.OtherTxs > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("the log showed more than %s different sequences of statements: %s transactions of the others were not kept", group(maxSeqs), group(tr.OtherTxs)))
	}
	seen := map[int]bool{}
	for _, q := range merged {
		for _, i := range q.idx {
			seen[i] = true
		}
	}
	seqs := make([]*seq, 0, len(merged))
	for _, q := range merged {
		seqs = append(seqs, q)
	}
	slices.SortStableFunc(seqs, func(a, b *seq) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(fmt.Sprint(a.idx), fmt.Sprint(b.idx)))
	})
	var stmtCalls int64
	var unseen []cand
	for i, c := range kept {
		if seen[i] {
			stmtCalls += c.st.Calls
		} else {
			unseen = append(unseen, c)
		}
	}
	scale := float64(stmtCalls) / float64(calls)
	m.Traced = &Traced{From: tr.From, Txs: total, Sessions: tr.Sessions, Scale: scale, Unaligned: tr.Unaligned,
		Active: tr.BusyMs / max(m.Window.Seconds()*1000, 1), ThinkMs: meanOf(tr.Gaps)}
	names := map[string]bool{}
	var txs []Tx
	var got, left int64
	for k, q := range seqs {
		if float64(got) >= Coverage*float64(total) {
			left += q.count
			if k == len(seqs)-1 {
				m.Notes = append(m.Notes, fmt.Sprintf("left out: %d rarer sequences of statements the log showed as transactions (%s of %s transactions)", len(seqs)-len(txs), group(left), group(total)))
			}
			continue
		}
		got += q.count
		txs = append(txs, m.tracedTx(kept, q.idx, q.count, scale, q.spans, q.eq, names))
	}
	if len(unseen) > 0 {
		// Counted by the statistics, never seen in the log (prepared
		// statements a log does not show, a text the log wrote otherwise):
		// grouped as the statistics alone would group them.
		var calls int64
		for _, c := range unseen {
			calls += c.st.Calls
		}
		m.Notes = append(m.Notes, fmt.Sprintf("%d statements the statistics counted (%s calls) were not in the log: grouped from the statistics alone", len(unseen), group(calls)))
		for _, tx := range m.transactions(unseen) {
			tx.Name = txName(tx.Stmts, tx.tables(), names)
			txs = append(txs, tx)
		}
	}
	return txs
}

// tables are the tables tx's statements name, in order.
func (tx Tx) tables() []string {
	var tabs []string
	for _, s := range tx.Stmts {
		for _, t := range s.Tables {
			if !slices.Contains(tabs, t) {
				tabs = append(tabs, t)
			}
		}
	}
	return tabs
}

// tracedTx is one sequence of the log as a transaction.
func (m *Model) tracedTx(kept []cand, idx []int, count int64, scale float64, spans []float64, eq *Seq, names map[string]bool) Tx {
	tx := Tx{Calls: max(int64(math.Round(float64(count)*scale)), 1), Grouped: len(idx) > 1}
	var tabs []string
	rename := m.unify(kept, idx, eq)
	for p, i := range idx {
		st := kept[i].sql
		for old, to := range rename[p] {
			st.Text = renameParam(st.Text, old, to)
		}
		tx.Stmts = append(tx.Stmts, st)
		for _, t := range kept[i].sql.Tables {
			if !slices.Contains(tabs, t) {
				tabs = append(tabs, t)
			}
			if !slices.Contains(m.Tables, t) {
				m.Tables = append(m.Tables, t)
			}
		}
	}
	tx.Name = txName(tx.Stmts, tabs, names)
	what := "this statement, in a transaction of its own"
	if tx.Grouped {
		what = fmt.Sprintf("these %d statements in this order, in one transaction", len(idx))
	}
	tx.Comment = append(tx.Comment, fmt.Sprintf("From the server's log: %s transactions ran %s;", group(count), what),
		fmt.Sprintf("inside the server they took %s ms at the median, %s ms at the 95th percentile.", fmtMs(quantile(spans, 0.5)), fmtMs(quantile(spans, 0.95))))
	if m.Traced != nil && m.Traced.ThinkMs > 0 {
		tx.Think = m.Traced.ThinkMs
	}
	return tx
}

// minEqTxs is how many transactions must show two values always equal
// before they are taken for one.
const minEqTxs = 10

// unify finds the parameters of a transaction (its statements kept[idx])
// that took the same value in (nearly) every transaction the log showed,
// as a key carried from one statement to the next does (a customer read,
// then its order inserted), and names each such group after its best
// parameter: per statement position, the names to replace.
func (m *Model) unify(kept []cand, idx []int, eq *Seq) []map[string]string {
	rename := make([]map[string]string, len(idx))
	if eq == nil || eq.EqTxs < minEqTxs {
		return rename
	}
	type slot struct{ pos, at int }
	root := map[slot]slot{}
	var find func(s slot) slot
	find = func(s slot) slot {
		r, ok := root[s]
		if !ok || r == s {
			return s
		}
		r = find(r)
		root[s] = r
		return r
	}
	for k, n := range eq.Eq {
		a, b := slot{k[0], k[1]}, slot{k[2], k[3]}
		if float64(n) < 0.99*float64(eq.EqTxs) || a.pos >= len(idx) || b.pos >= len(idx) {
			continue
		}
		if kept[idx[a.pos]].slots[a.at] == "" || kept[idx[b.pos]].slots[b.at] == "" {
			continue
		}
		ra, rb := find(a), find(b)
		if ra != rb {
			root[rb] = ra
		}
	}
	best := map[slot]string{}
	for p, i := range idx {
		for at, name := range kept[i].slots {
			r := find(slot{p, at})
			if cur, ok := best[r]; !ok || m.paramRank(name) < m.paramRank(cur) || m.paramRank(name) == m.paramRank(cur) && name < cur {
				best[r] = name
			}
		}
	}
	for p, i := range idx {
		for at, name := range kept[i].slots {
			if to := best[find(slot{p, at})]; to != name {
				if rename[p] == nil {
					rename[p] = map[string]string{}
				}
				rename[p][name] = to
			}
		}
	}
	return rename
}

// paramRank orders the parameters a group of equal values may be named
// after: a sampled key first, then a range the log showed, any other
// guess, and a TODO last.
func (m *Model) paramRank(name string) int {
	for _, p := range m.Params {
		if p.Name != name {
			continue
		}
		switch {
		case p.TODO:
			return 3
		case strings.HasPrefix(p.Value, "{type: sample") && p.col != nil && p.col.Unique:
			return 0
		case strings.HasPrefix(p.Value, "{type: int"):
			return 1
		}
		return 2
	}
	return 4
}

// renameParam replaces the :old references of a statement with :to.
func renameParam(text, old, to string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, ":"+old)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + 1 + len(old)
		b.WriteString(text[:i])
		if end < len(text) && sqltext.IdentChar(text[end]) || i > 0 && text[i-1] == ':' {
			b.WriteString(text[i:end])
		} else {
			b.WriteString(":" + to)
		}
		text = text[end:]
	}
}

// pruneParams leaves out the parameters no statement names any longer.
func (m *Model) pruneParams() {
	used := map[string]bool{}
	for _, tx := range m.Txs {
		for _, st := range tx.Stmts {
			toks, _ := sqltext.Lex(st.Text, flavor(m.Source.Dialect == "mysql"))
			for _, r := range sqltext.Refs(toks) {
				used[r.Name] = true
			}
		}
	}
	m.Params = slices.DeleteFunc(m.Params, func(p Param) bool { return !used[p.Name] })
}

// traceValues shapes the parameters by the values the log showed: a
// sampled key drawn as unevenly as production drew it (zipfian, fitted),
// and an amount, LIMIT or OFFSET capture could only guess over the range
// production used.
func (m *Model) traceValues(kept []cand, tr *Trace) {
	if tr == nil {
		return
	}
	// Each parameter's values are one slot's, the most counted: a
	// parameter used twice in a transaction would count its value twice.
	byName := map[string]*Counts{}
	for _, c := range kept {
		for at, name := range c.slots {
			v := tr.Values[c.st.ID][at]
			if v != nil && (byName[name] == nil || v.total() > byName[name].total()) {
				byName[name] = v
			}
		}
	}
	for i := range m.Params {
		p := &m.Params[i]
		if c := byName[p.Name]; c != nil {
			p.shape(c)
		}
	}
}

// shape rewrites p from the values c it took in production.
func (p *Param) shape(c *Counts) {
	switch {
	case strings.HasPrefix(p.Value, "{type: sample"):
		var n int64
		if p.col != nil && p.col.Unique && p.col.Range {
			n = p.col.Max - p.col.Min + 1
		}
		if !strings.Contains(p.Value, "min:") {
			if lo, hi, ok := intRange(c); ok {
				p.Value = strings.TrimSuffix(p.Value, "}") + fmt.Sprintf(", min: %d, max: %d}", lo, hi)
				p.Comment += fmt.Sprintf("; when the copy's column is empty, drawn from %d to %d, the range the server's log showed", lo, hi)
			}
		}
		sk := skewOf(c, n)
		what := fmt.Sprintf("from the server's log: %s values, %s distinct", group(sk.Calls), group(int64(sk.Distinct)))
		if sk.Uniform || sk.S < 0.05 {
			p.Comment += fmt.Sprintf("; %s, as even as a uniform draw of %s values", what, group(sk.Of))
			return
		}
		s := zipfParameter(sk.S)
		p.Value = strings.TrimSuffix(p.Value, "}") + ", dist: zipfian, parameter: " + strconv.FormatFloat(s, 'f', -1, 64) + "}"
		p.Comment += fmt.Sprintf("; %s: the busiest 1 %% of %s values took %.1f %% of the calls, drawn as zipfian %g over the sampled values (which ones are hot is not kept)", what, group(sk.Of), 100*sk.Top, s)
	case p.TODO && strings.HasPrefix(p.Value, "{type: int"):
		what := p.role
		if what == roleNone {
			what = "what it stands for is not known"
		}
		if lo, hi, ok := intRange(c); ok {
			p.Value = fmt.Sprintf("{type: int, min: %d, max: %d}", lo, hi)
		} else if lo, hi, ok := decimalRange(c); ok {
			p.Value = fmt.Sprintf("{type: decimal, min: %s, max: %s}", lo, hi)
		} else {
			return
		}
		p.Comment = fmt.Sprintf("from the server's log: %s values, drawn evenly over the range they took (%s)", group(c.total()), what)
		p.TODO = false
	}
}

// intRange is the smallest and largest of values that are all integers.
func intRange(c *Counts) (lo, hi int64, ok bool) {
	if c.Over > 0 || len(c.N) == 0 {
		return 0, 0, false
	}
	first := true
	for v := range c.N {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if first || n < lo {
			lo = n
		}
		if first || n > hi {
			hi = n
		}
		first = false
	}
	return lo, hi, true
}

// decimalRange is the smallest and largest of values that are all
// decimals (digits, a point, digits), written with as many decimals as
// the most precise one has (at most 9).
func decimalRange(c *Counts) (low, high string, ok bool) {
	if c.Over > 0 || len(c.N) == 0 {
		return "", "", false
	}
	var lo, hi float64
	scale, first := 1, true
	for v := range c.N {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || strings.ContainsAny(v, "eEnN") {
			return "", "", false
		}
		if _, frac, found := strings.Cut(v, "."); found {
			scale = max(scale, min(len(frac), 9))
		}
		if first || f < lo {
			lo = f
		}
		if first || f > hi {
			hi = f
		}
		first = false
	}
	return strconv.FormatFloat(lo, 'f', scale, 64), strconv.FormatFloat(hi, 'f', scale, 64), true
}

// quantile is the q-quantile of xs (the empirical one: a value of xs), 0
// for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return stat.Quantile(q, stat.Empirical, s, nil)
}

// meanOf is the mean of xs, 0 for none.
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return stat.Mean(xs, nil)
}

func fmtMs(ms float64) string { return strconv.FormatFloat(ms, 'f', 3, 64) }
