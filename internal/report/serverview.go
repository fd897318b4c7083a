package report

import (
	"fmt"
	"strings"

	"github.com/rightsize/rightsize/internal/analysis"
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
		s += ": the server mostly waited for its client, so the load generator or the network was the limit, not the database"
	case analysis.CheckCPU:
		s += ": its sessions were on CPU while the host was CPU-bound, so the database's CPU is the limit"
	case analysis.CheckNotCPU:
		s += fmt.Sprintf(": %s, not CPU; more vCPUs would not raise the knee", classHint[v.Class])
	}
	if v.Note != "" {
		s += " (" + v.Note + ")"
	}
	return s + "."
}
