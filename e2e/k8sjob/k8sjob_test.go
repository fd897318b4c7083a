// Package k8sjob checks internal/k8sjob's manifests against the Kubernetes
// API's own types (k8s.io/api, v0.37) and client library
// (sigs.k8s.io/yaml), which the rightsize binary no longer links: every
// manifest decodes strictly into batch/v1 Job and v1 ConfigMap, is byte
// for byte what the client library writes for the same objects, and the
// package's quantities and name rules are the API's.
package k8sjob

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/rightsize/rightsize/internal/cli"
	"github.com/rightsize/rightsize/internal/k8sjob"
)

func testSpec() k8sjob.Spec {
	return k8sjob.Spec{
		Image: "registry.example.com/rightsize:1.0", Workload: "tpcc",
		Args:       []string{"--warehouses=30", "--threads=20", "--time=10m0s"},
		Generators: 4, RunID: "20261201T100000Z-1a2b3c",
		Secret: "rs", TargetKey: "target", HistoryKey: "history",
		CPU: "2", Memory: "2Gi",
	}
}

// apiObject converts v (a k8sjob.Job or ConfigMap) into the API's type out
// through JSON, strictly: a field the API's type lacks is an error.
func apiObject(t *testing.T, v, out any) {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	if err := d.Decode(out); err != nil {
		t.Fatalf("%T is not an API object: %v\n%s", v, err, j)
	}
}

// apiManifest is the manifest of s as it was written from the API's types:
// the ConfigMap (when s has files) and the Job, each converted to the API's
// type and marshalled by sigs.k8s.io/yaml; an error where sigs.k8s.io/yaml
// fails (it reads its own JSON back as YAML, which refuses a control
// character such as U+007F).
func apiManifest(t *testing.T, s k8sjob.Spec) ([]byte, error) {
	t.Helper()
	job, err := k8sjob.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var apiJob batchv1.Job
	apiObject(t, job, &apiJob)
	out, err := yaml.Marshal(&apiJob)
	if err != nil {
		return nil, err
	}
	cm, err := k8sjob.FileConfigMap(s)
	if err != nil || cm == nil {
		return out, err
	}
	var apiCM corev1.ConfigMap
	apiObject(t, cm, &apiCM)
	file, err := yaml.Marshal(&apiCM)
	if err != nil {
		return nil, err
	}
	return append(append(file, "---\n"...), out...), nil
}

// TestManifestRoundTripsStrict decodes the YAML strictly (an unknown or
// misspelt field is an error) into the API types and gets the Job back.
func TestManifestRoundTripsStrict(t *testing.T) {
	s := testSpec()
	s.Namespace, s.StartAt = "bench", "2026-12-01T10:00:00Z"
	built, err := k8sjob.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	apiObject(t, built, &job)
	b, err := k8sjob.Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	var back batchv1.Job
	if err := yaml.UnmarshalStrict(b, &back); err != nil {
		t.Fatalf("strict decoding: %v\n%s", err, b)
	}
	if !apiequality.Semantic.DeepEqual(&job, &back) {
		t.Errorf("the decoded Job differs from the built one:\n%s", b)
	}
	for _, want := range []string{"apiVersion: batch/v1", "kind: Job", "completionMode: Indexed", "namespace: bench"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("manifest lacks %q:\n%s", want, b)
		}
	}
	sp := back.Spec
	if sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion || back.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("completionMode %v, restartPolicy %q", sp.CompletionMode, back.Spec.Template.Spec.RestartPolicy)
	}
	c := sp.Template.Spec.Containers[0]
	idx := c.Env[0].ValueFrom
	if idx == nil || idx.FieldRef == nil || idx.FieldRef.FieldPath != "metadata.annotations['"+batchv1.JobCompletionIndexAnnotation+"']" {
		t.Errorf("JOB_COMPLETION_INDEX: %+v", idx)
	}
	r := c.Resources
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[res], r.Limits[res]
		if req.IsZero() || req.Cmp(lim) != 0 {
			t.Errorf("%s: requests %s, limits %s; want equal (Guaranteed QoS)", res, req.String(), lim.String())
		}
	}
	if q := r.Limits[corev1.ResourceMemory]; q.Cmp(resource.MustParse("2Gi")) != 0 {
		t.Errorf("memory %s", q.String())
	}
	if q := r.Limits[corev1.ResourceCPU]; q.Cmp(resource.MustParse("2")) != 0 {
		t.Errorf("cpu %s", q.String())
	}
	if sc := sp.Template.Spec.SecurityContext; sc == nil || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v", sc)
	}
}

