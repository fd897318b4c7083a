package k8sjob

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func testSpec() Spec {
	return Spec{
		Image: "registry.example.com/rightsize:1.0", Workload: "tpcc",
		Args:       []string{"--warehouses=30", "--threads=20", "--time=10m0s"},
		Generators: 4, RunID: "20261201T100000Z-1a2b3c",
		Secret: "rs", TargetKey: "target", HistoryKey: "history",
		CPU: "2", Memory: "2Gi",
	}
}

func mustBuild(t *testing.T, s Spec) *Job {
	t.Helper()
	j, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestManifestRoundTripsStrict decodes the YAML strictly (an unknown or
// misspelt field is an error) into the package's types and gets the Job
// back (e2e/k8sjob_test.go decodes it into the API's types).
func TestManifestRoundTripsStrict(t *testing.T) {
	s := testSpec()
	s.Namespace, s.StartAt = "bench", "2026-12-01T10:00:00Z"
	job := mustBuild(t, s)
	b, err := Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Job
	if err := Decode(b, &back); err != nil {
		t.Fatalf("strict decoding: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(job, &back) {
		t.Errorf("the decoded Job differs from the built one:\n%s", b)
	}
	for _, want := range []string{"apiVersion: batch/v1", "kind: Job", "completionMode: Indexed", "namespace: bench"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("manifest lacks %q:\n%s", want, b)
		}
	}
}

func TestJobIndexedShards(t *testing.T) {
	s := testSpec()
	s.StartAt = "2026-12-01T10:00:00Z"
	job := mustBuild(t, s)
	sp := job.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", sp.CompletionMode)
	}
	if sp.Parallelism == nil || sp.Completions == nil || *sp.Parallelism != 4 || *sp.Completions != 4 {
		t.Errorf("parallelism %v, completions %v; want 4 and 4", sp.Parallelism, sp.Completions)
	}
	if sp.BackoffLimit == nil || *sp.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v, want 0 (a failed shard is not run again)", sp.BackoffLimit)
	}
	pod := sp.Template.Spec
	if pod.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 || pod.Containers[0].Name != "rightsize" || pod.Containers[0].Image != s.Image {
		t.Fatalf("containers: %+v", pod.Containers)
	}
	c := pod.Containers[0]
	want := []string{"run", "tpcc", "--warehouses=30", "--threads=20", "--time=10m0s",
		"--target", "env:RIGHTSIZE_TARGET", "--shard", "$(JOB_COMPLETION_INDEX)/4", "--run-id", s.RunID,
		"--out", "-", "--start-at", "2026-12-01T10:00:00Z"}
	if !slices.Equal(c.Args, want) {
		t.Errorf("args\n %q\nwant\n %q", c.Args, want)
	}
	if len(c.Command) != 0 {
		t.Errorf("command %q: the image's entrypoint runs rightsize", c.Command)
	}

	env := map[string]EnvVar{}
	for _, e := range c.Env {
		env[e.Name] = e
		if e.Value != "" {
			t.Errorf("env %s has a literal value %q; every variable comes from the pod or the Secret", e.Name, e.Value)
		}
	}
	idx := env["JOB_COMPLETION_INDEX"].ValueFrom
	if idx == nil || idx.FieldRef == nil || idx.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("JOB_COMPLETION_INDEX: %+v", idx)
	}
	for name, key := range map[string]string{"RIGHTSIZE_TARGET": "target", "RIGHTSIZE_HISTORY": "history"} {
		v := env[name].ValueFrom
		if v == nil || v.SecretKeyRef == nil || v.SecretKeyRef.Name != "rs" || v.SecretKeyRef.Key != key {
			t.Errorf("%s: %+v, want secretKeyRef rs/%s", name, v, key)
		}
	}
	if len(env) != 3 {
		t.Errorf("env %v", c.Env)
	}

	// Quantities in canonical form: equal values, equal strings.
	r := c.Resources
	for _, res := range []string{ResourceCPU, ResourceMemory} {
		req, lim := r.Requests[res], r.Limits[res]
		if req == "" || req == "0" || req != lim {
			t.Errorf("%s: requests %s, limits %s; want equal (Guaranteed QoS)", res, req, lim)
		}
	}
	if q := r.Limits[ResourceMemory]; q != "2Gi" {
		t.Errorf("memory %s", q)
	}
	if q := r.Limits[ResourceCPU]; q != "2" {
		t.Errorf("cpu %s", q)
	}

	for what, labels := range map[string]map[string]string{"job": job.Labels, "pod": sp.Template.Labels} {
		if labels["app.kubernetes.io/name"] != "rightsize" || labels["app.kubernetes.io/component"] != "generator" || labels["app.kubernetes.io/instance"] != s.RunID {
			t.Errorf("%s labels %v", what, labels)
		}
	}
	if job.Annotations[AnnotationRunID] != s.RunID || !strings.Contains(job.Annotations[AnnotationMerge], "rightsize merge --run "+s.RunID) {
		t.Errorf("annotations %v", job.Annotations)
	}
	if job.Name != "rightsize-20261201t100000z-1a2b3c" {
		t.Errorf("name %q", job.Name)
	}
}

