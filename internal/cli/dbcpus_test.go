package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/sizing"
	"github.com/rightsize/rightsize/internal/testenv"
)

// databaseCgroup is the database's cgroup figures of a step (nil: none).
func databaseCgroup(h *result.Host) *result.Cgroup {
	if h == nil {
		return nil
	}
	for i, c := range h.Cgroups {
		if c.Role == "database" {
			return &h.Cgroups[i]
		}
	}
	return nil
}

// TestSweepDBCPUs sweeps a private PostgreSQL in a cgroup of its own over
// --db-cpus 0.25,1: each step holds its processes to the allotment (the
// cgroup's quota, as the step's figures record it), the quarter CPU is
// throttled and carries less, and when the sweep ends the cgroup is as it
// was (no limit), and says so.
func TestSweepDBCPUs(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	path, cpuDir := srv.OwnCgroup(t)
	url := srv.AdminURL(srv.FreshDB(t))
	out := filepath.Join(t.TempDir(), "s.json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o := run(t, ctx, "sweep", "oltp_point_select", "--target", url, "--prepare", "always", "--table-size", "1000", "--db-cpus", "1,0.25",
		"--threads", "4", "--warmup", "1s", "--time", "3s", "--out", out, "--no-history", "--server-stats", "off")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	t.Logf("stdout:\n%s", o.stdout)
	sw := readSweep(t, strings.TrimSuffix(out, ".json")+"-sweep.json")
	if sw.Axis != "CPUs" || len(sw.Steps) != 2 || sw.Steps[0].X != 0.25 || sw.Steps[1].X != 1 {
		t.Fatalf("axis %q, steps %+v: want CPUs 0.25, 1", sw.Axis, sw.Steps)
	}
	var thr [2]float64
	for i, st := range sw.Steps {
		cg := databaseCgroup(st.Host)
		if cg == nil || cg.Path != path || cg.LimitCPUs != st.X {
			t.Errorf("step %s: the database's cgroup %+v, want %s held to %g CPUs", st.Label, cg, path, st.X)
			continue
		}
		thr[i] = st.Throughput
		t.Logf("%s: %.0f/s, p99 %.2f ms, cgroup used %.2f CPUs, throttled %.0f%% of periods", st.Label, st.Throughput, st.P99Ms, cg.UsedCPUs, cg.ThrottledPct)
	}
	if cg := databaseCgroup(sw.Steps[0].Host); cg != nil && !(cg.ThrottledPct > 0) {
		t.Errorf("a quarter CPU under 4 users was never throttled: %+v", cg)
	}
	if !(thr[1] > 1.5*thr[0]) {
		t.Errorf("1 CPU carried %.0f/s, a quarter %.0f/s: want well over", thr[1], thr[0])
	}
	if q, _ := os.ReadFile(filepath.Join(cpuDir, "cpu.cfs_quota_us")); len(q) > 0 && strings.TrimSpace(string(q)) != "-1" {
		t.Errorf("after the sweep the quota is %s, want -1 (none, as found)", q)
	}
	for _, want := range []string{"holding the database's cgroup " + path + " to 0.25 CPUs (it had no limit", "the database's cgroup " + path + " is back to no limit"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, o.stderr)
		}
	}
	if want := "Held by the database's CPU allotment (its cgroup's quota), not the host's CPUs: cpus 0.25 (the database's cgroup " + path + " used 0.2"; !strings.Contains(o.stdout, want) {
		t.Errorf("the verdict does not say %q", want)
	}
}

// TestDBCPUsRefused: --db-cpus on a database rightsize cannot hold apart
// (an embedded one) or past the host's CPUs is refused before any step,
// exit 2, with why.
func TestDBCPUsRefused(t *testing.T) {
	dir := t.TempDir()
	o := run(t, context.Background(), "run", "oltp_point_select", "--target", "sqlite:"+filepath.Join(dir, "x.db"), "--table-size", "100",
		"--db-cpus", "0.5", "--time", "1s", "--out", "-", "--no-history")
	if o.code != ExitUsage || !strings.Contains(o.stderr, "load generator") {
		t.Errorf("an embedded database: exit %d\n%s", o.code, o.stderr)
	}
}

