package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// serverLines write the database servers' own view of the measured window:
// the run's, or with several instances each one's.
func serverLines(ew *errWriter, r *result.Run) {
	if r.ServerStats != nil {
		ew.printf("%s\n", ServerLine("server", r.ServerStats))
	} else {
		for _, in := range r.Instances {
			if in.ServerStats != nil {
				ew.printf("%s\n", ServerLine(fmt.Sprintf("server #%d", in.Index+1), in.ServerStats))
			}
		}
	}
	if r.Host != nil && len(r.Host.ServerCPU) > 0 {
		var ps []string
		for _, p := range r.Host.ServerCPU {
			n, noun := int(math.Round(p.Processes)), "processes"
			if n == 1 {
				noun = "process"
			}
			ps = append(ps, fmt.Sprintf("%s %.2f CPUs (%d %s)", p.Server, p.UsedCPUs, n, noun))
		}
		ew.printf("server processes on this host (their own CPU, from /proc): %s\n", strings.Join(ps, ", "))
	}
}

// topWaitsShown is how many wait events a server line names.
const topWaitsShown = 3

// ServerLine words a server's figures in one line, after who: "server
// (PostgreSQL, pg_stat_activity every 100 ms): 3.8 active sessions: 61%
// Lock:transactionid, 18% LWLock:WALWrite, 12% on CPU; commits 1,203/s,
// rollbacks 0/s, cache hit 99.9%, WAL 2.1 MB/s", and its note.
func ServerLine(who string, s *result.ServerStats) string {
	var b strings.Builder
	src := s.Source
	if s.Product != "" {
		src = s.Product + ", " + src
	}
	fmt.Fprintf(&b, "%s (%s every %s ms): ", who, src, strconv.FormatFloat(s.IntervalMs, 'f', -1, 64))
	switch {
	case s.Samples == 0:
		b.WriteString("no samples in the measured window")
	default:
		fmt.Fprintf(&b, "%s active sessions", number(s.AvgActive(), 1))
		var waits []string
		for _, w := range analysis.TopWaits(s, topWaitsShown) {
			waits = append(waits, fmt.Sprintf("%.0f%% %s", w.Pct, waitName(w.Name)))
		}
		if len(waits) > 0 {
			b.WriteString(": " + strings.Join(waits, ", "))
		}
		if s.IdleInTx > 0 {
			fmt.Fprintf(&b, "; %s idle in transaction (waiting for the client)", number(s.AvgIdleInTx(), 1))
		}
	}
	if c := serverCounters(s); c != "" {
		b.WriteString("; " + c)
	}
	if st := statementsLine(s); st != "" {
		b.WriteString("\n  statements by server time: " + st)
	}
	if s.Note != "" {
		b.WriteString("\n  note: " + s.Note)
	}
	return b.String()
}

// topStatementsShown is how many statements a server line names, and
// statementShown how much of each one's text.
const (
	topStatementsShown = 3
	statementShown     = 60
)

// statementsLine words the statements that took the most of the server's
// time: "71% UPDATE hot SET n = n + $1 WHERE id = $2 (1,203/s, 3.1 ms
// each), ..."; "" when the server did not count them.
func statementsLine(s *result.ServerStats) string {
	var out []string
	for _, st := range s.Statements[:min(len(s.Statements), topStatementsShown)] {
		w := fmt.Sprintf("%.0f%% %s", 100*st.Share, shortStatement(st.Text, statementShown))
		if s.DurationS > 0 {
			w += " (" + Grouped(st.Calls/s.DurationS) + "/s, " + number(st.MeanMs(), 2) + " ms each)"
		}
		out = append(out, w)
	}
	return strings.Join(out, "; ")
}

// shortStatement cuts a statement's text to n characters.
func shortStatement(text string, n int) string {
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// serverCounters words a server's counters: commits and rollbacks per
// second, the buffer cache's hit ratio, WAL written per second.
func serverCounters(s *result.ServerStats) string {
	var out []string
	if v, ok := s.Rate("pg_stat_database.xact_commit"); ok {
		out = append(out, "commits "+Grouped(v)+"/s")
	}
	if v, ok := s.Rate("pg_stat_database.xact_rollback"); ok {
		out = append(out, "rollbacks "+Grouped(v)+"/s")
	}
	hit, hok := s.Counters["pg_stat_database.blks_hit"]
	read, rok := s.Counters["pg_stat_database.blks_read"]
	if hok && rok && hit+read > 0 {
		out = append(out, "cache hit "+number(100*hit/(hit+read), 1)+"%")
	}
	if v, ok := s.Rate("pg_stat_database.deadlocks"); ok && v > 0 {
		out = append(out, "deadlocks "+Num(v)+"/s")
	}
	if v, ok := s.Rate("pg_stat_wal.wal_bytes"); ok {
		out = append(out, "WAL "+number(v/1e6, 1)+" MB/s")
	}
	return strings.Join(append(out, mysqlCounters(s)...), ", ")
}

// mysqlCounters words MySQL's and MariaDB's status counters: commits and
// rollbacks per second, row lock waits per second and their average
// time, the buffer pool's hit ratio, redo log waits, threads running.
func mysqlCounters(s *result.ServerStats) []string {
	var out []string
	if v, ok := s.Rate("status.Com_commit"); ok {
		out = append(out, "commits "+Grouped(v)+"/s")
	}
	if v, ok := s.Rate("status.Com_rollback"); ok {
		out = append(out, "rollbacks "+Grouped(v)+"/s")
	}
	if v, ok := s.Rate("status.Innodb_row_lock_waits"); ok {
		w := "row lock waits " + Grouped(v) + "/s"
		if n, t := s.Counters["status.Innodb_row_lock_waits"], s.Counters["status.Innodb_row_lock_time"]; n > 0 {
			w += " (" + number(t/n, 1) + " ms each)"
		}
		out = append(out, w)
	}
	reads, rok := s.Counters["status.Innodb_buffer_pool_reads"]
	reqs, qok := s.Counters["status.Innodb_buffer_pool_read_requests"]
	if rok && qok && reqs > 0 {
		out = append(out, "buffer pool hit "+number(100*(1-reads/reqs), 1)+"%")
	}
	if v, ok := s.Rate("status.Innodb_log_waits"); ok && v > 0 {
		out = append(out, "log waits "+Num(v)+"/s")
	}
	if v, ok := s.Counters["status.Threads_running"]; ok {
		out = append(out, "threads running "+number(v, 1))
	}
	if v, ok := s.Rate("innodb_metrics.lock_timeouts"); ok && v > 0 {
		out = append(out, "lock wait timeouts "+Num(v)+"/s")
	}
	if v, ok := s.Counters["innodb_metrics.trx_rseg_history_len"]; ok {
		out = append(out, "undo history "+Grouped(v))
	}
	// SQLite's, counted by the client: the write lock taken and the time
	// waited for it.
	if v, ok := s.Rate("client.lock_waits"); ok {
		w := "write lock taken " + Grouped(v) + "/s"
		if n := s.Counters["client.lock_waits"]; n > 0 {
			w += " (waited " + number(s.Counters["client.lock_wait_ms"]/n, 2) + " ms each)"
		}
		out = append(out, w)
	}
	return out
}
