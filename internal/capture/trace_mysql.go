package capture

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/sqltext"
)

// NewMySQLTrace starts a trace of the statements of d, MySQL's or
// MariaDB's digests (their lists expanded with cat, as Build expands
// them), to be read from the server's slow query log.
func NewMySQLTrace(from string, d Delta, cat *Catalog) *Trace {
	tr := &Trace{From: from, Seqs: map[string]*Seq{}, Values: map[string]map[int]*Counts{}, sessions: map[string]*openTx{},
		norm: map[string][]tok{}, mysql: true, shapes: map[string]string{}, NoThink: true}
	for _, s := range d.Stmts {
		text, ok := expandDigest(s.Text, cat)
		if !ok {
			continue
		}
		toks := lex(text, true)
		if toks == nil || classOf(toks) == classUtility || isSystem(s.Text, toks) {
			continue
		}
		tr.norm[s.ID] = toks
		raw, _ := sqltext.Lex(text, sqltext.MySQL)
		tr.shapes[shape(raw)] = s.ID
	}
	return tr
}

// shape is a statement's form whatever its values: words and names in
// upper case without quotes, each literal or placeholder a ?, a list of
// two or more of them (or a digest's "(...)", and the lists after it) one
// (...). A digest and a statement it counts have one shape.
func shape(toks []sqltext.Token) string {
	var b strings.Builder
	for i := 0; i < len(toks); i++ {
		if j, ok := valueList(toks, i); ok {
			b.WriteString("(...) ")
			for i = j; i+2 < len(toks) && toks[i+1].Text == ","; i = j {
				if j, ok = valueList(toks, i+2); !ok {
					break
				}
			}
			continue
		}
		t := toks[i]
		switch t.Kind {
		case sqltext.String, sqltext.Number, sqltext.Qmark, sqltext.DollarN:
			b.WriteString("?")
		case sqltext.Word, sqltext.Ident:
			b.WriteString(strings.ToUpper(t.Text))
		default:
			if t.Text == ";" && i == len(toks)-1 {
				continue
			}
			b.WriteString(t.Text)
		}
		b.WriteByte(' ')
	}
	return strings.TrimSpace(b.String())
}

// valueList reports whether toks[i] opens a list of two or more values
// (or a digest's "(...)"), and where it closes.
func valueList(toks []sqltext.Token, i int) (end int, ok bool) {
	if toks[i].Kind != sqltext.Punct || toks[i].Text != "(" {
		return 0, false
	}
	if i+4 < len(toks) && toks[i+1].Text == "." && toks[i+2].Text == "." && toks[i+3].Text == "." && toks[i+4].Text == ")" {
		return i + 4, true
	}
	n := 0
	for j := i + 1; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.Kind == sqltext.String || t.Kind == sqltext.Number || t.Kind == sqltext.Qmark || t.Upper() == "NULL":
			n++
		case t.Text == "-" && j+1 < len(toks) && toks[j+1].Kind == sqltext.Number:
		case t.Text == ",":
		case t.Text == ")":
			return j, n >= 2
		default:
			return 0, false
		}
	}
	return 0, false
}

// slowRecord is one statement of the slow query log.
type slowRecord struct {
	thread, schema string
	at             int64   // SET timestamp: whole seconds
	seconds        float64 // Query_time
	text           strings.Builder
}

// mysqlSession is what the slow log tells of a session between its
// statements.
type mysqlSession struct {
	schema     string
	inTx       bool
	manual     bool // SET autocommit = 0
	seq        int
	clock      time.Time
	lastSecond int64
}