// TestJobNameIsDNSLabel derives names from awkward run ids: each is a DNS
// label, and so is each pod's hostname NAME-INDEX, up to 10000 generators
// (by this package's rules, which e2e/k8sjob_test.go checks against the
// API's, as it checks these names).
func TestJobNameIsDNSLabel(t *testing.T) {
	ids := []string{
		"20261201T100000Z-1a2b3c",
		"Run.With_Dots_And_CAPS",
		"a",
		"9-",
		"x" + strings.Repeat("Y.", 31) + "z",
		strings.Repeat("long-", 12) + "1234",
		strings.Repeat("a", 51) + "_____________",
		"run 7 (Ünïcode)",
		"-$(RIGHTSIZE_TARGET)-",
		strings.Repeat("é", 40) + "x",
	}
	for _, id := range ids {
		for _, n := range []int{1, 9, 10, 100, 10000} {
			s := testSpec()
			s.RunID, s.Generators = id, n
			job := mustBuild(t, s)
			if msgs := IsDNS1123Label(job.Name); len(msgs) > 0 {
				t.Errorf("run id %q: name %q: %v", id, job.Name, msgs)
			}
			host := job.Name + "-" + strconv.Itoa(n-1)
			if msgs := IsDNS1123Label(host); len(msgs) > 0 {
				t.Errorf("run id %q, %d generators: hostname %q: %v", id, n, host, msgs)
			}
			if !strings.HasPrefix(job.Name, "rightsize-") {
				t.Errorf("name %q", job.Name)
			}
			v := job.Labels[LabelRun]
			if msgs := isLabelValue(v); len(msgs) > 0 || v == "" {
				t.Errorf("run id %q: label value %q: %v", id, v, msgs)
			}
		}
	}
}

// TestManifestRunIDAsGiven: the shards get the run id as it is, whatever
// its characters; the name and the label are made of it.
func TestManifestRunIDAsGiven(t *testing.T) {
	s := testSpec()
	s.RunID = "Nightly $(RIGHTSIZE_HISTORY)"
	job := mustBuild(t, s)
	args := job.Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--run-id"); i < 0 || args[i+1] != "Nightly $$(RIGHTSIZE_HISTORY)" {
		t.Errorf("args %q", args)
	}
	if job.Annotations[AnnotationRunID] != s.RunID {
		t.Errorf("annotation %q", job.Annotations[AnnotationRunID])
	}
	if job.Name != "rightsize-nightly---rightsize-history" || job.Labels[LabelRun] != "Nightly---RIGHTSIZE_HISTORY" {
		t.Errorf("name %q, label %q", job.Name, job.Labels[LabelRun])
	}
}

