package serverstats

import (
	"strings"
	"testing"
)

func TestCounterSQLByVersion(t *testing.T) {
	for _, c := range []struct {
		version   int
		has, lack []string
	}{
		{150020, []string{"pg_stat_database.xact_commit", "pg_stat_bgwriter.buffers_backend", "pg_stat_wal.wal_sync_time"}, []string{"pg_stat_checkpointer.num_timed", "pg_stat_io.client_reads"}},
		{160004, []string{"pg_stat_io.client_reads", "pg_stat_io.client_fsyncs", "pg_stat_bgwriter.buffers_backend"}, []string{"pg_stat_checkpointer.num_timed"}},
		{130010, []string{"pg_stat_bgwriter.checkpoints_req"}, []string{"pg_stat_wal.wal_bytes"}},
		{170002, []string{"pg_stat_checkpointer.num_requested", "pg_stat_wal.wal_sync", "pg_stat_io.client_writes"}, []string{"pg_stat_bgwriter.buffers_backend"}},
		{180000, []string{"pg_stat_wal.wal_bytes"}, []string{"pg_stat_wal.wal_sync", "pg_stat_wal.wal_sync_time"}},
	} {
		names, sql := counterSQL(c.version)
		set := map[string]bool{}
		for _, n := range names {
			set[n] = true
		}
		for _, n := range c.has {
			if !set[n] {
				t.Errorf("version %d: no counter %s in %v", c.version, n, names)
			}
		}
		for _, n := range c.lack {
			if set[n] {
				t.Errorf("version %d: counter %s, which that server does not have", c.version, n)
			}
		}
		if got := strings.Count(sql, "(SELECT "); got != len(names) {
			t.Errorf("version %d: %d subqueries for %d names", c.version, got, len(names))
		}
	}
}

func TestActivityAdd(t *testing.T) {
	var a, b activity
	a.samples, a.active = 2, 3
	a.count(waitKey{"Lock", "tuple"}, 3)
	b.samples, b.active, b.hidden = 1, 1, 4
	b.count(waitKey{"Lock", "tuple"}, 1)
	a.add(b)
	if a.samples != 3 || a.active != 4 || a.hidden != 4 || a.waits[waitKey{"Lock", "tuple"}] != 4 {
		t.Errorf("added activity = %+v", a)
	}
}
