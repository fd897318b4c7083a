package mysql_test

import (
	"context"
	"database/sql/driver"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/testenv"
)

// sliceSource is a RowSource over fixed rows; it counts Values calls.
type sliceSource struct {
	rows   [][]any
	i      int
	values int
}

func (s *sliceSource) Next() bool             { s.i++; return s.i <= len(s.rows) }
func (s *sliceSource) Values() ([]any, error) { s.values++; return s.rows[s.i-1], nil }
func (s *sliceSource) Err() error             { return nil }

// valuer is a type LOAD DATA text does not carry: Load falls back to INSERT.
type valuer string

func (v valuer) Value() (driver.Value, error) { return string(v), nil }

func loadConn(t *testing.T) dialect.Conn {
	t.Helper()
	c := connect(t, testenv.MySQLURL(t))
	var local int64
	if err := c.QueryRow(context.Background(), "SELECT @@local_infile", nil, &local); err != nil {
		t.Fatal(err)
	}
	if local == 0 {
		t.Skip("server has local_infile OFF: Load uses INSERT (tested by the conformance suite)")
	}
	return c
}

// TestLoadData loads awkward values through LOAD DATA and reads them back,
// across chunk boundaries.
func TestLoadData(t *testing.T) {
	ctx := context.Background()
	c := loadConn(t)
	if _, err := c.Exec(ctx, "CREATE TABLE ld (id INT NOT NULL PRIMARY KEY, s VARCHAR(50), b VARBINARY(20), f DOUBLE, d DECIMAL(8,2), ts TIMESTAMP NULL DEFAULT NULL, n INT NULL)"); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	strs := []string{"plain", "tab\there", "new\nline", `back\slash`, `\N`, "nul\x00", "cr\r", "", "ünïcødé ✓"}
	var rows [][]any
	for i := range 21 {
		var n any
		if i%3 != 0 {
			n = int64(i)
		}
		rows = append(rows, []any{i + 1, strs[i%len(strs)], []byte(strs[(i+1)%len(strs)]), float64(i) / 8, 1234.56, ts, n})
	}
	for _, chunk := range []int64{7, 5, 100} { // 3 chunks exactly; 5 with a short one; 1
		defer mysql.SetLoadDataRows(chunk)()
		if _, err := c.Exec(ctx, "DELETE FROM ld"); err != nil {
			t.Fatal(err)
		}
		src := &sliceSource{rows: rows}
		n, err := c.Load(ctx, "ld", []string{"id", "s", "b", "f", "d", "ts", "n"}, src)
		if err != nil || n != int64(len(rows)) {
			t.Fatalf("chunk %d: Load = %d, %v", chunk, n, err)
		}
		if src.values != len(rows) {
			t.Errorf("chunk %d: Values called %d times for %d rows", chunk, src.values, len(rows))
		}
		for _, r := range rows {
			var s, b, got string
			var f, d float64
			var nn int64
			err := c.QueryRow(ctx, "SELECT s, b, f, d, DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s'), COALESCE(n, -1) FROM ld WHERE id = ?", []any{r[0]}, &s, &b, &f, &d, &got, &nn)
			if err != nil {
				t.Fatal(err)
			}
			wantN := int64(-1)
			if r[6] != nil {
				wantN = r[6].(int64)
			}
			if s != r[1] || b != string(r[2].([]byte)) || f != r[3] || d != 1234.56 || got != "2024-01-02 03:04:05" || nn != wantN {
				t.Errorf("chunk %d: row %v read back as %q %q %v %v %q %d", chunk, r[0], s, b, f, d, got, nn)
			}
		}
	}

	// A duplicate key (a warning under LOCAL) fails the load and rolls its
	// chunk back.
	n, err := c.Load(ctx, "ld", []string{"id", "s"}, &sliceSource{rows: [][]any{{100, "new"}, {1, "dup"}}})
	if err == nil || n != 0 || !strings.Contains(err.Error(), "Duplicate") {
		t.Errorf("Load with a duplicate key = %d, %v; want 0 and an error naming the duplicate", n, err)
	}
	var cnt int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM ld WHERE id = 100", nil, &cnt); err != nil || cnt != 0 {
		t.Errorf("row of the failed chunk: %d (%v), want rolled back", cnt, err)
	}
	// A value too long (truncated with a warning under LOCAL) fails too.
	if _, err := c.Load(ctx, "ld", []string{"id", "s"}, &sliceSource{rows: [][]any{{101, strings.Repeat("x", 51)}}}); err == nil {
		t.Error("Load of a value too long for its column succeeded")
	}

	// A type LOAD DATA text does not carry: INSERT, same result.
	n, err = c.Load(ctx, "ld", []string{"id", "s"}, &sliceSource{rows: [][]any{{200, valuer("v")}, {201, valuer("w")}}})
	if err != nil || n != 2 {
		t.Fatalf("Load of driver.Valuer values = %d, %v", n, err)
	}
	var s string
	if err := c.QueryRow(ctx, "SELECT s FROM ld WHERE id = 201", nil, &s); err != nil || s != "w" {
		t.Errorf("valuer row read back as %q, %v", s, err)
	}
}