func TestJobNameGiven(t *testing.T) {
	s := testSpec()
	s.Name = "tpcc-30w"
	if job := mustBuild(t, s); job.Name != "tpcc-30w" {
		t.Errorf("name %q", job.Name)
	}
}

// TestManifestEscapesDollar: an option holding $(VAR) reaches the shard as
// given, instead of being expanded by Kubernetes from the container's
// environment (which holds the URLs with their passwords).
func TestManifestEscapesDollar(t *testing.T) {
	s := testSpec()
	s.Args = []string{"--label=cost $(RIGHTSIZE_TARGET) $5"}
	c := mustBuild(t, s).Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--label=cost $$(RIGHTSIZE_TARGET) $$5") {
		t.Errorf("args %q", c.Args)
	}
	if !slices.Contains(c.Args, "$(JOB_COMPLETION_INDEX)/4") {
		t.Errorf("the shard's index is not expanded: %q", c.Args)
	}
}

func TestJobSpecRefused(t *testing.T) {
	cases := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no generators", func(s *Spec) { s.Generators = 0 }, "--generators 0"},
		{"too many generators", func(s *Spec) { s.Generators = 10001 }, "--generators 10001"},
		{"bad cpu", func(s *Spec) { s.CPU = "two" }, `--cpu "two"`},
		{"zero cpu", func(s *Spec) { s.CPU = "0" }, `--cpu "0"`},
		{"negative memory", func(s *Spec) { s.Memory = "-1Gi" }, `--memory "-1Gi"`},
		{"bad memory", func(s *Spec) { s.Memory = "2GB of RAM" }, `--memory "2GB of RAM"`},
		{"no secret", func(s *Spec) { s.Secret = "" }, "--secret"},
		{"bad secret", func(s *Spec) { s.Secret = "My Secret" }, `--secret "My Secret"`},
		{"bad key", func(s *Spec) { s.TargetKey = "a/b" }, `--target-key "a/b"`},
		{"bad namespace", func(s *Spec) { s.Namespace = "Bench" }, `--namespace "Bench"`},
		{"bad name", func(s *Spec) { s.Name = "tpcc.30w" }, `--name "tpcc.30w"`},
		{"name too long for hostnames", func(s *Spec) { s.Name = strings.Repeat("a", 62) }, "hostnames"},
		{"run id without a letter or digit", func(s *Spec) { s.RunID = "._-" }, `--run-id "._-"`},
		{"no run id", func(s *Spec) { s.RunID = "" }, `--run-id ""`},
		{"no image", func(s *Spec) { s.Image = "" }, "--image"},
		{"target in args", func(s *Spec) { s.Args = append(s.Args, "--target=postgres://u:CANARY@h/db") }, "sets --target"},
		{"shard in args", func(s *Spec) { s.Args = append(s.Args, "--shard=0/2") }, "sets --shard"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec()
			tc.edit(&s)
			job, err := Build(s)
			if err == nil {
				t.Fatalf("accepted: %+v", job)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "CANARY") {
				t.Errorf("error %q shows an argument's password", err)
			}
			if _, err := Manifest(s); err == nil {
				t.Error("Manifest accepted it")
			}
		})
	}
	// Every problem at once.
	s := testSpec()
	s.CPU, s.Memory, s.Generators = "x", "y", 0
	_, err := Build(s)
	if err == nil || !strings.Contains(err.Error(), "--cpu") || !strings.Contains(err.Error(), "--memory") || !strings.Contains(err.Error(), "--generators") {
		t.Errorf("error %v, want every problem", err)
	}
}

