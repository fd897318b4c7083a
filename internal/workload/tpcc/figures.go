package tpcc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// Figures is what a TPC-C run reports beyond the generic summary (TPC-C
// 5.11, clause 5.4 and the checks of 5.2.3 and 5.2.5.3), for the whole run
// and for each instance: the result's "tpcc" section (result.Run.Section,
// result.InstancePart.Section), which scripts read ("tpcc": {"tpmc": ...}).
type Figures struct {
	Warehouses int `json:"warehouses"` // per instance (--warehouses)
	// Terminals is the number of virtual users (each bound to a home warehouse).
	Terminals  int     `json:"terminals"`
	ThinkScale float64 `json:"think_scale"`
	// TpmC is New-Order transactions completed per minute of the measured
	// window, the intentionally rolled-back ones included (clause 5.4.1).
	TpmC float64 `json:"tpmc"`
	// NOPM is committed New-Orders per minute (rolled-back ones excluded), the
	// figure HammerDB reports from d_next_o_id.
	NOPM float64 `json:"nopm"`
	// TPM is all transactions per minute.
	TPM float64 `json:"tpm"`
	// ServerTPM is transactions per minute as the database server counted
	// them over the measured window, its commits and rollbacks, the way
	// HammerDB reports TPM: PostgreSQL's pg_stat_database for the run's
	// database (less the server-stats monitor's own queries, one per
	// sample), MySQL's and MariaDB's Com_commit and Com_rollback (the whole
	// server's: over several instances on one server, the run's figure is
	// the largest instance's, not their sum), less the calls that failed,
	// which the server counts as rollbacks (see serverTPM). Absent when the
	// server was not sampled (--server-stats off, SQLite) and when the
	// failed calls were more than maxFailedShare of the server's count.
	ServerTPM float64 `json:"server_tpm,omitempty"`
	// ServerNOPM is New-Orders per minute as the database counted them over
	// the measured window, the way HammerDB reports NOPM: the growth of the
	// districts' next order ids (the sum of d_next_o_id), which only
	// committed New-Orders move. Absent when the server was not sampled.
	ServerNOPM float64 `json:"server_nopm,omitempty"`
	// InServer is --in-server's form when the transactions ran as routines
	// in the database ("on", "functions", "procedures"); absent client-side.
	InServer string `json:"in_server,omitempty"`
	// CeilingTpmC is the tpmC the terminals would reach with zero response
	// time at this think scale and mix: 60 × terminals × New-Order share /
	// mean (keying + think) time. With the spec's times and 10 terminals per
	// warehouse it is 12.86 × warehouses. Zero (absent) when there is no
	// keying or think time (--think-scale 0) or in an open-loop run.
	CeilingTpmC float64 `json:"ceiling_tpmc,omitempty"`
	// EfficiencyPct is TpmC / CeilingTpmC in percent.
	EfficiencyPct float64 `json:"efficiency_pct,omitempty"`
	// Mix is the achieved share of each transaction type, with the spec's
	// minimum where it sets one (clause 5.2.3); ok allows a shortfall of two
	// transactions per terminal, the granularity of the dealing.
	Mix []Mix `json:"mix"`
	// Shares of special cases, in percent of their transaction type.
	RollbackPct          float64 `json:"rollback_pct"`             // New-Orders rolled back (spec: 1 %)
	RemoteOrderLinePct   float64 `json:"remote_order_line_pct"`    // order lines supplied by another warehouse (spec: 1 % when W > 1)
	RemotePaymentPct     float64 `json:"remote_payment_pct"`       // Payments by a customer of another warehouse (spec: 15 % when W > 1)
	PaymentByNamePct     float64 `json:"payment_by_name_pct"`      // Payments selecting the customer by last name (spec: 60 %)
	OrderStatusByNamePct float64 `json:"order_status_by_name_pct"` // the same for Order-Status (spec: 60 %)
	// Limits are the 90th-percentile response-time limits of clause 5.2.5.3.
	Limits []Limit `json:"limits"`
	// Notes explain figures that need it (think scale 0, open loop, inline Delivery).
	Notes []string `json:"notes,omitempty"`
}

