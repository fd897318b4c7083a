package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/k8sjob"
	"github.com/rightsize/rightsize/internal/workload/pgbench"
)

// TestK8sJobPgbenchScripts: 'k8s job pgbench -f FILE@W ...' gives the pods
// every script in the ConfigMap, as a workload file is given, and the
// shards' -f name the copies with their weights; two scripts of one base
// name in two folders keep it, each in a folder of its own, so that their
// operations are named as in a run here. No local path reaches the
// manifest (it pointed at the local path, with no ConfigMap: every pod
// would have failed).
func TestK8sJobPgbenchScripts(t *testing.T) {
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
	up := write("update.sql", "\\set bid random(1, :scale)\nUPDATE pgbench_branches SET bbalance = bbalance + 1 WHERE bid = :bid;\n")
	o := run(t, context.Background(), "k8s", "job", "pgbench", "-f", a1+"@3", "-f", a2, "--file", up+"@1", "-f", a1,
		"--generators", "2", "--secret", "rs", "--threads", "4")
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if strings.Contains(o.stdout, dir) {
		t.Errorf("the manifest names a local path (%s):\n%s", dir, o.stdout)
	}
	docs := strings.Split(o.stdout, "---\n")
	if len(docs) != 2 {
		t.Fatalf("%d documents, want the scripts' ConfigMap and the Job:\n%s", len(docs), o.stdout)
	}
	var cm k8sjob.ConfigMap
	var job k8sjob.Job
	if err := k8sjob.Decode([]byte(docs[0]), &cm); err != nil {
		t.Fatal(err)
	}
	if err := k8sjob.Decode([]byte(docs[1]), &job); err != nil {
		t.Fatal(err)
	}
	pod := job.Spec.Template.Spec
	if cm.Kind != "ConfigMap" || len(pod.Volumes) != 1 || pod.Volumes[0].ConfigMap == nil || pod.Volumes[0].ConfigMap.Name != cm.Name {
		t.Fatalf("configmap %s %s, volumes %+v", cm.Kind, cm.Name, pod.Volumes)
	}
	// What each pod sees under the mount: the volume's items (key -> path).
	seen := map[string]string{}
	for _, it := range pod.Volumes[0].ConfigMap.Items {
		seen[it.Path] = cm.Data[it.Key]
	}
	if len(pod.Volumes[0].ConfigMap.Items) == 0 {
		for k, v := range cm.Data {
			seen[k] = v
		}
	}
	for path, src := range map[string]string{"1/acct.sql": a1, "2/acct.sql": a2, "update.sql": up} {
		want, _ := os.ReadFile(src)
		if seen[path] != string(want) {
			t.Errorf("the pods' %s holds %q, want %s's text", path, seen[path], src)
		}
	}
	if len(seen) != 3 {
		t.Errorf("the pods see %d files, want 3 (one script given twice is one file): %v", len(seen), seen)
	}
	c := pod.Containers[0]
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/etc/rightsize/workload" || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("mounts %+v", c.VolumeMounts)
	}
	var files []string
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--file=") {
			files = append(files, a)
		}
	}
	want := []string{"--file=/etc/rightsize/workload/1/acct.sql@3", "--file=/etc/rightsize/workload/2/acct.sql",
		"--file=/etc/rightsize/workload/update.sql@1", "--file=/etc/rightsize/workload/1/acct.sql"}
	if !slices.Equal(files, want) {
		t.Errorf("the shards' scripts\n %q\nwant\n %q\n(args %q)", files, want, c.Args)
	}
	if c.Args[1] != "pgbench" || !slices.Contains(c.Args, "--threads=4") {
		t.Errorf("args %q", c.Args)
	}
	// A pod's scripts, laid out as the volume lays them out (under root
	// for /etc/rightsize/workload), read as the shard reads them: the same
	// operations, weights and texts as here.
	root := t.TempDir()
	for p, text := range seen {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var podArgs []string
	for _, f := range files {
		podArgs = append(podArgs, strings.Replace(f, "/etc/rightsize/workload", root, 1))
	}
	local, inPod := pgbenchScripts(t, "--file="+a1+"@3", "--file="+a2, "--file="+up+"@1", "--file="+a1), pgbenchScripts(t, podArgs...)
	if local != inPod || local != "acct@3,acct#2@1,update@1,acct#3@1" {
		t.Errorf("a pod runs scripts %s, want %s as here (acct@3,acct#2@1,update@1,acct#3@1)", inPod, local)
	}
	if !strings.Contains(o.stderr, "-workload   # afterwards") {
		t.Errorf("the instructions do not say to delete the ConfigMap:\n%s", o.stderr)
	}

	// The built-in scripts need no file: one document, no volume.
	o = run(t, context.Background(), "k8s", "job", "pgbench", "-b", "select-only", "--generators", "2", "--secret", "rs")
	if job := decodeJob(t, o); len(job.Spec.Template.Spec.Volumes) != 0 {
		t.Errorf("volumes for a built-in: %+v", job.Spec.Template.Spec.Volumes)
	}
}

// pgbenchScripts are the scripts pgbench runs with args, as its result
// records them (NAME@WEIGHT,...).
func pgbenchScripts(t *testing.T, args ...string) string {
	t.Helper()
	w := pgbench.New()
	fs := pflag.NewFlagSet("pgbench", pflag.ContinueOnError)
	w.BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	if err := w.Validate(); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return w.Options().(pgbench.Options).Scripts
}
