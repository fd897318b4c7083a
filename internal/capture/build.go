package capture

import (
	"fmt"
	"github.com/rightsize/rightsize/internal/sqltext"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Coverage is the share of the calls, and of the time, that the captured
// statements make up at least.
const Coverage = 0.99

// Source says what a capture read, for the file's header.
type Source struct {
	Dialect  string // "postgres" or "mysql" (the workload file's dialect names)
	Server   string // product and version, e.g. "PostgreSQL 15.20"
	Database string // the database captured (no host, user or password)
	Start    time.Time
	// TxCounter names the server's transaction counter the header
	// compares the file's rate with.
	TxCounter string
	// MaxDigest is MySQL's and MariaDB's performance_schema_max_digest_length:
	// a digest's text is cut near it, with no mark (0: not known).
	MaxDigest int
}

// Model is a capture, ready to be written as a workload file.
type Model struct {
	Source Source
	Window time.Duration
	Name   string
	// Txs are the file's transactions, most calls first.
	Txs    []Tx
	Params []Param
	Tables []string // existing tables the statements name
	// Unknown are tables a writing statement names that the catalog
	// capture read does not show (a subset of Tables).
	Unknown []string
	// Rate is 1x: the file's transactions per second that replay the
	// captured statements' calls (the sum of the transactions' calls over
	// the window).
	Rate float64
	// ServerTx is the server's own count of transactions per second in
	// the window (see Source.TxCounter), -1 when it has none.
	ServerTx float64
	// Calls and TimeMs are every application statement's in the window;
	// CoveredCalls and CoveredTime the shares the file's statements make.
	Calls                     int64
	TimeMs                    float64
	CoveredCalls, CoveredTime float64
	Evicted, Unseen           int64
	Notes                     []string // lines for the header
	// Traced is what a statement log added (nil: none was read).
	Traced *Traced
	trace  *Trace // the log read, while the model is built
}

// Tx is one transaction of the file.
type Tx struct {
	Name    string
	Calls   int64 // in the window: the weight
	Grouped bool  // statements that ran equally often on the same tables
	// Think is the mean pause, in milliseconds, production's sessions made
	// after a transaction (0: not known).
	Think   float64
	Stmts   []SQL
	Comment []string
}

// SQL is one statement of a transaction.
type SQL struct {
	Text    string // with :name parameters
	Calls   int64
	MeanMs  float64
	Rows    float64 // per call
	Class   string
	Tables  []string
	Comment []string
}

// Param is one parameter of the file.
type Param struct {
	Name    string
	Value   string // the YAML flow mapping
	Comment string
	TODO    bool
	role    string
	col     *Column
}

// Build chooses the statements of d that make up Coverage of its calls
// and of its time, binds their parameters with cat, groups statements that
// ran together, and returns the model of the file. serverTx is the
// server's count of transactions in the window (commits and rollbacks), or
// -1.
func Build(src Source, d Delta, cat *Catalog, serverTx int64) *Model {
	return BuildTraced(src, d, cat, serverTx, nil)
}

// BuildTraced is Build with what the server's statement log said about
// the window (nil: nothing): statements grouped into the transactions the
// log shows, in their order, their parameters' values (key skew, the
// ranges of amounts and limits), the sessions' concurrency and think time.
func BuildTraced(src Source, d Delta, cat *Catalog, serverTx int64, tr *Trace) *Model {
	m := &Model{Source: src, Window: d.Window, Name: ident("captured_" + src.Database), Evicted: d.Evicted, Unseen: d.Unseen, ServerTx: -1}
	m.Name = strings.ReplaceAll(m.Name, "_", "-")
	m.trace = tr
	if len(m.Name) > 64 {
		m.Name = m.Name[:64]
	}
	secs := d.Window.Seconds()
	if serverTx >= 0 && secs > 0 {
		m.ServerTx = float64(serverTx) / secs
	}
	kept := m.choose(m.candidates(d, cat), cat)
	m.traceValues(kept, tr)
	txs := m.tracedTransactions(kept, tr)
	if txs == nil {
		txs = m.transactions(kept)
	}
	var sum int64
	for _, tx := range txs {
		sum += tx.Calls
		m.Txs = append(m.Txs, tx)
	}
	sort.SliceStable(m.Txs, func(a, b int) bool { return m.Txs[a].Calls > m.Txs[b].Calls })
	sort.Strings(m.Tables)
	if m.Traced != nil {
		m.pruneParams()
	}
	if secs > 0 {
		m.Rate = float64(sum) / secs
	}
	return m
}

// cand is a statement of the application, read.
type cand struct {
	st   Stmt
	text string // runnable: a MySQL digest's lists expanded
	sql  SQL
	toks []tok
	refs []tableRef
	// slots name the parameter each placeholder or literal of toks (by
	// its index) became.
	slots map[int]string
}

// candidates are the application's statements of d: utility statements,
// the catalogs' and capture's own, statements that read no table and
// those capture cannot read left out (the last with a note). It counts
// their calls and time into m.
func (m *Model) candidates(d Delta, cat *Catalog) []cand {
	mysql := m.Source.Dialect == "mysql"
	var cands []cand
	for _, s := range d.Stmts {
		text := s.Text
		if mysql {
			var ok bool
			n, _ := m.trace.ListLen(s.ID)
			if text, ok = expandDigestList(text, cat, n); !ok {
				m.Notes = append(m.Notes, fmt.Sprintf("left out: an INSERT whose VALUES list the digest collapsed, into a table the catalog does not show (%s calls)", group(s.Calls)))
				continue
			}
		}
		if n := m.Source.MaxDigest; mysql && n > 0 && len(s.Text) >= n*7/8 {
			m.Notes = append(m.Notes, fmt.Sprintf("left out: a %s statement whose text is %d bytes, near the server's performance_schema_max_digest_length (%d): the server cuts a longer one there without a mark, and a cut statement would run as another (%s calls); raise performance_schema_max_digest_length and max_digest_length and capture again", firstWord(s.Text, mysql), len(s.Text), n, group(s.Calls)))
			continue
		}
		if !utf8.ValidString(text) || strings.ContainsFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' }) {
			m.Notes = append(m.Notes, fmt.Sprintf("left out: a %s statement whose text holds control characters or is not UTF-8 (%s calls)", firstWord(s.Text, mysql), group(s.Calls)))
			continue
		}
		toks := lex(text, mysql)
		if toks == nil {
			if strings.TrimSpace(text) != "" {
				m.Notes = append(m.Notes, fmt.Sprintf("left out: a %s statement whose text has a literal, identifier or comment not closed (truncated?)", firstWord(s.Text, mysql)))
			}
			continue
		}
		class := classOf(toks)
		if class == classUtility || isSystem(s.Text, toks) {
			continue
		}
		c := cand{st: s, text: text, toks: toks, refs: tables(toks)}
		if len(c.refs) == 0 {
			continue // reads no table: SELECT 1, SELECT version(), a driver's ping
		}
		c.sql = SQL{Calls: s.Calls, MeanMs: s.TimeMs / float64(s.Calls), Rows: float64(s.Rows) / float64(s.Calls), Class: class}
		if mysql && digestList.MatchString(s.Text) && strings.Contains(strings.ToUpper(s.Text), "IN (...)") {
			switch n, always := m.trace.ListLen(s.ID); {
			case n > 0 && always:
				c.sql.Comment = append(c.sql.Comment, fmt.Sprintf("the digest hides the length of its IN list (...): the server's log showed %d values every time", n))
			case n > 0:
				c.sql.Comment = append(c.sql.Comment, fmt.Sprintf("TODO: the digest hides the length of its IN list (...): the server's log showed %d values most often, and other lengths", n))
			default:
				c.sql.Comment = append(c.sql.Comment, "TODO: the digest hides the length of its IN list (...): 3 values is a guess")
			}
		}
		if why := undeclarable(c, cat); why != "" {
			m.Notes = append(m.Notes, fmt.Sprintf("left out: a %s statement %s (%s calls)", firstWord(s.Text, mysql), why, group(s.Calls)))
			continue
		}
		m.declare(&c, cat)
		cands = append(cands, c)
		m.Calls += s.Calls
		m.TimeMs += s.TimeMs
	}
	return cands
}