// Mix is one transaction type's share of the mix.
type Mix struct {
	Name   string  `json:"name"`
	Count  int64   `json:"count"`
	Pct    float64 `json:"pct"`
	MinPct float64 `json:"min_pct,omitempty"`
	OK     bool    `json:"ok"`
}

// Limit is one transaction type's 90th-percentile response time against
// the spec's limit.
type Limit struct {
	Name    string  `json:"name"`
	P90Ms   float64 `json:"p90_ms"`
	LimitMs float64 `json:"limit_ms"`
	OK      bool    `json:"ok"`
}

// generic returns the figures as reports render them, for a run of
// instances instances: tpmC, NOPM, all transactions and the efficiency on
// the title's line; a table of the mix against its minimums and each
// transaction's 90th percentile against its limit; the special cases'
// shares; the limits as checks; the notes.
func (f *Figures) generic(instances int) *result.Figures {
	scale := fmt.Sprintf("%d warehouse(s)", f.Warehouses)
	if instances > 1 {
		scale = fmt.Sprintf("%d instances of %d warehouse(s)", instances, f.Warehouses)
	}
	g := f.headline()
	g.Title = fmt.Sprintf("TPC-C, %s, %d terminal(s), think scale %g", scale, f.Terminals, f.ThinkScale)
	if f.InServer != "" {
		g.Title += ", transactions in the server"
	}
	g.Headline = append(g.Headline, result.Figure{Name: "all transactions", Value: f.TPM, Unit: "/min"})
	if f.ServerNOPM > 0 {
		g.Headline = append(g.Headline, result.Figure{Name: "NOPM (database's next order ids)", Value: f.ServerNOPM})
	}
	if f.ServerTPM > 0 {
		g.Headline = append(g.Headline, result.Figure{Name: "TPM (server's commits + rollbacks)", Value: f.ServerTPM, Unit: "/min"})
	}
	if f.CeilingTpmC > 0 {
		g.Headline = append(g.Headline,
			result.Figure{Name: "efficiency", Value: f.EfficiencyPct, Unit: "%", Decimals: 1},
			result.Figure{Name: "ceiling", Value: f.CeilingTpmC, Unit: "tpmC"})
	}
	t := result.Table{Columns: []string{"transaction", "count", "mix %", "min %", "p90 ms", "limit ms", ""}}
	for i, m := range f.Mix {
		flag := ""
		if !m.OK {
			flag = "mix below minimum"
		}
		var p90, limit float64
		if i < len(f.Limits) {
			p90, limit = f.Limits[i].P90Ms, f.Limits[i].LimitMs
			if !f.Limits[i].OK {
				flag = strings.TrimPrefix(flag+"; p90 over limit", "; ")
			}
		}
		t.Rows = append(t.Rows, []string{m.Name, fmt.Sprint(m.Count), fmt.Sprintf("%.2f", m.Pct), fmt.Sprintf("%.0f", m.MinPct),
			fmt.Sprintf("%.2f", p90), fmt.Sprintf("%.0f", limit), flag})
	}
	g.Tables = []result.Table{t}
	share := func(name string, v float64, decimals int) result.Figure {
		return result.Figure{Name: name, Value: v, Unit: "%", Decimals: decimals}
	}
	g.Details = []result.Figure{
		share("rolled back New-Orders", f.RollbackPct, 2),
		share("remote order lines", f.RemoteOrderLinePct, 2),
		share("remote Payments", f.RemotePaymentPct, 2),
		share("Payments by last name", f.PaymentByNamePct, 1),
		share("Order-Status by last name", f.OrderStatusByNamePct, 1),
	}
	for _, m := range f.Mix {
		if m.MinPct > 0 {
			g.Checks = append(g.Checks, result.Check{Name: m.Name + " mix", Got: m.Pct, Limit: m.MinPct, Unit: "%", Min: true, OK: m.OK, Decimals: 2})
		}
	}
	for _, l := range f.Limits {
		g.Checks = append(g.Checks, result.Check{Name: l.Name + " p90", Got: l.P90Ms, Limit: l.LimitMs, Unit: "ms", OK: l.OK, Decimals: 2})
	}
	g.Notes = slices.Clone(f.Notes)
	return g
}