// TestPlanVerify: a sweep of a private PostgreSQL held to half a CPU
// (--db-cpus 0.5), a plan from it at an objective with predictions on 0.5
// and 1 CPU, and --verify: the target rate run with the server held to
// the planned vCPUs, predicted beside measured in the plan file, PASS, and
// the cgroup as it was afterwards. The target, 150/s, is under the sweep's
// 200/s: a step the load generator could not keep up with (a busy host)
// would otherwise put it past the sweep's knee.
func TestPlanVerify(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	_, cpuDir := srv.OwnCgroup(t)
	url := srv.AdminURL(srv.FreshDB(t))
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	o := run(t, ctx, "sweep", "oltp_point_select", "--target", url, "--prepare", "always", "--table-size", "1000", "--db-cpus", "0.5",
		"--rate", "100,200,400", "--slo", "50ms", "--warmup", "1s", "--time", "3s", "--out", filepath.Join(dir, "s.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	o = run(t, ctx, "plan", "--from", filepath.Join(dir, "s-sweep.json"), "--target-rate", "150", "--predict-cpus", "0.5,1", "--format", "json",
		"--verify", "--", "oltp_point_select", "--target", url, "--table-size", "1000", "--warmup", "1s", "--time", "3s", "--out", filepath.Join(dir, "v.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("plan --verify: exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	var r sizing.Report
	if err := json.Unmarshal([]byte(o.stdout), &r); err != nil {
		t.Fatalf("plan file: %v\n%s", err, o.stdout)
	}
	s := r.Sizing
	if s == nil || s.Objective == nil || s.Verified == nil {
		t.Fatalf("no sizing, objective or verification:\n%s\n%s", o.stdout, o.stderr)
	}
	v := s.Verified
	if !v.Pass || v.CPUs != float64(s.VCPU) || v.Rate != 150 || v.Measured.Throughput < 142 || !(v.PredictedP99Ms > 0) || v.Result != filepath.Join(dir, "v.json") ||
		!strings.Contains(v.Command, "--rate 150 --db-cpus "+strconv.Itoa(s.VCPU)) || v.ObjectiveMs != 50 {
		t.Errorf("verification %+v: want a PASS at 150/s on %d CPUs, its command and result", v, s.VCPU)
	}
	if at := s.Objective.At; len(at) != 2 || at[0].CPUs != 0.5 || !at[0].CPUsMeasured || at[1].CPUsMeasured || !(at[1].Capacity > at[0].Capacity) {
		t.Errorf("predictions %+v: want 0.5 (measured) and 1 CPU, more on 1", at)
	}
	if q, _ := os.ReadFile(filepath.Join(cpuDir, "cpu.cfs_quota_us")); len(q) > 0 && strings.TrimSpace(string(q)) != "-1" {
		t.Errorf("after the verification the quota is %s, want -1", q)
	}
	t.Logf("verified: %s\npredictions: %+v", v.Sentence(), s.Objective.At)
}

// verifyStudy sweeps rates on a server held to half a CPU and checks its
// plan with a run (plan: verify: true).
const verifyStudy = `study: verifyme
options: {table-size: 1000, warmup: 1s, time: 3s, db-cpus: 0.5, threads: 4, prepare: always}
steps:
  - name: rates
    sweep: oltp_point_select
    axis: rate
    values: [100, 200, 400]
    options: {slo: 50ms}
plan: {step: rates, target-rate: 150, verify: true}
report: {format: md, path: r.md}
`

// TestStudyVerifiesItsPlan: a study's plan with verify: true runs the
// plan step's workload at the target rate on the planned vCPUs (its sweep
// flags left out) and writes the check into plan.json and the console.
func TestStudyVerifiesItsPlan(t *testing.T) {
	srv := testenv.PrivatePostgres(t)
	srv.OwnCgroup(t)
	url := srv.AdminURL(srv.FreshDB(t))
	dir := t.TempDir()
	o := studyIn(t, writeStudy(t, dir, verifyStudy), filepath.Join(dir, "h.db"), filepath.Join(dir, "out"), "--target", url)
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r sizing.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	v := r.Sizing.Verified
	if v == nil || !v.Pass || v.Rate != 150 || strings.Contains(v.Command, "--slo") || strings.Contains(v.Command, "--rate=") || !strings.Contains(o.stdout, "plan verified by a run: PASS") {
		t.Errorf("verification %+v\n%s", v, o.stdout)
	}
}

// TestPlanVerifyRefused: --verify on a database rightsize cannot hold
// apart (an embedded one) is refused, exit 2, with why; --verify without
// a workload, or with a flag the plan sets, too.
func TestPlanVerifyRefused(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite:" + filepath.Join(dir, "x.db")
	o := run(t, context.Background(), "sweep", "oltp_point_select", "--target", db, "--prepare", "always", "--table-size", "200", "--threads", "1,2",
		"--time", "300ms", "--report-interval", "300ms", "--out", filepath.Join(dir, "s.json"), "--no-history")
	if o.code != ExitOK {
		t.Fatalf("sweep: exit %d\n%s", o.code, o.stderr)
	}
	from := filepath.Join(dir, "s-sweep.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--verify", "--", "oltp_point_select", "--target", db, "--table-size", "200", "--time", "1s"}, "load generator"},
		{[]string{"--verify"}, "give it after --"},
		{[]string{"--verify", "--", "oltp_point_select", "--rate", "5"}, "--verify sets --rate from the plan"},
		{[]string{"--", "oltp_point_select"}, "plan takes no arguments"},
	} {
		o := run(t, context.Background(), append([]string{"plan", "--from", from, "--target-rate", "100"}, c.args...)...)
		if o.code != ExitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("plan %v: exit %d, want 2 and %q:\n%s", c.args, o.code, c.want, o.stderr)
		}
	}
}