// declared is the name under which a workload file declares the table r
// names ("" when a statement that does not write it needs none): the
// catalog's name, or the name as written for a table a write names.
func declared(r tableRef, class string, cat *Catalog) string {
	if t := cat.table(r.name); t != nil {
		return t.Name
	}
	if class != classWrite {
		return ""
	}
	return r.name
}

// undeclarable says why a workload file cannot declare a table c names
// ("" when it can): a table written whose name is not one a file
// declares, or a name SQL reserves (rightsize's own statements name
// tables unquoted).
func undeclarable(c cand, cat *Catalog) string {
	for _, r := range c.refs {
		name := declared(r, c.sql.Class, cat)
		switch {
		case name == "":
		case !tableNameRE.MatchString(name):
			return "that writes a table capture cannot name"
		case sqltext.ReservedPart(name) != "":
			return "on table " + name + ", a word SQL reserves: a workload file cannot declare it"
		}
	}
	return ""
}

// declare sets the tables c names: the catalog's, and for a statement
// that writes, the others too (another schema, a view: a statement that
// may write one needs it declared), which it adds to m.Unknown.
func (m *Model) declare(c *cand, cat *Catalog) {
	for _, r := range c.refs {
		name := declared(r, c.sql.Class, cat)
		if name == "" || slices.Contains(c.sql.Tables, name) {
			continue
		}
		c.sql.Tables = append(c.sql.Tables, name)
		if cat.table(r.name) == nil && !slices.Contains(m.Unknown, name) {
			m.Unknown = append(m.Unknown, name)
		}
	}
}

