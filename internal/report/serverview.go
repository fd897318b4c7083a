package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
	"github.com/rightsize/rightsize/internal/result"
)

// The database's own view of the step that held a sweep (analysis.ServerView)
// in words: its sessions' waits and what they say beside the host's figures.
//
//	The database's own view at rate 4x: 3.5 active sessions, 58% Lock:transactionid, 16% Lock:tuple, 16% on CPU (row/table locks 74%): ...

// classHint says what a wait class means for the system and what would
// move it.
var classHint = map[string]string{
	analysis.WaitLocks:    "row or table locks: virtual users wait for each other on the same rows (hot rows) or tables",
	analysis.WaitInternal: "the server's own short locks (LWLocks, buffer pins): internal contention",
	analysis.WaitCommit:   "the log at commit (its writes and flushes): a faster log device, or group commit, moves it",
	analysis.WaitDataIO:   "reading and writing data files: more memory for the cache, or faster storage, moves it",
}

// waitName is a wait as a DBA reads it: "on CPU", or "Type:Event".
func waitName(name string) string {
	if name == analysis.WaitCPU {
		return "on CPU"
	}
	return name
}

// ServerSentence words a ServerView at the step named at; "" for none.
func ServerSentence(v *analysis.ServerView, at string) string {
	if v == nil {
		return ""
	}
	if len(v.Top) == 0 {
		if v.Note != "" {
			return fmt.Sprintf("The database's own view at %s: no active session seen (%s).", at, v.Note)
		}
		return ""
	}
	var top []string
	for _, w := range v.Top {
		top = append(top, fmt.Sprintf("%.0f%% %s", w.Pct, waitName(w.Name)))
	}
	s := fmt.Sprintf("The database's own view at %s: %.1f active sessions, %s", at, v.AvgActive, strings.Join(top, ", "))
	if v.Class != "" && v.Classes[0].Name != analysis.WaitCPU {
		s += fmt.Sprintf(" (%s %.0f%%)", v.Class, v.Classes[0].Pct)
	}
	switch v.Check {
	case analysis.CheckClient:
		if v.IdleInTx > 0 {
			s += fmt.Sprintf("; %.1f more sat idle inside their transactions, waiting for the client's next statement", v.IdleInTx)
		}
		s += ": the server mostly waited for its client, so the load generator or the network was the limit, not the database"
	case analysis.CheckCPU:
		s += ": its sessions were on CPU while the host was CPU-bound, so the database's CPU is the limit"
	case analysis.CheckNotCPU:
		s += fmt.Sprintf(": %s, not CPU; more vCPUs would not raise the knee", classHint[v.Class])
		if v.HostBusy {
			s += " (the host's CPUs were busy all the same, but not with the database's sessions: the load generator or other processes took them)"
		}
	}
	if v.Note != "" {
		s += " (" + v.Note + ")"
	}
	return s + "."
}

// waitSteps is a sweep's server figures by step: the average active
// sessions, those of each wait class some step has, the top wait, and
// beside them the server's commits per second and its processes' CPU
// where some step has them; false when no step has server figures.
func waitSteps(sw *analysis.Result) (table, bool) {
	stats := make([]*result.ServerStats, len(sw.Steps))
	hosts := make([]*result.Host, len(sw.Steps))
	names := make([]string, len(sw.Steps))
	for i, st := range sw.Steps {
		stats[i], hosts[i], names[i] = st.ServerStats, st.Host, stepName(sw, i)
	}
	return waitTable("what the database's sessions did, by step (average active sessions)", "step", names, stats, hosts)
}

// waitTable is a table of server figures, a row each named by names: the
// average active sessions, those of each wait class some row has, the top
// wait, and the server's commits per second and its processes' CPU where
// some row has them; false when no row has server figures.
func waitTable(title, first string, names []string, stats []*result.ServerStats, hosts []*result.Host) (table, bool) {
	if !slices.ContainsFunc(stats, func(s *result.ServerStats) bool { return s != nil }) {
		return table{}, false
	}
	var classes []string
	for _, c := range analysis.WaitClasses {
		if slices.ContainsFunc(stats, func(s *result.ServerStats) bool {
			return slices.ContainsFunc(analysis.WaitClassesOf(s), func(w analysis.WaitShare) bool { return w.Name == c })
		}) {
			classes = append(classes, c)
		}
	}
	commits := slices.ContainsFunc(stats, func(s *result.ServerStats) bool { _, ok := serverCommits(s); return ok })
	cpu := slices.ContainsFunc(hosts, func(h *result.Host) bool { _, ok := h.ServerUsedCPUs(); return ok })
	t := table{title: title, head: append([]string{first, "active"}, classes...)}
	t.head = append(t.head, "top wait")
	if commits {
		t.head = append(t.head, "commits/s")
	}
	if cpu {
		t.head = append(t.head, "server CPUs")
	}
	for i, name := range names {
		row := append([]string{name}, waitCells(stats[i], classes)...)
		if commits {
			cell := "-"
			if v, ok := serverCommits(stats[i]); ok {
				cell = Grouped(v)
			}
			row = append(row, cell)
		}
		if cpu {
			cell := "-"
			if v, ok := hosts[i].ServerUsedCPUs(); ok {
				cell = fmt.Sprintf("%.2f", v)
			}
			row = append(row, cell)
		}
		t.rows = append(t.rows, row)
	}
	return t, true
}

