package report

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/result"
)

func TestServerLine(t *testing.T) {
	s := &result.ServerStats{Source: "pg_stat_activity", Product: "PostgreSQL", IntervalMs: 100, Samples: 100, Active: 380,
		Waits: []result.Wait{
			{Type: "CPU", Samples: 46},
			{Type: "Lock", Event: "transactionid", Samples: 232},
			{Type: "LWLock", Event: "WALWrite", Samples: 68},
			{Type: "Lock", Event: "tuple", Samples: 34},
		},
		DurationS: 10,
		Counters: map[string]float64{"pg_stat_database.xact_commit": 12030, "pg_stat_database.xact_rollback": 0,
			"pg_stat_database.blks_hit": 999, "pg_stat_database.blks_read": 1, "pg_stat_wal.wal_bytes": 21e6},
	}
	want := "server (PostgreSQL, pg_stat_activity every 100 ms): 3.8 active sessions: 61% Lock:transactionid, 18% LWLock:WALWrite, 12% on CPU;" +
		" commits 1,203/s, rollbacks 0/s, cache hit 99.9%, WAL 2.1 MB/s"
	if got := ServerLine("server", s); got != want {
		t.Errorf("ServerLine =\n%s\nwant\n%s", got, want)
	}
	s.Note = "user bench may not see other users' sessions"
	s.Samples, s.Active, s.Waits, s.Counters = 0, 0, nil, nil
	got := ServerLine("server #2", s)
	if !strings.HasPrefix(got, "server #2 (PostgreSQL, pg_stat_activity every 100 ms): no samples in the measured window") ||
		!strings.HasSuffix(got, "\n  note: user bench may not see other users' sessions") {
		t.Errorf("ServerLine without samples, with a note =\n%s", got)
	}
}
