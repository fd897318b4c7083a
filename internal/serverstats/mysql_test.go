package serverstats

import "testing"

// The threads seen on MariaDB 10.11 with 6 clients updating 3 rows: a
// lock waiter reads state "Updating", wait event wait/io/table/sql/handler
// (not ended) and trx_state "LOCK WAIT"; only the last tells it apart.
func TestMySQLWait(t *testing.T) {
	for _, c := range []struct {
		th     mysqlThread
		waits  bool
		want   waitKey
		active bool
	}{
		{mysqlThread{"Query", "Updating", "LOCK WAIT", "wait/io/table/sql/handler"}, true, waitKey{"Lock", "row"}, true},
		{mysqlThread{"Query", "Updating", "LOCK WAIT", ""}, false, waitKey{"Lock", "row"}, true},
		{mysqlThread{"Query", "Updating", "RUNNING", "wait/io/table/sql/handler"}, true, waitKey{"wait/io/table", "sql/handler"}, true},
		{mysqlThread{"Query", "Updating", "RUNNING", ""}, true, waitKey{typ: "CPU"}, true},
		{mysqlThread{"Query", "Updating", "RUNNING", ""}, false, waitKey{"State", "Updating"}, true},
		{mysqlThread{"Query", "Waiting for table metadata lock", "", ""}, false, waitKey{"Lock", "metadata"}, true},
		{mysqlThread{"Query", "Waiting for table level lock", "", ""}, true, waitKey{"Lock", "table"}, true},
		{mysqlThread{"Execute", "", "", ""}, false, waitKey{"State", "Execute"}, true},
		{mysqlThread{"Query", "", "", "wait/io/file/innodb/innodb_log_file"}, true, waitKey{"wait/io/file", "innodb/innodb_log_file"}, true},
		{mysqlThread{"Sleep", "", "RUNNING", ""}, true, waitKey{}, false},
	} {
		got, active := mysqlWait(c.th, c.waits)
		if got != c.want || active != c.active {
			t.Errorf("mysqlWait(%+v, %v) = %+v, %v; want %+v, %v", c.th, c.waits, got, active, c.want, c.active)
		}
	}
}

func TestSplitInstrument(t *testing.T) {
	for _, c := range []struct{ name, typ, event string }{
		{"wait/io/file/innodb/innodb_data_file", "wait/io/file", "innodb/innodb_data_file"},
		{"wait/synch/mutex/sql/LOCK_open", "wait/synch/mutex", "sql/LOCK_open"},
		{"idle", "idle", ""},
	} {
		if typ, event := splitInstrument(c.name); typ != c.typ || event != c.event {
			t.Errorf("splitInstrument(%q) = %q, %q", c.name, typ, event)
		}
	}
}
