package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

func TestServerSentence(t *testing.T) {
	locks := &analysis.ServerView{AvgActive: 3.5, Class: analysis.WaitLocks, Check: analysis.CheckNotCPU,
		Classes: []analysis.WaitShare{{Name: analysis.WaitLocks, Pct: 74}, {Name: analysis.WaitCPU, Pct: 16}},
		Top:     []analysis.WaitShare{{Name: "Lock:transactionid", Pct: 58}, {Name: "CPU", Pct: 16}, {Name: "Lock:tuple", Pct: 16}}}
	want := "The database's own view at threads 8: 3.5 active sessions, 58% Lock:transactionid, 16% on CPU, 16% Lock:tuple (row/table locks 74%): row or table locks: virtual users wait for each other on the same rows (hot rows) or tables, not CPU; more vCPUs would not raise the knee."
	if got := ServerSentence(locks, "threads 8"); got != want {
		t.Errorf("locks:\n%s\nwant\n%s", got, want)
	}
	client := &analysis.ServerView{AvgActive: 0.4, Class: analysis.WaitClient, Check: analysis.CheckClient,
		Classes: []analysis.WaitShare{{Name: analysis.WaitClient, Pct: 80}}, Top: []analysis.WaitShare{{Name: "Client:ClientRead", Pct: 80}}}
	if got := ServerSentence(client, "rate 5x"); !strings.Contains(got, "the load generator or the network was the limit, not the database") {
		t.Errorf("client: %s", got)
	}
	hidden := &analysis.ServerView{Note: "grant pg_read_all_stats to see other users' sessions"}
	if got := ServerSentence(hidden, "rate 1x"); !strings.Contains(got, "no active session seen (grant pg_read_all_stats") {
		t.Errorf("hidden: %s", got)
	}
	if ServerSentence(nil, "x") != "" {
		t.Error("a sentence of no view")
	}
}

// A sweep's server figures by step: a table in text and HTML, the ASH
// chart (stacked by class) in HTML, and columns in the steps' CSV.
func TestSweepShowsTheServersWaits(t *testing.T) {
	locks := &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: 350, Waits: []result.Wait{
		{Type: "Lock", Event: "transactionid", Samples: 200}, {Type: "Lock", Event: "tuple", Samples: 60}, {Type: "CPU", Samples: 90}}}
	cpu := &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: 120, Waits: []result.Wait{{Type: "CPU", Samples: 120}}}
	sw := &result.Sweep{ID: "s", Workload: "w", Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, ServerStats: cpu, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30}}},
		{Label: "threads 8", X: 8, Throughput: 120, ServerStats: locks, Host: &result.Host{CPUs: 2, CPU: result.CPUPct{User: 35}}},
	}}
	a := analysis.Analyze(sw, analysis.OptionsOf(sw))
	var b bytes.Buffer
	if err := SweepDocument(&b, Doc{Sweep: a}, Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"what the database's sessions did, by step (average active sessions):", "threads 1    1.20  1.20                0             on CPU 100%", "threads 8    3.50  0.90             2.60  Lock:transactionid 57%"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := HTML(&b, Doc{Sweep: a}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<h2>What the database waited on</h2>", "What the database waited on, by step", "Database&#39;s average active sessions by wait class"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	b.Reset()
	rows := []StepRow{StepRowOf(sw.Steps[0]), StepRowOf(sw.Steps[1])}
	if err := StepCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",db active sessions,db CPU,db row/table locks,") || !strings.Contains(b.String(), ",3.500,0.900,2.600,0,0,0,0,0,Lock:transactionid,57.1") {
		t.Errorf("CSV:\n%s", b.String())
	}
}

// Beside the waits, a sweep's steps show the server's commits per second
// and its processes' CPU, and the statements that took most of its time;
// a run's text names them too.
func TestSweepShowsTheServersStatementsAndCPU(t *testing.T) {
	st := &result.ServerStats{Source: "pg_stat_activity", Samples: 100, Active: 120, Waits: []result.Wait{{Type: "CPU", Samples: 120}},
		DurationS: 10, Counters: map[string]float64{"pg_stat_database.xact_commit": 12000},
		Statements: []result.Statement{{Text: "UPDATE hot SET n = n + $1 WHERE id = $2", Calls: 12000, TimeMs: 6000, Share: 0.75},
			{Text: "SELECT n FROM hot WHERE id = $1", Calls: 12000, TimeMs: 2000, Share: 0.25}}}
	host := &result.Host{CPUs: 2, CPU: result.CPUPct{User: 30}, ServerCPU: []result.ServerCPU{{Server: "postgres (PID 7)", UsedCPUs: 1.25, Processes: 9}}}
	sw := &result.Sweep{ID: "s", Workload: "w", Axis: "threads", HostIsServer: true, Steps: []result.SweepStep{
		{Label: "threads 1", X: 1, Throughput: 100, ServerStats: st, Host: host},
		{Label: "threads 8", X: 8, Throughput: 120, Host: &result.Host{CPUs: 2}},
	}}
	a := analysis.Analyze(sw, analysis.OptionsOf(sw))
	var b bytes.Buffer
	if err := SweepDocument(&b, Doc{Sweep: a}, Text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"top wait  commits/s  server CPUs", "on CPU 100%      1,200         1.25",
		"statements that took the most of the database's time, by step:", "threads 1    75%    1,200    0.500  UPDATE hot SET n = n + $1 WHERE id = $2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := HTML(&b, Doc{Sweep: a}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Statements that took the most of the database&#39;s time, by step") {
		t.Errorf("HTML lacks the statements' table")
	}
	b.Reset()
	r := &result.Run{Workload: "w", Event: "transaction", ServerStats: st, Host: host}
	ew := &errWriter{w: &b}
	serverLines(ew, r)
	for _, want := range []string{"statements by server time: 75% UPDATE hot SET n = n + $1 WHERE id = $2 (1,200/s, 0.50 ms each); 25% SELECT",
		"server processes on this host (their own CPU, from /proc): postgres (PID 7) 1.25 CPUs (9 processes)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("run lacks %q:\n%s", want, b.String())
		}
	}
}