// choose keeps the fewest statements that make up Coverage of the calls,
// then those needed for Coverage of the time, and rewrites them with
// named parameters (m.Params).
func (m *Model) choose(cands []cand, cat *Catalog) []cand {
	keep := map[int]bool{}
	pick := func(val func(c cand) float64, total float64) {
		idx := make([]int, len(cands))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return val(cands[idx[a]]) > val(cands[idx[b]]) })
		got := 0.0
		for _, i := range idx {
			if got >= Coverage*total {
				break
			}
			keep[i] = true
			got += val(cands[i])
		}
	}
	pick(func(c cand) float64 { return float64(c.st.Calls) }, float64(m.Calls))
	pick(func(c cand) float64 { return c.st.TimeMs }, m.TimeMs)

	params := map[string]Param{}
	var kept []cand
	var calls int64
	var timeMs float64
	for i, c := range cands {
		if !keep[i] {
			continue
		}
		c.slots = map[int]string{}
		c.sql.Text = rewrite(c.text, c.toks, c.refs, cat, m.Source.Dialect == "mysql", params, &m.Params, c.slots)
		kept = append(kept, c)
		calls += c.st.Calls
		timeMs += c.st.TimeMs
	}
	if m.Calls > 0 {
		m.CoveredCalls = float64(calls) / float64(m.Calls)
	}
	if m.TimeMs > 0 {
		m.CoveredTime = timeMs / m.TimeMs
	}
	if left := len(cands) - len(kept); left > 0 {
		m.Notes = append(m.Notes, fmt.Sprintf("%d other statements ran in the window (%.2f %% of the calls, %.2f %% of the time): left out", left, 100*(1-m.CoveredCalls), 100*(1-m.CoveredTime)))
	}
	return kept
}