// headline returns tpmC and NOPM: an instance's figures on its line of the
// summary.
func (f *Figures) headline() *result.Figures {
	return &result.Figures{Headline: []result.Figure{{Name: "tpmC", Value: f.TpmC}, {Name: "NOPM", Value: f.NOPM}}}
}

// serverNOPM is the New-Orders per minute the database counted (see
// Figures.ServerNOPM); 0 when s holds none.
func serverNOPM(s *result.ServerStats) float64 {
	if n, ok := s.Rate("workload." + newOrdersCounter); ok {
		return n * 60
	}
	return 0
}

// failedCalls are the calls and attempts that failed in a summary's
// measured window of seconds: its errors and its retried attempts
// (deadlocks, serialization failures). The server counts each that reached
// it as a rollback (measured on PostgreSQL and MariaDB, client-side and
// --in-server).
type failedCalls struct {
	errors, retries int64
	seconds         float64
}

func failedIn(s result.Summary) failedCalls { return failedCalls{s.Errors, s.Retries, s.DurationS} }

func (f failedCalls) total() int64 { return f.errors + f.retries }

// perMinute is the failed calls per minute of their window.
func (f failedCalls) perMinute() float64 {
	if f.seconds <= 0 {
		return 0
	}
	return float64(f.total()) / f.seconds * 60
}

// add is f and g over one window: their counts added, the longer window.
func (f failedCalls) add(g failedCalls) failedCalls {
	return failedCalls{f.errors + g.errors, f.retries + g.retries, max(f.seconds, g.seconds)}
}

// maxFailedShare is the largest share of the server's count that failed
// calls may be for the server's TPM to be reported less them: the server's
// window (between its counters' snapshots) is a few milliseconds off the
// measured window, so when failures are most of what it counted, their
// difference is mostly that offset (measured: 13,153 failed calls in 5 s
// against 13,154 rollbacks in 5.019 s).
const maxFailedShare = 0.10

// serverTx is the transactions the server counted over its window (see
// Figures.ServerTPM), failed calls included, and that window's seconds; ok
// is false when s holds no such counters. global is true when the counters
// are the whole server's (MySQL's), not the run's database's.
func serverTx(s *result.ServerStats) (n, seconds float64, global, ok bool) {
	if s == nil || s.DurationS <= 0 {
		return 0, 0, false, false
	}
	sum := func(names ...string) (float64, bool) {
		var t float64
		for _, n := range names {
			v, ok := s.Counters[n]
			if !ok {
				return 0, false
			}
			t += v
		}
		return t, true
	}
	if n, ok := sum("pg_stat_database.xact_commit", "pg_stat_database.xact_rollback"); ok {
		return max(n-float64(s.Samples), 0), s.DurationS, false, true
	}
	if n, ok := sum("status.Com_commit", "status.Com_rollback"); ok {
		return n, s.DurationS, true, true
	}
	return 0, 0, false, false
}

// serverTPM is the transactions per minute the server counted (see
// Figures.ServerTPM) less failed, the calls that failed, which the server
// counted as rollbacks: no throughput figure counts a failed call. It is 0
// when s holds no counters, or when the failed calls are more than
// maxFailedShare of what the server counted; note then says why, and
// otherwise, when calls failed, that they were left out.
func serverTPM(s *result.ServerStats, failed failedCalls) (tpm float64, global bool, note string) {
	n, seconds, global, ok := serverTx(s)
	if !ok {
		return 0, false, ""
	}
	tpm, failedTPM := n/seconds*60, failed.perMinute()
	if failed.total() == 0 {
		return tpm, global, ""
	}
	which := fmt.Sprintf("%d calls that failed (%d errors, %d retried attempts; the server counts each as a rollback)",
		failed.total(), failed.errors, failed.retries)
	if failedTPM > maxFailedShare*tpm {
		return 0, global, fmt.Sprintf("TPM from the server's commits and rollbacks is not reported: of the %.0f/min it counted, the %s were %.0f/min, more than %.0f%% of it: too many to take out of a count whose window is a few milliseconds off the measured one",
			tpm, which, failedTPM, 100*maxFailedShare)
	}
	return tpm - failedTPM, global,
		fmt.Sprintf("TPM (server's commits + rollbacks) leaves out the %s, %.0f/min", which, failedTPM)
}