// TestManifestAsTheAPIWritesIt: the manifests of the package's test specs
// and of generated ones (arguments, labels, run ids, files, quantities) are
// byte for byte what sigs.k8s.io/yaml writes for the same objects in the
// API's types, and decode strictly into them, the files' texts as they
// are. Where sigs.k8s.io/yaml fails (a control character: 'k8s job'
// failed, exit 1), the manifest is written, and decodes so.
func TestManifestAsTheAPIWritesIt(t *testing.T) {
	specs := []k8sjob.Spec{testSpec()}
	s := testSpec()
	s.Namespace, s.StartAt, s.Name = "bench", "2026-12-01T10:00:00Z", "tpcc-30w"
	specs = append(specs, s)
	s = testSpec()
	s.Workload, s.File = "shop", &k8sjob.File{Name: "shop.yaml", Data: []byte("name: shop\n")}
	specs = append(specs, s)
	s = testSpec()
	s.Workload, s.Args = "pgbench", []string{"--file=" + k8sjob.FilePath("1/x.sql") + "@3", "--file=" + k8sjob.FilePath("y.sql")}
	s.Files = []k8sjob.File{{Name: "1/x.sql", Data: []byte("SELECT 1;\n")}, {Name: "y.sql", Data: []byte("\tSELECT 2;  \n")}}
	specs = append(specs, s)

	r := rand.New(rand.NewPCG(48, 1))
	cpus := []string{"2", "1500m", "0.5", "1.5", "2000m", "1e3", "0.1", "1k", "1.25", "3.000", "300m", "0.0001", "5n", "1E3"}
	mems := []string{"2Gi", "1024Mi", "1G", "1000M", "1.5Gi", "0.5Gi", "1e9", "1073741824", "129e6", "123Mi", "512Ki", "+1Gi", "1.Mi"}
	for i := range 400 {
		s := testSpec()
		s.CPU, s.Memory = cpus[r.IntN(len(cpus))], mems[r.IntN(len(mems))]
		s.Generators = 1 + r.IntN(12)
		s.RunID = randomText(r, "abcXYZ019-_.", 1+r.IntN(70))
		if k8sjob.LabelValue(s.RunID) == "" {
			s.RunID = "r" + s.RunID
		}
		s.Args = nil
		for range r.IntN(4) {
			s.Args = append(s.Args, "--label="+randomText(r, textAlphabet, r.IntN(160)))
		}
		if i%20 == 3 {
			s.Args = append(s.Args, "--label=x\x7f") // a control character sigs.k8s.io/yaml refuses
		}
		if i%3 == 0 {
			s.StartAt = "2026-12-01T10:00:00Z"
		}
		if i%4 == 1 {
			s.File = &k8sjob.File{Name: "w.yaml", Data: []byte(randomText(r, textAlphabet, r.IntN(400)))}
		}
		if i%4 == 2 {
			s.Workload = "pgbench"
			for j := range 1 + r.IntN(3) {
				s.Files = append(s.Files, k8sjob.File{Name: strconv.Itoa(j) + "/s.sql", Data: []byte(randomText(r, textAlphabet, r.IntN(400)))})
			}
		}
		specs = append(specs, s)
	}
	refused := 0
	for _, s := range specs {
		ours, err := k8sjob.Manifest(s)
		if err != nil {
			t.Fatalf("%+v: %v", s, err)
		}
		api, err := apiManifest(t, s)
		switch {
		case err != nil && !strings.Contains(err.Error(), "control characters are not allowed"):
			t.Fatal(err)
		case err != nil:
			refused++
		case !bytes.Equal(ours, api):
			t.Errorf("the manifest differs from the API's:\n%s\nthe API's:\n%s", ours, api)
			continue
		}
		docs := strings.Split(string(ours), "---\n")
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
			t.Errorf("strict decoding: %v\n%s", err, ours)
		}
		if len(docs) == 2 {
			var cm corev1.ConfigMap
			if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
				t.Errorf("strict decoding: %v\n%s", err, ours)
			}
			for i, f := range s.Files {
				if key := job.Spec.Template.Spec.Volumes[0].ConfigMap.Items[i+boolInt(s.File != nil)].Key; cm.Data[key] != string(f.Data) {
					t.Errorf("file %s: the pods get %q, want %q", f.Name, cm.Data[key], f.Data)
				}
			}
			if s.File != nil && cm.Data[s.File.Name] != string(s.File.Data) {
				t.Errorf("workload file: the pods get %q, want %q", cm.Data[s.File.Name], s.File.Data)
			}
		}
		if args := job.Spec.Template.Spec.Containers[0].Args; !slices.Equal(args[2:2+len(s.Args)], escaped(s.Args)) {
			t.Errorf("args %q, want %q", args, s.Args)
		}
	}
	if refused == 0 || refused > len(specs)/2 {
		t.Errorf("%d of %d manifests the API's client library could not write: want some, not most", refused, len(specs))
	}
}