// transactions groups the kept statements: those that ran equally often
// on a table they share ran, most likely, in one transaction. It adds
// their tables to m.Tables.
func (m *Model) transactions(kept []cand) []Tx {
	root := make([]int, len(kept))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	for i := range kept {
		for j := i + 1; j < len(kept); j++ {
			if sameCount(kept[i].st.Calls, kept[j].st.Calls) && shareTable(kept[i].sql.Tables, kept[j].sql.Tables) {
				root[find(j)] = find(i)
			}
		}
	}
	members := map[int][]SQL{}
	var roots []int
	for i, c := range kept {
		r := find(i)
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], c.sql)
	}
	names := map[string]bool{}
	var txs []Tx
	for _, r := range roots {
		sts := members[r]
		sort.SliceStable(sts, func(a, b int) bool { return order(sts[a]) < order(sts[b]) })
		tx := Tx{Stmts: sts, Grouped: len(sts) > 1}
		var tabs []string
		for _, s := range sts {
			tx.Calls += s.Calls
			for _, t := range s.Tables {
				if !slices.Contains(tabs, t) {
					tabs = append(tabs, t)
				}
				if !slices.Contains(m.Tables, t) {
					m.Tables = append(m.Tables, t)
				}
			}
		}
		tx.Calls = max(int64(math.Round(float64(tx.Calls)/float64(len(sts)))), 1)
		tx.Name = txName(sts, tabs, names)
		if tx.Grouped {
			counts := make([]string, len(sts))
			for k, s := range sts {
				counts[k] = fmt.Sprint(s.Calls)
			}
			tx.Comment = append(tx.Comment,
				fmt.Sprintf("These %d statements ran equally often (%s calls) on %s: offered as one transaction.", len(sts), strings.Join(counts, ", "), strings.Join(tabs, ", ")),
				"The statistics do not say so, nor their order (reads first is a guess): split them into transactions of their own if they are not one.")
		}
		txs = append(txs, tx)
	}
	return txs
}

// tableNameRE is a table's name as a workload file declares it: a name,
// or a schema and a name.
var tableNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

// sameCount reports whether two statements' calls in one window are equal
// but for the transactions the window's edges cut (a few, or 0.5 %).
func sameCount(a, b int64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return float64(d) <= math.Max(2, 0.005*float64(max(a, b)))
}

func shareTable(a, b []string) bool {
	for _, t := range a {
		if slices.Contains(b, t) {
			return true
		}
	}
	return false
}

// order puts reads (SELECT ... FOR UPDATE first of all) before writes.
func order(s SQL) int {
	if s.Class == classRead {
		return 0
	}
	switch strings.ToUpper(strings.Fields(s.Text + " x")[0]) {
	case "UPDATE":
		return 1
	case "INSERT", "REPLACE":
		return 2
	}
	return 3
}

// txName names a transaction by its statements' verbs and tables.
func txName(sts []SQL, tabs []string, used map[string]bool) string {
	var verbs []string
	for _, s := range sts {
		v := strings.ToLower(strings.Fields(s.Text + " x")[0])
		if v == "with" || v == "(" {
			v = "query"
		}
		if !slices.Contains(verbs, v) {
			verbs = append(verbs, v)
		}
	}
	name := strings.Join(verbs, "_")
	if len(tabs) > 0 {
		name += "_" + strings.Join(tabs, "_")
	}
	name = ident(name)
	if len(name) > 50 {
		name = name[:50]
	}
	base := name
	for k := 2; used[name]; k++ {
		name = fmt.Sprintf("%s_%d", base, k)
	}
	used[name] = true
	return name
}

// firstWord is a statement's first word in upper case (a note never
// quotes a statement's text: it may hold a literal of production), read
// by its dialect's rules up to any literal or comment left open.
func firstWord(s string, mysql bool) string {
	toks, _ := sqltext.Lex(s, flavor(mysql))
	for _, t := range toks {
		if t.Kind == sqltext.Word {
			return strings.ToUpper(t.Text)
		}
	}
	return "?"
}

