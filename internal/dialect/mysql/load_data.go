package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/rightsize/rightsize/internal/dialect"
)

// LOAD DATA limits: one statement (and transaction) carries at most
// loadDataRows rows or about loadDataBytes bytes of text.
const (
	loadDataBytes = 32 << 20
	loadDataChunk = 64 << 10 // text produced per refill of the reader
)

// loadDataRows is a variable for tests.
var loadDataRows int64 = 100_000

// loadDataSeq numbers the reader handlers, which the driver registers
// process-wide.
var loadDataSeq atomic.Uint64

// loadData streams src to table by LOAD DATA LOCAL INFILE 'Reader::name',
// one transaction per chunk of rows. With LOCAL the server turns data errors
// and duplicate keys into warnings (it cannot stop the transfer), so each
// chunk is checked: a row count other than the rows sent, or any warning,
// rolls the chunk back and fails the load.
func (c *conn) loadData(ctx context.Context, table string, cols []string, src *peekedSource) (int64, error) {
	name := "rightsize-load-" + strconv.FormatUint(loadDataSeq.Add(1), 10)
	loc := time.UTC
	if c.cfg != nil && c.cfg.Loc != nil {
		loc = c.cfg.Loc
	}
	r := &loadReader{src: src, cols: len(cols), loc: loc, maxRows: loadDataRows}
	mysql.RegisterReaderHandler(name, func() io.Reader { return r })
	defer mysql.DeregisterReaderHandler(name)
	quoted := make([]string, len(cols))
	for i, col := range cols {
		quoted[i] = quoteIdent(col)
	}
	q := "LOAD DATA LOCAL INFILE 'Reader::" + name + "' INTO TABLE " + quoteIdent(table) +
		" CHARACTER SET utf8mb4 FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (" +
		strings.Join(quoted, ", ") + ")"

	var loaded int64
	for src.pending {
		r.start()
		n, err := c.loadChunk(ctx, q, r)
		if err != nil {
			return loaded, dialect.WithContextErr(ctx, fmt.Errorf("mysql: load %s: %w", table, err))
		}
		loaded += n
	}
	return loaded, src.Err()
}

