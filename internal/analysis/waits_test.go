package analysis_test

import (
	"math"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

func TestWaitClass(t *testing.T) {
	for _, c := range []struct{ typ, event, want string }{
		{"CPU", "", analysis.WaitCPU},
		{"Lock", "transactionid", analysis.WaitLocks},
		{"Lock", "tuple", analysis.WaitLocks},
		{"Lock", "relation", analysis.WaitLocks},
		{"LWLock", "WALWrite", analysis.WaitCommit},
		{"LWLock", "WALInsert", analysis.WaitCommit},
		{"LWLock", "BufferContent", analysis.WaitInternal},
		{"LWLock", "LockManager", analysis.WaitInternal},
		{"BufferPin", "BufferPin", analysis.WaitInternal},
		{"IO", "WALSync", analysis.WaitCommit},
		{"IO", "WALWrite", analysis.WaitCommit},
		{"IO", "DataFileRead", analysis.WaitDataIO},
		{"IO", "DataFileExtend", analysis.WaitDataIO},
		{"Client", "ClientRead", analysis.WaitClient},
		{"Client", "ClientWrite", analysis.WaitClient},
		{"IPC", "SyncRep", analysis.WaitCommit},
		{"IPC", "BgWorkerStartup", analysis.WaitOther},
		{"Timeout", "PgSleep", analysis.WaitOther},
		{"Extension", "Extension", analysis.WaitOther},
		// MySQL and MariaDB (serverstats' names).
		{"Lock", "row", analysis.WaitLocks},
		{"Lock", "metadata", analysis.WaitLocks},
		{"wait/io/file", "innodb/innodb_log_file", analysis.WaitCommit},
		{"wait/io/file", "sql/binlog", analysis.WaitCommit},
		{"wait/io/file", "innodb/innodb_data_file", analysis.WaitDataIO},
		{"wait/io/file", "innodb/innodb_temp_file", analysis.WaitDataIO},
		{"wait/io/table", "sql/handler", analysis.WaitCPU},
		{"wait/io/socket", "sql/client_connection", analysis.WaitClient},
		{"wait/lock/table", "sql/handler", analysis.WaitLocks},
		{"wait/lock/metadata", "sql/mdl", analysis.WaitLocks},
		{"wait/synch/mutex", "innodb/log_sys_mutex", analysis.WaitCommit},
		{"wait/synch/mutex", "sql/LOCK_commit_ordered", analysis.WaitCommit},
		{"wait/synch/mutex", "innodb/buf_pool_mutex", analysis.WaitInternal},
		{"wait/synch/rwlock", "innodb/index_tree_rw_lock", analysis.WaitInternal},
		{"wait/synch/cond", "sql/Item_func_sleep::cond", analysis.WaitOther},
		{"wait/io/unknown", "x", analysis.WaitOther},
		{"State", "Updating", analysis.WaitCPU},
		{"State", "Sending data", analysis.WaitCPU},
		{"State", "Waiting for table metadata lock", analysis.WaitLocks},
		{"State", "waiting for handler commit", analysis.WaitCommit},
		{"State", "Sending to client", analysis.WaitClient},
		{"State", "User sleep", analysis.WaitOther},
	} {
		if got := analysis.WaitClass(c.typ, c.event); got != c.want {
			t.Errorf("WaitClass(%q, %q) = %q, want %q", c.typ, c.event, got, c.want)
		}
	}
}

func TestWaitClassesOfAndTopWaits(t *testing.T) {
	s := &result.ServerStats{Samples: 100, Active: 400, Waits: []result.Wait{
		{Type: "CPU", Samples: 48},
		{Type: "Lock", Event: "transactionid", Samples: 244},
		{Type: "LWLock", Event: "WALWrite", Samples: 72},
		{Type: "Lock", Event: "tuple", Samples: 20},
		{Type: "IO", Event: "WALSync", Samples: 16},
	}}
	cl := analysis.WaitClassesOf(s)
	want := []analysis.WaitShare{{analysis.WaitLocks, 2.64, 66}, {analysis.WaitCommit, 0.88, 22}, {analysis.WaitCPU, 0.48, 12}}
	if len(cl) != len(want) {
		t.Fatalf("WaitClassesOf = %+v, want %+v", cl, want)
	}
	for i := range want {
		if cl[i].Name != want[i].Name || math.Abs(cl[i].AvgActive-want[i].AvgActive) > 1e-9 || math.Abs(cl[i].Pct-want[i].Pct) > 1e-9 {
			t.Errorf("class %d = %+v, want %+v", i, cl[i], want[i])
		}
	}
	top := analysis.TopWaits(s, 2)
	if len(top) != 2 || top[0].Name != "Lock:transactionid" || top[0].Pct != 61 || top[1].Name != "LWLock:WALWrite" || top[1].Pct != 18 {
		t.Errorf("TopWaits = %+v, want Lock:transactionid 61 %%, LWLock:WALWrite 18 %%", top)
	}
	if analysis.WaitClassesOf(nil) != nil || analysis.TopWaits(&result.ServerStats{Samples: 10}, 3) != nil {
		t.Errorf("no server figures or no active session: want no shares")
	}
}