func escaped(args []string) []string {
	var out []string
	for _, a := range args {
		out = append(out, k8sjob.Escape(a))
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// textAlphabet is what generated arguments and files are made of: YAML's
// indicators, quotes, blanks, breaks, escapes and some UTF-8.
const textAlphabet = "ab Z09 \t\n\r:#-?{}[],&*!|>'\"%@`\\~=<.éü✓\u00a0\u2028\ufeff\x01"

func randomText(r *rand.Rand, alphabet string, n int) string {
	runes := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

// TestNELKeptInFiles: a file holding U+0085 (NEL, a line break to YAML)
// reaches the pods as it is. The API's client library folded it into a
// space (its YAML writer reads its own JSON back as YAML): the one way in
// which the manifest is not byte for byte what it was.
func TestNELKeptInFiles(t *testing.T) {
	s := testSpec()
	s.Workload, s.Args = "pgbench", []string{"--file=" + k8sjob.FilePath("n.sql")}
	s.Files = []k8sjob.File{{Name: "n.sql", Data: []byte("SELECT 1;\u0085x\n")}}
	ours, err := k8sjob.Manifest(s)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(strings.Split(string(ours), "---\n")[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if got := cm.Data["file-1-n.sql"]; got != string(s.Files[0].Data) {
		t.Errorf("the pods get %q, want %q", got, s.Files[0].Data)
	}
	api, err := apiManifest(t, s)
	if err != nil {
		t.Fatal(err)
	}
	var apiCM corev1.ConfigMap
	if err := yaml.UnmarshalStrict([]byte(strings.Split(string(api), "---\n")[0]), &apiCM); err != nil {
		t.Fatal(err)
	}
	if got := apiCM.Data["file-1-n.sql"]; got != "SELECT 1; x\n" {
		t.Errorf("the API's client library no longer folds NEL, %q (the manifests may be the same again):\n%s", got, api)
	}
}

// TestQuantityAsTheAPIReadsIt: k8sjob.ParseQuantity accepts what
// resource.ParseQuantity accepts, with the same sign and canonical form,
// on the documented quantities and generated ones.
func TestQuantityAsTheAPIReadsIt(t *testing.T) {
	inputs := []string{"2", "1500m", "0.5", "2Gi", "512Mi", "0", "-1", "1e3", "1E3", "+1Gi", "1.Mi", "02", "0.1Ki", "1.5Ki",
		"9999999999999999999999", "9223372036854775807Ki", "1e-12", "1e40", "0.0000000001", "1Ei", "8Ei", "1024Ei", "1e18E", "."}
	r := rand.New(rand.NewPCG(48, 2))
	for range 100000 {
		inputs = append(inputs, randomText(r, "0123456789.+-eEinumkKMGTP", 1+r.IntN(10)))
	}
	for _, in := range inputs {
		want, werr := resource.ParseQuantity(in)
		got, sign, err := k8sjob.ParseQuantity(in)
		if (err == nil) != (werr == nil) {
			t.Errorf("%q: error %v, the API's %v", in, err, werr)
			continue
		}
		if err == nil && (string(got) != want.String() || sign != want.Sign()) {
			t.Errorf("%q: %q sign %d, the API's %q sign %d", in, got, sign, want.String(), want.Sign())
		}
	}
}

// TestNameRulesAsTheAPIs: k8sjob's name rules say what the API's say, in
// its words.
func TestNameRulesAsTheAPIs(t *testing.T) {
	inputs := []string{"", ".", "..", "..a", "a..b", "-a", "a-", "A", "a_b", "a.b", "tpcc-30w", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a.", 130)}
	r := rand.New(rand.NewPCG(48, 3))
	for range 50000 {
		inputs = append(inputs, randomText(r, "ab09Z-._/ é", r.IntN(8)))
		inputs = append(inputs, randomText(r, "a-.", 55+r.IntN(210)))
	}
	for _, in := range inputs {
		for _, f := range []struct {
			name      string
			ours, api func(string) []string
		}{
			{"IsDNS1123Label", k8sjob.IsDNS1123Label, validation.IsDNS1123Label},
			{"IsDNS1123Subdomain", k8sjob.IsDNS1123Subdomain, validation.IsDNS1123Subdomain},
			{"IsConfigMapKey", k8sjob.IsConfigMapKey, validation.IsConfigMapKey},
		} {
			if got, want := f.ours(in), f.api(in); !slices.Equal(got, want) {
				t.Errorf("%s(%q) = %q, the API's %q", f.name, in, got, want)
			}
		}
	}
}

// TestJobNameIsDNSLabel derives names from awkward run ids: each is a DNS
// label by the API's rule, and so is each pod's hostname NAME-INDEX, up to
// 10000 generators; the run's label is a label value.
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
			job, err := k8sjob.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			if msgs := validation.IsDNS1123Label(job.Name); len(msgs) > 0 {
				t.Errorf("run id %q: name %q: %v", id, job.Name, msgs)
			}
			host := job.Name + "-" + strconv.Itoa(n-1)
			if msgs := validation.IsDNS1123Label(host); len(msgs) > 0 {
				t.Errorf("run id %q, %d generators: hostname %q: %v", id, n, host, msgs)
			}
			v := job.Labels[k8sjob.LabelRun]
			if msgs := content.IsLabelValue(v); len(msgs) > 0 || v == "" {
				t.Errorf("run id %q: label value %q: %v", id, v, msgs)
			}
		}
	}
}

// rightsize runs the command line, as internal/cli's tests do.
func rightsize(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := cli.Main(context.Background(), cli.Env{
		Args: args, Stdout: &out, Stderr: &errb,
		Getenv:   func(string) string { return "" },
		CPUTime:  func() (time.Duration, time.Duration) { return time.Second, time.Second },
		ProcRoot: "/proc",
		SysFS:    os.DirFS("/sys"),
	})
	if code != cli.ExitOK {
		t.Fatalf("rightsize %q: exit %d\n%s", args, code, errb.String())
	}
	return out.String(), errb.String()
}

// TestK8sJobCommandsDecodeIntoTheAPI: the manifests of internal/cli's k8s
// tests' commands and docs/kubernetes.md's decode strictly into batch/v1
// Job and v1 ConfigMap, with the shards, the resources and the files
// those tests check there, and marshal back, by the API's client library,
// to the same bytes.
func TestK8sJobCommandsDecodeIntoTheAPI(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1 := write("one/acct.sql", "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n")
	a2 := write("two/acct.sql", "SELECT count(*) FROM pgbench_branches;\n")
	tabs := write("tabs.sql", "SELECT 1\n\tFROM pgbench_branches;  \n")
	cases := []struct {
		args     []string
		cpu, mem string
		files    map[string]string
	}{
		{[]string{"k8s", "job", "tpcc", "--warehouses", "30", "--threads", "20", "--generators", "4", "--secret", "rs"}, "2", "2Gi", nil},
		{[]string{"k8s", "job", "oltp_read_write", "--tables", "4", "--time", "10m", "--warmup", "30", "--rate", "200",
			"--label", "cost $(RIGHTSIZE_TARGET)", "--start-at", "2026-12-01T10:00:00Z", "--run-id", "Nightly_Run.7",
			"--generators", "10", "--secret", "bench-urls", "--target-key", "db", "--history-key", "catalog",
			"--image", "registry.example.com/rightsize:1.0", "--cpu", "1500m", "--memory", "1Gi", "--namespace", "bench"}, "1.5", "1Gi", nil},
		{[]string{"k8s", "job", "tpcc", "--warehouses", "30", "--threads", "20", "--time", "10m", "--warmup", "1m",
			"--generators", "4", "--secret", "rightsize", "--image", "registry.example.com/rightsize:1.0"}, "2", "2Gi", nil},
		{[]string{"k8s", "job", "tpcc", "--threads", "6", "--time", "20s", "--warmup", "5s", "--generators", "3",
			"--cpu", "300m", "--memory", "256Mi", "--secret", "rs"}, "300m", "256Mi", nil},
		{[]string{"k8s", "job", "pgbench", "-f", a1 + "@3", "-f", a2, "-f", tabs, "-f", a1, "--generators", "2", "--secret", "rs", "--threads", "4"},
			"2", "2Gi", map[string]string{"1/acct.sql": a1, "2/acct.sql": a2, "tabs.sql": tabs}},
		{[]string{"k8s", "job", "pgbench", "-b", "select-only", "--generators", "2", "--secret", "rs"}, "2", "2Gi", nil},
	}
	for _, tc := range cases {
		stdout, _ := rightsize(t, tc.args...)
		docs := strings.Split(stdout, "---\n")
		var job batchv1.Job
		if err := yaml.UnmarshalStrict([]byte(docs[len(docs)-1]), &job); err != nil {
			t.Fatalf("%q: the manifest does not decode strictly into a batch/v1 Job: %v\n%s", tc.args, err, stdout)
		}
		sp := job.Spec
		if job.APIVersion != "batch/v1" || job.Kind != "Job" || sp.CompletionMode == nil || *sp.CompletionMode != batchv1.IndexedCompletion ||
			sp.Parallelism == nil || sp.Completions == nil || *sp.Parallelism != *sp.Completions || len(sp.Template.Spec.Containers) != 1 {
			t.Errorf("%q: %s %s, completionMode %v, parallelism %v, completions %v", tc.args, job.APIVersion, job.Kind, sp.CompletionMode, sp.Parallelism, sp.Completions)
			continue
		}
		c := sp.Template.Spec.Containers[0]
		for _, rl := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
			cpu, mem := rl[corev1.ResourceCPU], rl[corev1.ResourceMemory]
			if cpu.Cmp(resource.MustParse(tc.cpu)) != 0 || mem.Cmp(resource.MustParse(tc.mem)) != 0 {
				t.Errorf("%q: resources %v, want cpu %s memory %s", tc.args, rl, tc.cpu, tc.mem)
			}
		}
		again, err := yaml.Marshal(&job)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != docs[len(docs)-1] {
			t.Errorf("%q: the API's client library writes the Job otherwise:\n%s\nthe API's:\n%s", tc.args, docs[len(docs)-1], again)
		}
		if len(docs) != 1+boolInt(tc.files != nil) {
			t.Fatalf("%q: %d documents", tc.args, len(docs))
		}
		if tc.files == nil {
			continue
		}
		var cm corev1.ConfigMap
		if err := yaml.UnmarshalStrict([]byte(docs[0]), &cm); err != nil {
			t.Fatal(err)
		}
		if again, _ := yaml.Marshal(&cm); string(again) != docs[0] {
			t.Errorf("the API's client library writes the ConfigMap otherwise:\n%s\nthe API's:\n%s", docs[0], again)
		}
		seen := map[string]string{}
		for _, it := range sp.Template.Spec.Volumes[0].ConfigMap.Items {
			seen[it.Path] = cm.Data[it.Key]
		}
		for p, src := range tc.files {
			want, _ := os.ReadFile(src)
			if seen[p] != string(want) {
				t.Errorf("the pods' %s holds %q, want %s's text", p, seen[p], src)
			}
		}
		if len(seen) != len(tc.files) {
			t.Errorf("the pods see %d files, want %d: %v", len(seen), len(tc.files), seen)
		}
	}
}