// loadChunk runs one LOAD DATA in a transaction and returns its rows.
func (c *conn) loadChunk(ctx context.Context, q string, r *loadReader) (int64, error) {
	if _, err := c.sc.ExecContext(ctx, "START TRANSACTION"); err != nil {
		return 0, err
	}
	fail := func(err error) (int64, error) {
		_, _ = c.sc.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, err
	}
	res, err := c.sc.ExecContext(ctx, q)
	if r.err != nil && r.err != io.EOF {
		err = r.err
	}
	if err != nil {
		return fail(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fail(err)
	}
	if err := c.loadWarnings(ctx); err != nil {
		return fail(err)
	}
	if n != r.rows {
		return fail(fmt.Errorf("%d rows sent, %d loaded", r.rows, n))
	}
	if _, err := c.sc.ExecContext(ctx, "COMMIT"); err != nil {
		return fail(err)
	}
	return n, nil
}

// loadWarnings returns the first warnings of the last statement as an error.
func (c *conn) loadWarnings(ctx context.Context) error {
	rows, err := c.sc.QueryContext(ctx, "SHOW WARNINGS LIMIT 3")
	if err != nil {
		return err
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var level, msg string
		var code int64
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return err
		}
		if level != "Note" {
			msgs = append(msgs, fmt.Sprintf("%s %d: %s", level, code, msg))
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(msgs) > 0 {
		return errors.New(strings.Join(msgs, "; "))
	}
	return nil
}

// textable reports whether the row read ahead has only values of types
// LOAD DATA text can carry.
func textable(p *peekedSource) bool {
	vals, err := p.ahead()
	if err != nil {
		return false
	}
	for _, v := range vals {
		if _, ok := appendLoadValue(nil, v, time.UTC); !ok {
			return false
		}
	}
	return true
}

// loadReader turns rows into LOAD DATA text (tab-separated, backslash
// escapes, \N for NULL), up to one chunk of rows per LOAD DATA statement.
type loadReader struct {
	src     *peekedSource
	cols    int
	maxRows int64
	loc     *time.Location
	buf     []byte
	// lastTime is the last time.Time written, and timeText its text.
	lastTime time.Time
	timeText []byte
	off      int
	rows     int64 // rows written in this chunk
	size     int64 // bytes written in this chunk
	err      error // io.EOF at the end of a chunk, or why the rows stopped
}

// start begins a chunk.
func (r *loadReader) start() { r.buf, r.off, r.rows, r.size, r.err = r.buf[:0], 0, 0, 0, nil }

func (r *loadReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill writes the next rows to buf; at the end of the chunk it reads the
// source one row ahead, so that the caller knows whether another chunk follows.
func (r *loadReader) fill() {
	r.buf, r.off = r.buf[:0], 0
	for len(r.buf) < loadDataChunk {
		if r.rows >= r.maxRows || r.size+int64(len(r.buf)) >= loadDataBytes {
			r.src.peek()
			r.err = io.EOF
			break
		}
		if !r.src.Next() {
			r.err = io.EOF
			break
		}
		vals, err := r.src.Values()
		if err == nil && len(vals) != r.cols {
			err = errRowWidth(len(vals), r.cols)
		}
		if err != nil {
			r.err = err
			break
		}
		for i, v := range vals {
			if i > 0 {
				r.buf = append(r.buf, '\t')
			}
			if t, isTime := v.(time.Time); isTime && r.timeText != nil && t == r.lastTime {
				r.buf = append(r.buf, r.timeText...) // a load stamps many rows alike
				continue
			}
			start := len(r.buf)
			var ok bool
			if r.buf, ok = appendLoadValue(r.buf, v, r.loc); !ok {
				r.err = fmt.Errorf("column %d: cannot load a %T", i+1, v)
				return
			}
			if t, isTime := v.(time.Time); isTime {
				r.lastTime, r.timeText = t, append(r.timeText[:0], r.buf[start:]...)
			}
		}
		r.buf = append(r.buf, '\n')
		r.rows++
	}
	r.size += int64(len(r.buf))
}

// appendLoadValue appends v as LOAD DATA text; ok is false for a type it
// does not write (the caller then uses INSERT).
func appendLoadValue(b []byte, v any, loc *time.Location) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, '\\', 'N'), true
	case string:
		return appendEscaped(b, v), true
	case []byte:
		if v == nil {
			return append(b, '\\', 'N'), true
		}
		return appendEscaped(b, v), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int32:
		return strconv.AppendInt(b, int64(v), 10), true
	case int16:
		return strconv.AppendInt(b, int64(v), 10), true
	case int8:
		return strconv.AppendInt(b, int64(v), 10), true
	case uint64:
		return strconv.AppendUint(b, v, 10), true
	case uint:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint32:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint16:
		return strconv.AppendUint(b, uint64(v), 10), true
	case uint8:
		return strconv.AppendUint(b, uint64(v), 10), true
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return b, false
		}
		return strconv.AppendFloat(b, v, 'g', -1, 64), true
	case float32:
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return b, false
		}
		return strconv.AppendFloat(b, float64(v), 'g', -1, 32), true
	case bool:
		if v {
			return append(b, '1'), true
		}
		return append(b, '0'), true
	case time.Time:
		if v.IsZero() {
			return append(b, "0000-00-00 00:00:00"...), true
		}
		return v.In(loc).AppendFormat(b, "2006-01-02 15:04:05.999999"), true
	}
	return b, false
}

// appendEscaped appends s with LOAD DATA's escapes for the characters that
// would end a field or a line, the escape character and NUL.
func appendEscaped[S string | []byte](b []byte, s S) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var e byte
		switch s[i] {
		case '\\':
			e = '\\'
		case '\t':
			e = 't'
		case '\n':
			e = 'n'
		case '\r':
			e = 'r'
		case 0:
			e = '0'
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', e)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// peekedSource is a RowSource read one row ahead of its consumer, without
// asking the source for a row's values twice (a source may generate them in
// Values): Load looks at the first row to choose its path, and loadData
// looks past each chunk to know whether another follows.
type peekedSource struct {
	src     dialect.RowSource
	pending bool // a row was read ahead and not yet handed out
	peeked  bool // the current row is the one read ahead
	vals    []any
	err     error
}

// peek reads the next row ahead and reports whether there is one. It must
// not be called while a row read ahead is pending.
func (p *peekedSource) peek() bool {
	p.pending, p.peeked = p.src.Next(), false
	if p.pending {
		p.vals, p.err = p.src.Values()
	}
	return p.pending
}

// ahead returns the values of the row read ahead.
func (p *peekedSource) ahead() ([]any, error) { return p.vals, p.err }

func (p *peekedSource) Next() bool {
	if p.pending {
		p.pending, p.peeked = false, true
		return true
	}
	p.peeked = false
	return p.src.Next()
}

func (p *peekedSource) Values() ([]any, error) {
	if p.peeked {
		return p.vals, p.err
	}
	return p.src.Values()
}

func (p *peekedSource) Err() error { return p.src.Err() }
