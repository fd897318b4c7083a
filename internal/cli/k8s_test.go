package cli

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/k8sjob"
)

// canaryEnv is an environment full of passwords that k8s job must not read
// into the manifest nor print.
var canaryEnv = map[string]string{
	"RIGHTSIZE_TARGET":  "postgres://u:CANARY1@db:5432/bench",
	"RIGHTSIZE_HISTORY": "postgres://u:CANARY2@db:5432/history",
	"PGPASSWORD":        "CANARY3",
	"TARGET":            "mysql://u:CANARY4@db:3306/bench",
}

func noCanary(t *testing.T, o outcome) {
	t.Helper()
	if strings.Contains(o.stdout+o.stderr, "CANARY") {
		t.Errorf("a password was printed:\nstdout:\n%s\nstderr:\n%s", o.stdout, o.stderr)
	}
}

// decodeJob decodes the manifest strictly into the Job's types (the e2e
// module decodes the same commands' manifests into batch/v1's).
func decodeJob(t *testing.T, o outcome) *k8sjob.Job {
	t.Helper()
	if o.code != ExitOK {
		t.Fatalf("exit %d\nstderr:\n%s", o.code, o.stderr)
	}
	var job k8sjob.Job
	if err := k8sjob.Decode([]byte(o.stdout), &job); err != nil {
		t.Fatalf("the manifest does not decode strictly into a batch/v1 Job: %v\n%s", err, o.stdout)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("apiVersion %q kind %q", job.APIVersion, job.Kind)
	}
	if len(job.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("containers: %+v", job.Spec.Template.Spec.Containers)
	}
	return &job
}

// TestK8sJobManifest: the manifest decodes, runs the workload with the
// options given, one shard per pod, and reads the URLs from the Secret.
func TestK8sJobManifest(t *testing.T) {
	o := runWithEnv(t, context.Background(), canaryEnv,
		"k8s", "job", "tpcc", "--warehouses", "30", "--threads", "20", "--generators", "4", "--secret", "rs")
	noCanary(t, o)
	job := decodeJob(t, o)
	sp := job.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != k8sjob.IndexedCompletion ||
		sp.Parallelism == nil || *sp.Parallelism != 4 || sp.Completions == nil || *sp.Completions != 4 {
		t.Errorf("completionMode %v, parallelism %v, completions %v", sp.CompletionMode, sp.Parallelism, sp.Completions)
	}
	c := sp.Template.Spec.Containers[0]
	if c.Image != "rightsize:latest" {
		t.Errorf("image %q", c.Image)
	}
	if len(c.Args) < 2 || c.Args[0] != "run" || c.Args[1] != "tpcc" {
		t.Fatalf("args %q", c.Args)
	}
	for _, want := range []string{"--warehouses=30", "--threads=20", "env:RIGHTSIZE_TARGET", "$(JOB_COMPLETION_INDEX)/4"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args %q lack %q", c.Args, want)
		}
	}
	i := slices.Index(c.Args, "--run-id")
	if i < 0 || i+1 >= len(c.Args) {
		t.Fatalf("no --run-id in %q", c.Args)
	}
	id := c.Args[i+1]
	if !regexp.MustCompile(`^\d{8}T\d{6}Z-[0-9a-f]{6}$`).MatchString(id) {
		t.Errorf("run id %q, want a fresh one such as 20261201T100000Z-1a2b3c", id)
	}
	if job.Name != "rightsize-"+strings.ToLower(id) {
		t.Errorf("name %q for run %s", job.Name, id)
	}
	if job.Labels["app.kubernetes.io/instance"] != id || sp.Template.Labels["app.kubernetes.io/instance"] != id {
		t.Errorf("labels %v / %v", job.Labels, sp.Template.Labels)
	}
	for name, key := range map[string]string{"RIGHTSIZE_TARGET": "target", "RIGHTSIZE_HISTORY": "history"} {
		var ref *k8sjob.SecretKeySelector
		for _, e := range c.Env {
			if e.Name == name && e.ValueFrom != nil {
				ref = e.ValueFrom.SecretKeyRef
			}
		}
		if ref == nil || ref.Name != "rs" || ref.Key != key {
			t.Errorf("%s: secretKeyRef %+v, want rs/%s", name, ref, key)
		}
	}
	if q := c.Resources.Requests[k8sjob.ResourceCPU]; q != "2" { // canonical: equal values, equal strings
		t.Errorf("cpu request %s, want the default 2", q)
	}
	// stderr says what to do next; stdout is only the manifest.
	for _, want := range []string{"kubectl apply -f job.yaml", "rightsize merge --run " + id + " --history"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	if strings.Contains(o.stdout, "kubectl") {
		t.Errorf("the hint went to stdout:\n%s", o.stdout)
	}
}