// rewrite replaces each placeholder and literal of a statement with a
// named parameter, adding the parameters to params (by name) and list
// (each with the comment that says what was guessed), and returns the
// statement; slots gets the name each token (by index) became.
func rewrite(text string, toks []tok, refs []tableRef, cat *Catalog, mysql bool, params map[string]Param, list *[]Param, slots map[int]string) string {
	var b strings.Builder
	last := 0
	inStmt := map[string]string{} // placeholder text ($1) -> name, PostgreSQL only
	used := map[string]bool{}
	for i, t := range toks {
		if !t.placeholder() && t.Kind != sqltext.String && t.Kind != sqltext.Number {
			continue
		}
		if t.Kind == sqltext.Number && i > 0 && (toks[i-1].text == "::" || toks[i-1].text == "(" && i > 1 && castType(toks[i-2].text)) {
			continue // a type's size: varchar(20), numeric(10,2)
		}
		name, ok := inStmt[text[t.Start:t.End]]
		if !ok || !t.placeholder() || mysql {
			bd := bind(toks, i, refs, cat)
			name = paramName(bd)
			base := name
			for k := 2; used[name]; k++ {
				name = fmt.Sprintf("%s_%d", base, k)
			}
			p := define(name, bd)
			if old, ok := params[name]; ok && old.Value != p.Value {
				for k := 2; ; k++ {
					n := fmt.Sprintf("%s_%d", base, k)
					if o, ok := params[n]; !ok || o.Value == p.Value {
						name = n
						p.Name = n
						break
					}
				}
			}
			if _, ok := params[name]; !ok {
				*list = append(*list, p)
				params[name] = p
			}
			used[name] = true
			if t.placeholder() {
				inStmt[text[t.Start:t.End]] = name
			}
		}
		slots[i] = name
		b.WriteString(text[last:t.Start])
		if t.Start > 0 && (sqltext.IdentChar(text[t.Start-1]) || text[t.Start-1] == ':') {
			b.WriteByte(' ')
		}
		b.WriteString(":" + name)
		if !mysql && paramOperand(toks, i) {
			// PostgreSQL cannot type an operator between two parameters
			// ($1 * $2: 'operator is not unique: unknown * unknown').
			b.WriteString("::numeric")
		}
		if t.End < len(text) && sqltext.IdentChar(text[t.End]) {
			b.WriteByte(' ')
		}
		last = t.End
	}
	b.WriteString(text[last:])
	return strings.Join(strings.Fields(stripComments(b.String(), mysql)), " ")
}

// paramOperand reports whether toks[i], which becomes a parameter, is an
// operand of an arithmetic operator whose other operand is one too, and
// is not cast already.
func paramOperand(toks []tok, i int) bool {
	param := func(j int) bool {
		return j >= 0 && j < len(toks) && (toks[j].placeholder() || toks[j].Kind == sqltext.Number)
	}
	arith := func(j int) bool {
		if j < 0 || j >= len(toks) {
			return false
		}
		switch toks[j].text {
		case "+", "-", "*", "/", "%":
			return true
		}
		return false
	}
	if i+1 < len(toks) && toks[i+1].text == "::" {
		return false
	}
	return arith(i-1) && param(i-2) || arith(i+1) && param(i+2)
}

func castType(w string) bool {
	switch w {
	case "VARCHAR", "CHAR", "NUMERIC", "DECIMAL", "CHARACTER", "VARYING", "TIMESTAMP", "TIME", "BIT", "FLOAT":
		return true
	}
	return false
}