// TestWorkloadFileInConfigMap: a Job of a workload file is two documents,
// the ConfigMap holding the file and the Job whose pods mount it read-only
// and run its copy; a name that is no ConfigMap key and a file over 1 MiB
// are refused.
func TestWorkloadFileInConfigMap(t *testing.T) {
	s := testSpec()
	s.Workload, s.Args = "shop", []string{"--threads=8"}
	s.File = &File{Name: "shop.yaml", Data: []byte("name: shop\n")}
	b, err := Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the ConfigMap and the Job:\n%s", len(docs), b)
	}
	var cm ConfigMap
	var job Job
	if err := Decode([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := Decode([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || cm.Name != job.Name+"-workload" || cm.Data["shop.yaml"] != "name: shop\n" {
		t.Errorf("configmap %s %s: %v", cm.Kind, cm.Name, cm.Data)
	}
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if len(pod.Volumes) != 1 || pod.Volumes[0].ConfigMap == nil || pod.Volumes[0].ConfigMap.Name != cm.Name ||
		len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != FileDir || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("volumes %+v, mounts %+v", pod.Volumes, c.VolumeMounts)
	}
	if c.Args[0] != "run" || c.Args[1] != FileDir+"/shop.yaml" || c.Args[2] != "--threads=8" {
		t.Errorf("args %q", c.Args)
	}
	for _, f := range []*File{{Name: "a/b.yaml", Data: []byte("x")}, {Name: "big.yaml", Data: make([]byte, 1<<20)}} {
		s.File = f
		if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "workload file") {
			t.Errorf("file %s of %d bytes: %v", f.Name, len(f.Data), err)
		}
	}
	s.File = nil
	if cm, err := FileConfigMap(s); cm != nil || err != nil {
		t.Errorf("a built-in's ConfigMap: %v, %v", cm, err)
	}
}

// TestOptionFilesInConfigMap: the options' files (pgbench's -f scripts)
// travel in the ConfigMap, each under a key of its own and projected at its
// name under FileDir; names that share a base go to folders of their own; a
// name that is no path under FileDir, two files of one name and more than
// a ConfigMap holds are refused.
func TestOptionFilesInConfigMap(t *testing.T) {
	names := PlaceFiles([]string{"a/x.sql", "b/x.sql", "y.sql", "a/x.sql", "./z.sql", "c/d/x.sql"})
	if want := []string{"1/x.sql", "2/x.sql", "y.sql", "1/x.sql", "z.sql", "5/x.sql"}; !slices.Equal(names, want) {
		t.Errorf("PlaceFiles = %q, want %q", names, want)
	}
	s := testSpec()
	s.Workload, s.Args = "pgbench", []string{"--file=" + FilePath("1/x.sql") + "@3", "--file=" + FilePath("y.sql")}
	s.Files = []File{{Name: "1/x.sql", Data: []byte("SELECT 1;\n")}, {Name: "y.sql", Data: []byte("SELECT 2;\n")}}
	b, err := Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents:\n%s", len(docs), b)
	}
	var cm ConfigMap
	var job Job
	if err := Decode([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := Decode([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	vol := job.Spec.Template.Spec.Volumes
	if len(vol) != 1 || vol[0].ConfigMap == nil || vol[0].ConfigMap.Name != cm.Name {
		t.Fatalf("volumes %+v", vol)
	}
	got := map[string]string{}
	for _, it := range vol[0].ConfigMap.Items {
		if msgs := IsConfigMapKey(it.Key); len(msgs) > 0 {
			t.Errorf("key %q: %v", it.Key, msgs)
		}
		got[it.Path] = cm.Data[it.Key]
	}
	if len(got) != 2 || len(cm.Data) != 2 || got["1/x.sql"] != "SELECT 1;\n" || got["y.sql"] != "SELECT 2;\n" {
		t.Errorf("the pods see %v (data %v)", got, cm.Data)
	}
	if c := job.Spec.Template.Spec.Containers[0]; c.Args[2] != "--file=/etc/rightsize/workload/1/x.sql@3" {
		t.Errorf("args %q", c.Args)
	}
	if !strings.Contains(Instructions(job.Name, s), "configmap/"+cm.Name) {
		t.Errorf("the instructions do not delete the ConfigMap:\n%s", Instructions(job.Name, s))
	}
	for _, bad := range [][]File{
		{{Name: "/etc/x.sql"}}, {{Name: "../x.sql"}}, {{Name: "a/../../x.sql"}}, {{Name: "..data/x.sql"}}, {{Name: ""}},
		{{Name: "a\\b.sql"}}, {{Name: "x.sql"}, {Name: "x.sql"}}, {{Name: "big.sql", Data: make([]byte, 1<<20)}},
		{{Name: "half.sql", Data: make([]byte, 600<<10)}, {Name: "other.sql", Data: make([]byte, 600<<10)}},
	} {
		s.Files = bad
		if _, err := Build(s); err == nil || !strings.Contains(err.Error(), "file") {
			t.Errorf("files %q: %v, want a refusal", bad[0].Name, err)
		}
	}
}

// isLabelValue is what is wrong with v as a label value, by the API's rule
// (at most 63 characters, alphanumeric at both ends, '-', '_' and '.'
// inside); e2e/k8sjob_test.go checks the names with the API's own.
func isLabelValue(v string) []string {
	var msgs []string
	if len(v) > 63 {
		msgs = append(msgs, "must be no more than 63 characters")
	}
	if v != "" && !labelValue.MatchString(v) {
		msgs = append(msgs, "not a label value")
	}
	return msgs
}

var labelValue = regexp.MustCompile(`^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`)

// TestParseQuantity: the quantities of the documented commands and others
// in the canonical form the API writes (what resource.ParseQuantity and
// String gave when the manifest was built from the API's types; the e2e
// module compares the two on generated quantities too).
func TestParseQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"2": "2", "1500m": "1500m", "0.5": "500m", "1.5": "1500m", "2000m": "2", "1e3": "1e3", "1E3": "1E3",
		"0.1": "100m", "1k": "1k", "1.25": "1250m", "3.000": "3", "300m": "300m", " 2 ": "2", "1m": "1m",
		"0.0001": "100u", ".5": "500m", "5n": "5n", "1e-3": "1e-3", "1e+3": "1e+3",
		"2Gi": "2Gi", "1024Mi": "1Gi", "2048Mi": "2Gi", "1G": "1G", "1000M": "1G", "500Mi": "500Mi",
		"1.5Gi": "1536Mi", "0.5Gi": "512Mi", "1e9": "1e9", "1073741824": "1073741824", "129e6": "129e6",
		"129M": "129M", "123Mi": "123Mi", "1Ti": "1Ti", "512Ki": "512Ki", "256Mi": "256Mi", "+1Gi": "+1Gi",
		"1.Mi": "1.Mi", "1Ei": "1Ei", "9999999999999999999999": "9999999999999999999999", "1": "1",
		"0.0000000001": "1n", "1.5Ki": "1536", "0.1Ki": "102400m", "02": "02",
	} {
		q, sign, err := ParseQuantity(strings.TrimSpace(in))
		if err != nil || q != Quantity(want) || sign != 1 {
			t.Errorf("ParseQuantity(%q) = %q, %d, %v; want %q, 1", in, q, sign, err, want)
		}
	}
	for _, in := range []string{"", "x", "1.5.5", "2 Gi", "2GB", "1Q", "--1", "1e", "1ee3", "1.5e3x"} {
		if q, _, err := ParseQuantity(in); err == nil {
			t.Errorf("ParseQuantity(%q) = %q, want an error", in, q)
		}
	}
	for in, want := range map[string]int{"0": 0, "-1": -1, "0m": 0, "-0.5Gi": -1, "000": 0} {
		if _, sign, err := ParseQuantity(in); err != nil || sign != want {
			t.Errorf("ParseQuantity(%q): sign %d, %v; want %d", in, sign, err, want)
		}
	}
}
