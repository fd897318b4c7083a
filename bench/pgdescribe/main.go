// Command pgdescribe measures what the Describe message that libpq sends
// with every execution of a prepared statement costs the PostgreSQL server
// (issue 35). Connections in pairs run the same point select, one pair member
// with Bind, Describe, Execute, Sync (pgconn's ExecPrepared, what libpq does)
// and the other without the Describe (ExecStatement, what rightsize does);
// the load alternates between the two kinds every window, so that the host's
// drift (a shared VM's speed moves by 15 % from one minute to the next)
// falls on both alike, and the server backends' own CPU time (from
// /proc/PID/stat, so the server must run on this host) is divided by the
// queries each kind completed.
//
//	cd bench/pgdescribe && go run . -url 'postgres://postgres@127.0.0.1:5432/rs_bench?sslmode=disable'
//
// It creates and drops its own table (rs_describe, 10,000 rows). It is a
// module of its own, so that the repository's rule that only cmd/rightsize
// touches the process (internal/archtest) does not apply to it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// backendTicks is a server backend's user + system CPU time, in clock ticks.
func backendTicks(pid uint32) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("the server's backend %d is not on this host: %w", pid, err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return u + k, nil
}

const (
	withDescribe = iota
	withoutDescribe
)

type conn struct {
	pc  *pgconn.PgConn
	sd  *pgconn.StatementDescription
	pid uint32
}

func main() {
	url := flag.String("url", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (the server must run on this host)")
	pairs := flag.Int("conns", 4, "connections of each kind")
	rounds := flag.Int("rounds", 40, "windows, alternating between the kinds")
	window := flag.Duration("window", time.Second, "length of a window")
	flag.Parse()
	if err := run(*url, *pairs, *rounds, *window); err != nil {
		fmt.Fprintln(os.Stderr, "pgdescribe:", err)
		os.Exit(1)
	}
}

func run(url string, pairs, rounds int, window time.Duration) error {
	ctx := context.Background()
	admin, err := pgconn.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	setup := `DROP TABLE IF EXISTS rs_describe;
		CREATE TABLE rs_describe (id INTEGER PRIMARY KEY, c CHAR(120) NOT NULL);
		INSERT INTO rs_describe SELECT g, md5(g::text) FROM generate_series(1, 10000) g`
	if _, err := admin.Exec(ctx, setup).ReadAll(); err != nil {
		return err
	}
	defer func() { _, _ = admin.Exec(ctx, "DROP TABLE rs_describe").ReadAll() }()

	conns := make([][2]conn, pairs)
	defer func() {
		for _, pair := range conns {
			for _, c := range pair {
				if c.pc != nil {
					c.pc.Close(ctx)
				}
			}
		}
	}()
	for i := range conns {
		for kind := range 2 {
			pc, err := pgconn.Connect(ctx, url)
			if err != nil {
				return err
			}
			conns[i][kind].pc = pc
			sd, err := pc.Prepare(ctx, "s", "SELECT c FROM rs_describe WHERE id = $1", nil)
			if err != nil {
				return err
			}
			conns[i][kind] = conn{pc: pc, sd: sd, pid: pc.PID()}
		}
	}
	l := &load{conns: conns, errs: make(chan error, pairs)}
	l.start(ctx)
	total, per, err := l.measure(rounds, window)
	l.stop.Store(true)
	l.wg.Wait()
	if err != nil {
		return err
	}
	select {
	case err := <-l.errs:
		return err
	default:
	}
	secs := window.Seconds() * float64(rounds/2)
	for m, name := range []string{"Bind, Describe, Execute, Sync", "Bind, Execute, Sync"} {
		sort.Float64s(per[m])
		fmt.Printf("%-30s server CPU %.2f µs per query (median of %d windows %.2f), %.0f queries/s\n",
			name, float64(total[m].ticks)*1e4/float64(max(total[m].queries, 1)), len(per[m]), per[m][len(per[m])/2], float64(total[m].queries)/secs)
	}
	return nil
}

// load is the point selects in flight: one goroutine per pair of
// connections, running the kind the measurement currently asks for.
type load struct {
	conns [][2]conn
	kind  atomic.Int32
	stop  atomic.Bool
	done  [2]atomic.Int64
	wg    sync.WaitGroup
	errs  chan error
}

// start starts one goroutine per pair.
func (l *load) start(ctx context.Context) {
	for i, pair := range l.conns {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			param := make([][]byte, 1)
			for k := i; !l.stop.Load(); k++ {
				m := l.kind.Load()
				param[0] = strconv.AppendInt(param[0][:0], int64(k%10000+1), 10)
				c := pair[m]
				var rr *pgconn.ResultReader
				if m == withDescribe {
					rr = c.pc.ExecPrepared(ctx, c.sd.Name, param, nil, nil)
				} else {
					rr = c.pc.ExecStatement(ctx, c.sd, param, nil, nil)
				}
				for rr.NextRow() {
				}
				if _, err := rr.Close(); err != nil {
					l.errs <- err
					return
				}
				l.done[m].Add(1)
			}
		}()
	}
}

// ticks is the CPU clock ticks of kind m's backends.
func (l *load) ticks(m int32) (int64, error) {
	var t int64
	for _, pair := range l.conns {
		n, err := backendTicks(pair[m].pid)
		if err != nil {
			return 0, err
		}
		t += n
	}
	return t, nil
}

// tally is one kind's backends' CPU ticks and queries over its windows.
type tally struct{ ticks, queries int64 }

// measure alternates the kinds every window, rounds times, and returns
// each kind's totals and its µs per query in each window.
func (l *load) measure(rounds int, window time.Duration) (total [2]tally, per [2][]float64, err error) {
	for r := range rounds {
		m := int32(r % 2)
		l.kind.Store(m)
		time.Sleep(window / 20) // the other kind's queries in flight finish
		t0, err := l.ticks(m)
		if err != nil {
			return total, per, err
		}
		q0 := l.done[m].Load()
		time.Sleep(window)
		t1, err := l.ticks(m)
		if err != nil {
			return total, per, err
		}
		q := l.done[m].Load() - q0
		total[m].ticks += t1 - t0
		total[m].queries += q
		per[m] = append(per[m], float64(t1-t0)*1e4/float64(max(q, 1))) // 100 ticks a second
	}
	return total, per, nil
}
