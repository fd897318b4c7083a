package report

import (
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/analysis"
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