// waitCells are a server's average active sessions, those of each of
// classes and its top wait with its share ("-" each without figures).
func waitCells(s *result.ServerStats, classes []string) []string {
	if s == nil {
		row := make([]string, len(classes)+2)
		for i := range row {
			row[i] = "-"
		}
		return row
	}
	row := []string{fmt.Sprintf("%.2f", s.AvgActive())}
	shares := analysis.WaitClassesOf(s)
	for _, c := range classes {
		cell := "0"
		if j := slices.IndexFunc(shares, func(w analysis.WaitShare) bool { return w.Name == c }); j >= 0 {
			cell = fmt.Sprintf("%.2f", shares[j].AvgActive)
		}
		row = append(row, cell)
	}
	top := "-"
	if w := analysis.TopWaits(s, 1); len(w) > 0 {
		top = fmt.Sprintf("%s %.0f%%", waitName(w[0].Name), w[0].Pct)
	}
	return append(row, top)
}

// waitsCompareTable is each configuration's server figures at the
// compared step (one instance's; with several, the first sampled one's);
// false when none has them.
func waitsCompareTable(c analysis.ConfigComparison) (table, bool) {
	names := make([]string, len(c.Rows))
	stats := make([]*result.ServerStats, len(c.Rows))
	hosts := make([]*result.Host, len(c.Rows))
	for i, row := range c.Rows {
		names[i] = row.Config
		if r := c.ConfigNamed(row.Config).RunAt(row.Step); r != nil {
			stats[i], hosts[i] = runServer(r), r.Host
		}
	}
	return waitTable(fmt.Sprintf("What the database's sessions did at %s (average active sessions)", c.At), "configuration", names, stats, hosts)
}

// runServer is a run's server figures: the run's, else its first sampled
// instance's.
func runServer(r *result.Run) *result.ServerStats {
	if r.ServerStats != nil {
		return r.ServerStats
	}
	for _, in := range r.Instances {
		if in.ServerStats != nil {
			return in.ServerStats
		}
	}
	return nil
}

// serverCommits is the server's commits per second (PostgreSQL's
// xact_commit, MySQL's and MariaDB's Com_commit), and whether it counted them.
func serverCommits(s *result.ServerStats) (float64, bool) {
	if v, ok := s.Rate("pg_stat_database.xact_commit"); ok {
		return v, true
	}
	return s.Rate("status.Com_commit")
}

// statementSteps is a sweep's statements that took the most of the
// database's time, by step (the first topStatementsShown of each); false
// when no step has them.
func statementSteps(sw *analysis.Result) (table, bool) {
	t := table{title: "statements that took the most of the database's time, by step", head: []string{"step", "share", "calls/s", "mean ms", "statement"}, textLast: true}
	for i, st := range sw.Steps {
		s := st.ServerStats
		if s == nil {
			continue
		}
		for _, x := range s.Statements[:min(len(s.Statements), topStatementsShown)] {
			rate := "-"
			if s.DurationS > 0 {
				rate = Grouped(x.Calls / s.DurationS)
			}
			t.rows = append(t.rows, []string{stepName(sw, i), fmt.Sprintf("%.0f%%", 100*x.Share), rate, number(x.MeanMs(), 3), shortStatement(x.Text, 80)})
		}
	}
	return t, len(t.rows) > 0
}

// serverCells are the steps CSV's columns of the database's own view,
// when some row has it: the average active sessions, each wait class's
// and the top wait with its share; a row without it has them empty.
func serverCells(rows []StepRow) (head []string, cells [][]string) {
	cells = make([][]string, len(rows))
	if !slices.ContainsFunc(rows, func(r StepRow) bool { return r.Server != nil }) {
		return nil, cells
	}
	head = []string{"db active sessions"}
	for _, c := range analysis.WaitClasses {
		head = append(head, "db "+c)
	}
	head = append(head, "db top wait", "db top wait %")
	for i, r := range rows {
		row := make([]string, len(head))
		if s := r.Server; s != nil {
			row[0] = fmt.Sprintf("%.3f", s.AvgActive())
			shares := analysis.WaitClassesOf(s)
			for k, c := range analysis.WaitClasses {
				row[1+k] = "0"
				if j := slices.IndexFunc(shares, func(w analysis.WaitShare) bool { return w.Name == c }); j >= 0 {
					row[1+k] = fmt.Sprintf("%.3f", shares[j].AvgActive)
				}
			}
			if w := analysis.TopWaits(s, 1); len(w) > 0 {
				row[len(row)-2], row[len(row)-1] = w[0].Name, fmt.Sprintf("%.1f", w[0].Pct)
			}
		}
		cells[i] = row
	}
	return head, cells
}