// TestK8sJobOptions: the k8s options shape the Job, and the run's options
// reach the shards as given, a $ included.
func TestK8sJobOptions(t *testing.T) {
	o := runWithEnv(t, context.Background(), canaryEnv,
		"k8s", "job", "oltp_read_write", "--tables", "4", "--time", "10m", "--warmup", "30", "--rate", "200",
		"--label", "cost $(RIGHTSIZE_TARGET)", "--start-at", "2026-12-01T10:00:00Z", "--run-id", "Nightly_Run.7",
		"--generators", "10", "--secret", "bench-urls", "--target-key", "db", "--history-key", "catalog",
		"--image", "registry.example.com/rightsize:1.0", "--cpu", "1500m", "--memory", "1Gi", "--namespace", "bench")
	noCanary(t, o)
	job := decodeJob(t, o)
	c := job.Spec.Template.Spec.Containers[0]
	want := []string{"run", "oltp_read_write", "--tables=4", "--time=10m0s", "--warmup=30s", "--rate=200",
		"--label=cost $$(RIGHTSIZE_TARGET)",
		"--target", "env:RIGHTSIZE_TARGET", "--shard", "$(JOB_COMPLETION_INDEX)/10", "--run-id", "Nightly_Run.7",
		"--out", "-", "--start-at", "2026-12-01T10:00:00Z"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n %q\nwant\n %q", c.Args, want)
	}
	if job.Name != "rightsize-nightly-run-7" || job.Namespace != "bench" || c.Image != "registry.example.com/rightsize:1.0" {
		t.Errorf("name %q namespace %q image %q", job.Name, job.Namespace, c.Image)
	}
	for _, e := range c.Env {
		if r := e.ValueFrom.SecretKeyRef; r != nil && (r.Name != "bench-urls" || (r.Key != "db" && r.Key != "catalog")) {
			t.Errorf("%s: %+v", e.Name, r)
		}
	}
	for _, rl := range []k8sjob.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		cpu, mem := rl[k8sjob.ResourceCPU], rl[k8sjob.ResourceMemory]
		if cpu != "1500m" || mem != "1Gi" { // 1.5 and 1Gi in canonical form
			t.Errorf("resources %v", rl)
		}
	}
	if !strings.Contains(o.stderr, "kubectl apply -n bench -f job.yaml") {
		t.Errorf("stderr:\n%s", o.stderr)
	}

	o = run(t, context.Background(), "k8s", "job", "tpcc", "--generators", "2", "--secret", "rs", "--name", "tpcc-30w")
	if job := decodeJob(t, o); job.Name != "tpcc-30w" {
		t.Errorf("--name: %q", job.Name)
	}
}

// TestK8sJobRefused: usage errors exit 2 with one message, print no
// manifest, and never show a password, whether given on the command line
// or in the environment.
func TestK8sJobRefused(t *testing.T) {
	base := []string{"k8s", "job", "tpcc", "--generators", "4", "--secret", "rs"}
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"target", append(slices.Clone(base), "--target", "postgres://u:CANARY@h/db"),
			[]string{"--target", "kubectl create secret generic rs", "--from-literal=target=", "--from-literal=history=", "--secret rs"}},
		{"target from env", append(slices.Clone(base), "--target", "env:TARGET"), []string{"--target", "kubectl create secret generic"}},
		{"history", append(slices.Clone(base), "--history", "postgres://u:CANARY@h/history"), []string{"--history", "kubectl create secret generic"}},
		{"target no secret", []string{"k8s", "job", "tpcc", "--generators", "4", "--target", "postgres://u:CANARY@h/db"},
			[]string{"kubectl create secret generic NAME", "--secret NAME"}},
		{"shard", append(slices.Clone(base), "--shard", "0/4"), []string{"--shard"}},
		{"out", append(slices.Clone(base), "--out", "r.json"), []string{"--out"}},
		{"no history", append(slices.Clone(base), "--no-history"), []string{"--no-history"}},
		{"prepare always", append(slices.Clone(base), "--prepare", "always"), []string{"--prepare always", "rightsize prepare"}},
		{"steady state", append(slices.Clone(base), "--steady-state", "30s", "--warmup", "5m"), []string{"--steady-state"}},
		{"baseline auto", append(slices.Clone(base), "--rate", "2x", "--baseline-rate", "auto"), []string{"--baseline-rate auto"}},
		{"no secret", []string{"k8s", "job", "tpcc", "--generators", "4"}, []string{"--secret"}},
		{"no generators", []string{"k8s", "job", "tpcc", "--secret", "rs"}, []string{"--generators 0"}},
		{"too many generators", []string{"k8s", "job", "tpcc", "--secret", "rs", "--generators", "10001"}, []string{"--generators 10001"}},
		{"bad cpu", append(slices.Clone(base), "--cpu", "two"), []string{`--cpu "two"`}},
		{"bad memory", append(slices.Clone(base), "--memory", "lots"), []string{`--memory "lots"`}},
		{"bad run id", append(slices.Clone(base), "--run-id", "run 7"), []string{`--run-id "run 7"`}},
		{"bad start", append(slices.Clone(base), "--start-at", "tomorrow"), []string{`--start-at "tomorrow"`}},
		{"bad name", append(slices.Clone(base), "--name", "Bench_Job"), []string{`--name "Bench_Job"`}},
		{"bad run option", append(slices.Clone(base), "--threads", "0"), []string{"threads 0"}},
		{"bad workload option", append(slices.Clone(base), "--warehouses", "0"), []string{"warehouses"}},
		{"unknown workload", []string{"k8s", "job", "tpcd", "--generators", "4"}, []string{`unknown workload "tpcd"`}},
		{"no workload", []string{"k8s", "job"}, []string{"name a workload"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := runWithEnv(t, context.Background(), canaryEnv, tc.args...)
			if o.code != ExitUsage {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", o.code, ExitUsage, o.stdout, o.stderr)
			}
			if tc.name != "target no secret" { // two problems, two lines
				checkOneMessage(t, o)
			}
			noCanary(t, o)
			for _, w := range tc.want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr does not mention %q:\n%s", w, o.stderr)
				}
			}
		})
	}
}