// ReadMySQLSlowLog reads MySQL's or MariaDB's slow query log (log_output
// = FILE, long_query_time = 0) for schema db into tr: each statement a
// digest counted, by its shape, into its session's transaction (BEGIN or
// START TRANSACTION to COMMIT or ROLLBACK; else one statement, unless
// the session set autocommit off). The log's times are whole seconds: a
// session's statements are placed one after the other by their
// Query_time, and the pauses between transactions are not read.
func (tr *Trace) ReadMySQLSlowLog(r io.Reader, db string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	sessions := map[string]*mysqlSession{}
	var rec *slowRecord
	inText := false
	flush := func() {
		if rec != nil && rec.text.Len() > 0 {
			tr.slowStatement(rec, sessions, db)
		}
		rec, inText = nil, false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# User@Host:"):
			flush()
			rec = &slowRecord{}
			if _, id, ok := strings.Cut(line, " Id:"); ok {
				rec.thread = strings.TrimSpace(id)
			}
		case strings.HasPrefix(line, "# Time:") || strings.HasPrefix(line, "Tcp port:") || strings.Contains(line, ", Version: ") || strings.HasPrefix(line, "Time  "):
			flush()
		case rec == nil:
		case !inText && strings.HasPrefix(line, "# "):
			rec.fields(line)
		case !inText && strings.HasPrefix(line, "SET timestamp="):
			rec.at, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(line, "SET timestamp="), ";"), 10, 64)
			inText = true
		case !inText && strings.HasPrefix(strings.ToLower(line), "use "):
			rec.schema = strings.Trim(strings.TrimSuffix(strings.TrimSpace(line[4:]), ";"), "`")
		case inText:
			if rec.text.Len() > 0 {
				rec.text.WriteByte('\n')
			}
			rec.text.WriteString(line)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrLog, err)
	}
	flush()
	tr.flush()
	return nil
}

// fields reads a record's "# Thread_id: 3  Schema: shop ..." and "#
// Query_time: 0.000148 ..." lines.
func (r *slowRecord) fields(line string) {
	f := strings.Fields(strings.TrimPrefix(line, "# "))
	for i := 0; i+1 < len(f); i += 2 {
		switch f[i] {
		case "Thread_id:":
			r.thread = f[i+1]
		case "Schema:":
			r.schema = f[i+1]
		case "Query_time:":
			r.seconds, _ = strconv.ParseFloat(f[i+1], 64)
		}
	}
}

// slowStatement takes one statement of the slow log.
func (tr *Trace) slowStatement(rec *slowRecord, sessions map[string]*mysqlSession, db string) {
	s := sessions[rec.thread]
	if s == nil {
		s = &mysqlSession{}
		sessions[rec.thread] = s
	}
	if rec.schema != "" {
		s.schema = rec.schema
	}
	text := strings.TrimSpace(rec.text.String())
	toks, _ := sqltext.Lex(text, sqltext.MySQL)
	if len(toks) == 0 || !strings.EqualFold(s.schema, db) {
		return
	}
	if rec.at > s.lastSecond {
		s.clock, s.lastSecond = time.Unix(rec.at, 0), rec.at
	}
	start := s.clock
	s.clock = s.clock.Add(time.Duration(rec.seconds * float64(time.Second)))
	switch w := toks[0].Upper(); {
	case w == "BEGIN" || w == "START" && len(toks) > 1 && toks[1].Upper() == "TRANSACTION":
		s.inTx = true
		s.seq++
		return
	case w == "COMMIT" || w == "ROLLBACK":
		s.inTx = false
		if o := tr.sessions[rec.thread]; o != nil {
			tr.close(o)
		}
		return
	case w == "SET" && len(toks) >= 4 && strings.EqualFold(toks[1].Text, "autocommit"):
		s.manual = toks[3].Text == "0" || toks[3].Upper() == "OFF"
		return
	}
	if !s.inTx {
		s.seq++
		s.inTx = s.manual
	}
	id, ok := tr.shapes[shape(toks)]
	if !ok {
		tr.Other++
		return
	}
	tr.countList(id, toks)
	tr.exec(execution{session: rec.thread, tx: strconv.Itoa(s.seq), id: id, start: start, end: s.clock, text: text})
}

// countList counts the length of the first list of values (an IN list)
// of an execution of statement id, which its digest hides.
func (tr *Trace) countList(id string, toks []sqltext.Token) {
	for i := range toks {
		end, ok := valueList(toks, i)
		if !ok {
			continue
		}
		n := 0
		for _, t := range toks[i+1 : end] {
			if t.Text != "," && t.Text != "-" {
				n++
			}
		}
		if tr.lists == nil {
			tr.lists = map[string]map[int]int64{}
		}
		if tr.lists[id] == nil {
			tr.lists[id] = map[int]int64{}
		}
		tr.lists[id][n]++
		return
	}
}

// ListLen is the length the first list of values of statement id had
// most often in the log (0: none seen), and whether every execution's was
// that.
func (tr *Trace) ListLen(id string) (n int, always bool) {
	if tr == nil {
		return 0, false
	}
	var best, total int64
	for k, c := range tr.lists[id] {
		total += c
		if c > best || c == best && k < n {
			n, best = k, c
		}
	}
	return n, total > 0 && best == total
}
