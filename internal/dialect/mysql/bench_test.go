package mysql_test

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/dialect"
	"github.com/rightsize/rightsize/internal/dialect/mysql"
	"github.com/rightsize/rightsize/internal/errclass"
	"github.com/rightsize/rightsize/internal/testenv"
)

// benchRows is the size of the sysbench-like table the benchmarks read.
const benchRows = 10000

// sbSource yields sysbench's sbtest rows (k, c, pad).
type sbSource struct {
	n, i int
	vals [3]any
}

func (s *sbSource) Next() bool {
	if s.i >= s.n {
		return false
	}
	s.i++
	return true
}

func (s *sbSource) Values() ([]any, error) {
	s.vals[0] = int64(s.i % 1000)
	s.vals[1] = fmt.Sprintf("%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d-%011d", s.i, s.i, s.i, s.i, s.i, s.i, s.i, s.i, s.i, s.i)
	s.vals[2] = fmt.Sprintf("%011d-%011d-%011d-%011d-%011d", s.i, s.i, s.i, s.i, s.i)
	return s.vals[:], nil
}

func (s *sbSource) Err() error { return nil }

// sbTable creates and fills sbtest1 as sysbench's oltp prepare does, in a
// fresh database, and returns that database's URL.
func sbTable(b *testing.B) string {
	b.Helper()
	raw := testenv.MySQLURL(b)
	c := connect(b, raw)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE TABLE sbtest1 (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL," +
			" c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE=InnoDB",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	if n, err := c.Load(ctx, "sbtest1", []string{"k", "c", "pad"}, &sbSource{n: benchRows}); err != nil || n != benchRows {
		b.Fatalf("Load = %d, %v", n, err)
	}
	if _, err := c.Exec(ctx, "CREATE INDEX k_1 ON sbtest1(k)"); err != nil {
		b.Fatal(err)
	}
	return raw
}

// cpuTime returns the process's user plus system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// nextID steps a cheap generator over 1..benchRows.
func nextID(x *uint64) int64 {
	*x = *x*6364136223846793005 + 1442695040888963407
	return int64(*x>>33)%benchRows + 1
}

// BenchmarkPointSelectMySQL runs sysbench's point select on one connection
// with a cancellable context, as the runner does.
func BenchmarkPointSelectMySQL(b *testing.B) {
	c := connect(b, sbTable(b))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	args := make([]any, 1)
	x := uint64(1)
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[0] = nextID(&x)
		if n, err := s.Drain(ctx, args...); err != nil || n != 1 {
			b.Fatalf("Drain = %d, %v", n, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "µs-cpu/op")
}

// BenchmarkPointQueryMySQL reads the point select's row by Stmt.QueryRow
// into reused destinations (k and c), with a cancellable context.
func BenchmarkPointQueryMySQL(b *testing.B) {
	c := connect(b, sbTable(b))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Prepare(ctx, "SELECT k, c FROM sbtest1 WHERE id=?")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var k int64
	var cv []byte
	args, dest := make([]any, 1), []any{&k, &cv}
	x := uint64(1)
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[0] = nextID(&x)
		if err := s.QueryRow(ctx, args, dest...); err != nil {
			b.Fatalf("QueryRow: %v", err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "µs-cpu/op")
}

// BenchmarkPointSelectMySQL4 runs the point select on 4 connections from 4
// goroutines (sysbench --threads=4) and reports the whole process's CPU time
// per query (µs-cpu/op), which is what competes with the server on a small
// machine.
func BenchmarkPointSelectMySQL4(b *testing.B) {
	benchParallel(b, 4, func(ctx context.Context, c dialect.Conn) (func(x *uint64) error, func()) {
		s, err := c.Prepare(ctx, "SELECT c FROM sbtest1 WHERE id=?")
		if err != nil {
			b.Fatal(err)
		}
		args := make([]any, 1)
		return func(x *uint64) error {
			args[0] = nextID(x)
			n, err := s.Drain(ctx, args...)
			if err == nil && n != 1 {
				err = fmt.Errorf("%d rows", n)
			}
			return err
		}, func() { s.Close() }
	})
}

// BenchmarkReadWriteMySQL4 runs an oltp_read_write-shaped transaction (BEGIN,
// 10 point selects, 4 range selects of 100 rows, 2 updates, a delete and an
// insert, COMMIT) on 4 connections; one op is one transaction.
func BenchmarkReadWriteMySQL4(b *testing.B) {
	benchParallel(b, 4, func(ctx context.Context, c dialect.Conn) (func(x *uint64) error, func()) {
		var stmts []dialect.Stmt
		prep := func(q string) dialect.Stmt {
			s, err := c.Prepare(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			stmts = append(stmts, s)
			return s
		}
		point := prep("SELECT c FROM sbtest1 WHERE id=?")
		simple := prep("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?")
		sum := prep("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?")
		order := prep("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c")
		distinct := prep("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c")
		updIdx := prep("UPDATE sbtest1 SET k=k+1 WHERE id=?")
		updNon := prep("UPDATE sbtest1 SET c=? WHERE id=?")
		del := prep("DELETE FROM sbtest1 WHERE id=?")
		ins := prep("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)")
		var args [4]any
		const cval = "00000000000-11111111111-22222222222-33333333333-44444444444-55555555555-66666666666-77777777777-88888888888-99999999999"
		const pad = "00000000000-11111111111-22222222222-33333333333-44444444444"
		tx := func(x *uint64) error {
			if err := c.Begin(ctx); err != nil {
				return err
			}
			for range 10 {
				args[0] = nextID(x)
				if _, err := point.Drain(ctx, args[:1]...); err != nil {
					return err
				}
			}
			for _, s := range []dialect.Stmt{simple, sum, order, distinct} {
				id := min(nextID(x), benchRows-99)
				args[0], args[1] = id, id+99
				if _, err := s.Drain(ctx, args[:2]...); err != nil {
					return err
				}
			}
			args[0] = nextID(x)
			if _, err := updIdx.Exec(ctx, args[:1]...); err != nil {
				return err
			}
			args[0], args[1] = cval, nextID(x)
			if _, err := updNon.Exec(ctx, args[:2]...); err != nil {
				return err
			}
			id := nextID(x)
			args[0] = id
			if _, err := del.Exec(ctx, args[:1]...); err != nil {
				return err
			}
			args[0], args[1], args[2], args[3] = id, nextID(x), cval, pad
			if _, err := ins.Exec(ctx, args[:4]...); err != nil {
				return err
			}
			return c.Commit(ctx)
		}
		return func(x *uint64) error {
				err := tx(x)
				if err != nil {
					c.Rollback(ctx)
					switch (mysql.Dialect{}).Classify(err) {
					case errclass.Deadlock, errclass.LockTimeout, errclass.Serialization, errclass.Constraint:
						return nil // as sysbench, ignore and go on
					}
				}
				return err
			}, func() {
				for _, s := range stmts {
					s.Close()
				}
			}
	})
}

// benchParallel runs b.N ops split over vus connections, each in its own
// goroutine, and reports the process CPU time per op.
func benchParallel(b *testing.B, vus int, setup func(context.Context, dialect.Conn) (op func(*uint64) error, done func())) {
	raw := sbTable(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ops := make([]func(*uint64) error, vus)
	for i := range ops {
		op, done := setup(ctx, connect(b, raw))
		defer done()
		ops[i] = op
	}
	b.ReportAllocs()
	var wg sync.WaitGroup
	errs := make([]error, vus)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for i, op := range ops {
		n := b.N / vus
		if i < b.N%vus {
			n++
		}
		wg.Go(func() {
			x := uint64(i + 1)
			for range n {
				if err := op(&x); err != nil {
					errs[i] = err
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/float64(b.N), "µs-cpu/op")
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}