// stripComments removes the comments of a statement (capture's marker,
// MySQL's "/* , ... */") outside literals.
func stripComments(s string, mysql bool) string {
	toks := lex(s, mysql)
	var b strings.Builder
	last := 0
	for _, t := range toks {
		gap := s[last:t.Start]
		if strings.Contains(gap, "/*") || strings.Contains(gap, "--") || mysql && strings.Contains(gap, "#") {
			gap = " "
		}
		b.WriteString(gap)
		b.WriteString(s[t.Start:t.End])
		last = t.End
	}
	return b.String()
}

// define is the parameter a binding gets, with the comment that says what
// was guessed.
func define(name string, b binding) Param {
	p := Param{Name: name, role: b.role, col: b.col}
	col := b.describe()
	switch {
	case b.role == roleLimit:
		p.Value, p.Comment, p.TODO = "{type: int, min: 10, max: 10}", "TODO: the LIMIT production used is normalized away: 10 is a guess", true
	case b.role == roleOffset:
		p.Value, p.Comment, p.TODO = "{type: int, min: 0, max: 0}", "TODO: the OFFSET production used is normalized away: 0 is a guess", true
	case b.role == roleDelta:
		p.Value, p.Comment, p.TODO = "{type: int, min: 1, max: 10}", fmt.Sprintf("TODO: an amount added to %s: 1 to 10 is a guess", col), true
	case b.table == nil || b.col == nil:
		what := "what it stands for"
		if b.colName != "" {
			what = "the table of column " + b.colName
		}
		p.Value, p.Comment, p.TODO = "{type: int, min: 0, max: 0}", fmt.Sprintf("TODO: capture could not tell %s: 0 is a placeholder, set the type and range", what), true
	case b.role == roleInsert && b.col.Unique:
		p.Value, p.Comment, p.TODO = "{type: seq, start: 1_000_000_000}", fmt.Sprintf("TODO: a new key of %s (unique): a sequence; start it above the table's largest key", col), true
	case b.role == roleInsert:
		p.Value, p.Comment = sampleOf(col, b.col), fmt.Sprintf("guess: a value %s already holds, sampled from the target at run time", col)
	case b.role == roleSet:
		p.Value, p.Comment = sampleOf(col, b.col), fmt.Sprintf("guess: a value %s already holds, written again; sampled at run time", col)
	case (b.role == roleLo || b.role == roleHi) && b.col.Range:
		p.Value = fmt.Sprintf("{type: int, min: %d, max: %d}", b.col.Min, b.col.Max)
		p.Comment = fmt.Sprintf("guess: a range bound on %s, over the column's range in the planner's statistics (pg_stats); the two bounds are drawn apart, so a range may be empty or wide", col)
	case b.role == roleLo || b.role == roleHi:
		p.Value, p.Comment, p.TODO = sampleOf(col, b.col), fmt.Sprintf("TODO: a range bound on %s: a value of the column sampled at run time; the two bounds are drawn apart, so a range may be empty or wide", col), true
	case b.col.Unique:
		p.Value, p.Comment = sampleOf(col, b.col), fmt.Sprintf("guess: a key of %s (%s) that exists, sampled from the target at run time", b.table.Name, b.col.Name)
	default:
		p.Value, p.Comment = sampleOf(col, b.col), fmt.Sprintf("guess: a value %s holds, sampled from the target at run time", col)
	}
	return p
}

// sampleOf is a sample of col; where the catalog knows an integer
// column's range (PostgreSQL's pg_stats), that range is drawn from when
// the copy's column holds no values (an empty or smaller table).
func sampleOf(col string, c *Column) string {
	if c != nil && c.Range {
		return fmt.Sprintf("{type: sample, column: %s, min: %d, max: %d}", col, c.Min, c.Max)
	}
	return fmt.Sprintf("{type: sample, column: %s}", col)
}

// StatementCount is the number of statements in the file.
func (m *Model) StatementCount() int {
	n := 0
	for _, tx := range m.Txs {
		n += len(tx.Stmts)
	}
	return n
}
