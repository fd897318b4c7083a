// Package k8sjob builds the Kubernetes manifest of a distributed run: one
// Indexed Job (batch/v1) whose N pods each run one shard of the run,
// 'rightsize run WORKLOAD ... --shard $(JOB_COMPLETION_INDEX)/N --run-id ID'.
//
// The manifest is built from the package's own small types (types.go: the
// fields it sets of the API's batch/v1 Job and v1 ConfigMap) and written as
// the API's client library writes its types (sigs.k8s.io/yaml: JSON, then
// YAML by go.yaml.in/yaml/v2), byte for byte; the e2e module's tests decode
// every manifest strictly into the API's types (k8s.io/api) and compare.
// The database's and the history catalog's URLs, which carry
// passwords, are never in it: the pods read them from a Secret through
// secretKeyRef, and the shards are given --target env:RIGHTSIZE_TARGET (the
// history catalog is read from $RIGHTSIZE_HISTORY).
//
// The package is pure: no I/O, no process state.
package k8sjob

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/rightsize/rightsize/internal/shard"
)

// Names the manifest gives the container, its environment and its labels.
const (
	Container = "rightsize"

	// EnvIndex is the shard's index, from the pod's completion-index
	// annotation. The Job controller also sets it on recent versions; it is
	// defined explicitly so that $(JOB_COMPLETION_INDEX) in the arguments is
	// expanded on every version.
	EnvIndex = "JOB_COMPLETION_INDEX"
	// EnvTarget holds the database URL (from the Secret), read by the shards
	// through --target env:RIGHTSIZE_TARGET.
	EnvTarget = "RIGHTSIZE_TARGET"
	// EnvHistory holds the history catalog's URL (from the Secret), which
	// rightsize reads when --history is not given.
	EnvHistory = "RIGHTSIZE_HISTORY"

	LabelName      = "app.kubernetes.io/name"
	LabelComponent = "app.kubernetes.io/component"
	// LabelRun carries the run id (sanitised as a label value): one Job, one
	// run, as app.kubernetes.io/instance means.
	LabelRun = "app.kubernetes.io/instance"

	AnnotationRunID = "rightsize/run-id"
	AnnotationMerge = "rightsize/merge"

	// MaxGenerators bounds --generators as it bounds --shard's count.
	MaxGenerators = shard.MaxCount
)

// Spec is what the Job runs.
type Spec struct {
	// Name is the Job's name; "" derives it from RunID (see JobName).
	Name string
	// Namespace is the Job's namespace; "": kubectl's current one.
	Namespace string
	// Image is the container image holding the rightsize binary.
	Image string
	// Workload is the workload each shard runs.
	Workload string
	// Args are the workload's and the run's options, given to every shard
	// exactly as they are here, after "run WORKLOAD" (a '$' is escaped so
	// that Kubernetes does not expand $(VAR) in them). They must not set
	// what the manifest sets: --target, --history, --shard, --run-id, --out.
	Args []string
	// Generators is the number of shards, one pod each (1..MaxGenerators).
	Generators int
	// RunID is the id every shard of the run shares (run --run-id, which
	// checks it): the Job's name and its label are made of it.
	RunID string
	// StartAt is run --start-at, given to every shard ("": none).
	StartAt string
	// Secret names the Secret holding the URLs; TargetKey and HistoryKey
	// are their keys in it.
	Secret, TargetKey, HistoryKey string
	// CPU and Memory are each generator's resources, Kubernetes quantities
	// ("2", "1500m"; "2Gi"), both its requests and its limits.
	CPU, Memory string
	// File is the workload file the shards run, when the workload is one
	// (nil for a built-in): the manifest carries it in a ConfigMap, mounted
	// read-only in every pod, and the shards run its copy there.
	File *File
	// Files are the files the options name (pgbench's -f scripts), carried
	// in the same ConfigMap, each at FilePath(Name) in every pod: Args
	// name them there (see PlaceFiles).
	Files []File
}

// File is a file the pods are given: its name (the workload file's: a file
// name, no directory; Files': a path under FileDir, see PlaceFiles) and its
// text.
type File struct {
	Name string
	Data []byte
}

// FileDir is where a pod finds the workload file (Spec.File) and the
// options' files (Spec.Files).
const FileDir = "/etc/rightsize/workload"

// maxFile is the most a ConfigMap holds (1 MiB with its keys).
const maxFile = 1 << 20

// FilePath is where a pod finds the file of Spec.Files named name.
func FilePath(name string) string { return FileDir + "/" + name }

// PlaceFiles names the local files at paths (in their order) as Spec.Files
// names them: each by its base name, except base names that two different
// paths share, each then in a folder of its own, "N/base" (N the path's
// number among the different paths, from 1), so that the copies keep the
// names the workload reads from them (pgbench names a script's operation
// after its file's). A path given twice gets one name.
func PlaceFiles(paths []string) []string {
	var distinct []string
	bases := map[string]int{}
	for _, p := range paths {
		if !slices.Contains(distinct, p) {
			distinct = append(distinct, p)
			bases[baseName(p)]++
		}
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		n := slices.Index(distinct, p)
		names[i] = baseName(p)
		if bases[names[i]] > 1 {
			names[i] = strconv.Itoa(n+1) + "/" + names[i]
		}
	}
	return names
}

// baseName is p's last element: its base name on this system (Linux),
// where only '/' separates.
func baseName(p string) string { return path.Base(p) }

// fileKey is the ConfigMap's key of Spec.Files[i] named name: "file-N-"
// and the name's base with what a key cannot hold replaced by '_'.
func fileKey(i int, name string) string {
	b := []byte(path.Base(name))
	for j, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[j] = '_'
		}
	}
	key := "file-" + strconv.Itoa(i+1) + "-" + string(b)
	if len(key) > 200 {
		key = key[:200]
	}
	return key
}

// setByManifest are the run options the manifest gives every shard itself.
var setByManifest = []string{"target", "history", "no-history", "shard", "run-id", "start-at", "out"}

// Build returns the Job of spec, or every problem with spec at once.
//
// The Job is Indexed with parallelism = completions = Generators, and
// backoffLimit 0: a failed shard fails the Job, whose other pods are then
// stopped. A shard is not run again because a re-run would measure another
// window than the others' (the shards start together, at the start barrier
// of the history catalog, which a late shard finds passed); nor are the
// other shards left to run on, since without the failed one the run is not
// the load that was asked for. backoffLimit works on every Kubernetes
// version (backoffLimitPerIndex would need 1.29 or later and let the others
// run to their end).
func Build(s Spec) (*Job, error) {
	name, cpu, mem, err := s.check()
	if err != nil {
		return nil, err
	}
	labels := map[string]string{
		LabelName:      "rightsize",
		LabelComponent: "generator",
		LabelRun:       LabelValue(s.RunID),
	}
	pod := podTemplate(labels, s.container(cpu, mem))
	if s.hasFiles() {
		mountFile(&pod.Spec, fileMap(name), s.fileItems())
	}
	return &Job{
		TypeMeta: TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: ObjectMeta{
			Name:      name,
			Namespace: s.Namespace,
			Labels:    labels,
			Annotations: map[string]string{
				AnnotationRunID: s.RunID,
				AnnotationMerge: MergeCommand(s.RunID),
			},
		},
		Spec: jobSpec(int32(s.Generators), pod),
	}, nil
}

// fileMap is the name of the ConfigMap holding the Job's workload file and
// its options' files.
func fileMap(job string) string { return job + "-workload" }

// hasFiles reports whether the pods are given files (a ConfigMap).
func (s Spec) hasFiles() bool { return s.File != nil || len(s.Files) > 0 }

// fileData is the ConfigMap's data: the workload file under its name, each
// of Files under fileKey.
func (s Spec) fileData() map[string]string {
	data := map[string]string{}
	if s.File != nil {
		data[s.File.Name] = string(s.File.Data)
	}
	for i, f := range s.Files {
		data[fileKey(i, f.Name)] = string(f.Data)
	}
	return data
}

// fileItems are the ConfigMap's keys and their paths under FileDir when
// the options name files (nil, every key at its own name, when they name
// none).
func (s Spec) fileItems() []KeyToPath {
	if len(s.Files) == 0 {
		return nil
	}
	var items []KeyToPath
	if s.File != nil {
		items = append(items, KeyToPath{Key: s.File.Name, Path: s.File.Name})
	}
	for i, f := range s.Files {
		items = append(items, KeyToPath{Key: fileKey(i, f.Name), Path: f.Name})
	}
	return items
}

// mountFile mounts the ConfigMap cm (its items, or every key when nil)
// read-only at FileDir in the pod's container.
func mountFile(pod *PodSpec, cm string, items []KeyToPath) {
	pod.Volumes = append(pod.Volumes, Volume{Name: "workload", ConfigMap: &ConfigMapVolumeSource{Name: cm, Items: items}})
	c := &pod.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, VolumeMount{Name: "workload", MountPath: FileDir, ReadOnly: true})
}

// FileConfigMap returns the ConfigMap carrying s's workload file and its
// options' files (nil when there are none), labelled as the Job is.
func FileConfigMap(s Spec) (*ConfigMap, error) {
	if !s.hasFiles() {
		return nil, nil
	}
	name, _, _, err := s.check()
	if err != nil {
		return nil, err
	}
	return &ConfigMap{
		TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: ObjectMeta{
			Name: fileMap(name), Namespace: s.Namespace,
			Labels: map[string]string{LabelName: "rightsize", LabelComponent: "workload-file", LabelRun: LabelValue(s.RunID)},
		},
		Data: s.fileData(),
	}, nil
}

// check returns the Job's name (Name, or one derived from RunID) and each
// generator's CPU and memory, or every problem with s at once.
func (s Spec) check() (name string, cpu, mem Quantity, err error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if s.Generators < 1 || s.Generators > MaxGenerators {
		bad("--generators %d: want 1 to %d shards", s.Generators, MaxGenerators)
	}
	// The run's own rule for the id is the run's to check (run --run-id):
	// here it must only name the Job and label it.
	if LabelValue(s.RunID) == "" {
		bad("--run-id %q: want letters or digits in it", s.RunID)
	}
	if s.Workload == "" {
		bad("no workload")
	}
	if s.Image == "" || strings.ContainsAny(s.Image, " \t\r\n") {
		bad("--image %q: want an image reference such as registry.example.com/rightsize:1.0", s.Image)
	}
	s.checkSecret(bad)
	if s.Namespace != "" {
		if msgs := IsDNS1123Label(s.Namespace); len(msgs) > 0 {
			bad("--namespace %q: not a namespace name: %s", s.Namespace, strings.Join(msgs, "; "))
		}
	}
	cpu, err = quantity("cpu", s.CPU, "2, 1500m or 0.5")
	if err != nil {
		errs = append(errs, err)
	}
	mem, err = quantity("memory", s.Memory, "2Gi or 512Mi")
	if err != nil {
		errs = append(errs, err)
	}
	for _, a := range s.Args {
		opt, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		for _, set := range setByManifest {
			if strings.HasPrefix(a, "--") && opt == set {
				// Not echoed: a --target or --history value holds a password.
				bad("an argument sets --%s, which the manifest sets itself", set)
			}
		}
	}
	s.checkFiles(bad)
	name = s.jobName(bad)
	if err := errors.Join(errs...); err != nil {
		return "", cpu, mem, err
	}
	return name, cpu, mem, nil
}

// checkFiles reports to bad what is wrong with the files given to the pods:
// a workload file's name that is no ConfigMap key, an option's file's name
// that is no relative path under FileDir, two files of one name, or more
// than a ConfigMap holds (1 MiB with the keys).
func (s Spec) checkFiles(bad func(format string, args ...any)) {
	names := map[string]bool{}
	if f := s.File; f != nil {
		if msgs := IsConfigMapKey(f.Name); len(msgs) > 0 || strings.HasPrefix(f.Name, "..") {
			bad("workload file %q: its name is not a ConfigMap key: %s", f.Name, strings.Join(msgs, "; "))
		}
		if len(f.Data) > maxFile-len(f.Name) {
			bad("workload file %s: %d bytes, more than a ConfigMap holds (1 MiB)", f.Name, len(f.Data))
		}
		names[f.Name] = true
	}
	total := 0
	for i, f := range s.Files {
		if f.Name == "" || path.Clean(f.Name) != f.Name || path.IsAbs(f.Name) || strings.HasPrefix(f.Name, "..") || strings.ContainsAny(f.Name, "\\\x00") {
			bad("file %q: not a path under %s (nor may a name hold a backslash)", f.Name, FileDir)
		} else if names[f.Name] {
			bad("file %s: two files of that name", f.Name)
		}
		names[f.Name] = true
		total += len(f.Data) + len(fileKey(i, f.Name))
	}
	if len(s.Files) > 0 && s.File != nil {
		total += len(s.File.Data) + len(s.File.Name)
	}
	if total > maxFile {
		bad("files %d bytes in all, more than a ConfigMap holds (1 MiB)", total)
	}
}

// checkSecret reports to bad what is wrong with the Secret's name and its
// two keys.
func (s Spec) checkSecret(bad func(format string, args ...any)) {
	if s.Secret == "" {
		bad("--secret: name the Kubernetes Secret holding the target's and the history catalog's URLs")
	} else if msgs := IsDNS1123Subdomain(s.Secret); len(msgs) > 0 {
		bad("--secret %q: not a Secret name: %s", s.Secret, strings.Join(msgs, "; "))
	}
	for _, k := range []struct{ flag, key string }{{"target-key", s.TargetKey}, {"history-key", s.HistoryKey}} {
		if msgs := IsConfigMapKey(k.key); len(msgs) > 0 {
			bad("--%s %q: not a Secret key: %s", k.flag, k.key, strings.Join(msgs, "; "))
		}
	}
}

// jobName is the Job's name: Name when given, checked (reported to bad) to
// be a DNS label short enough for the pods' hostnames, else derived from
// RunID. It is Name unchecked when Generators is out of range (already
// reported).
func (s Spec) jobName(bad func(format string, args ...any)) string {
	name := s.Name
	if s.Generators < 1 || s.Generators > MaxGenerators {
		return name
	}
	if name == "" {
		name = JobName(s.RunID, s.Generators)
	} else if msgs := IsDNS1123Label(name); len(msgs) > 0 {
		bad("--name %q: not a Job name: %s", name, strings.Join(msgs, "; "))
	} else if limit := maxNameLen(s.Generators); len(name) > limit {
		// The Job controller names the pods' hosts NAME-INDEX, which must
		// be a DNS label too.
		bad("--name %q: at most %d characters with %d generators (the pods' hostnames are NAME-INDEX, at most 63 characters)", name, limit, s.Generators)
	}
	return name
}

// jobSpec is the Indexed Job of n pods made from template: parallelism =
// completions = n, backoffLimit 0 (see Build).
func jobSpec(n int32, template PodTemplateSpec) JobSpec {
	return JobSpec{
		CompletionMode: ptr(IndexedCompletion),
		Completions:    ptr(n),
		Parallelism:    ptr(n),
		BackoffLimit:   ptr(int32(0)),
		Template:       template,
	}
}

// podTemplate is the generators' pod, labelled with (a copy of) labels,
// running c: never restarted, with no access to the Kubernetes API, and
// within the "restricted" Pod Security Standard.
func podTemplate(labels map[string]string, c ContainerSpec) PodTemplateSpec {
	return PodTemplateSpec{
		ObjectMeta: ObjectMeta{Labels: maps.Clone(labels)},
		Spec: PodSpec{
			RestartPolicy: "Never",
			// The generators need no access to the Kubernetes API.
			AutomountServiceAccountToken: ptr(false),
			// Within the "restricted" Pod Security Standard.
			SecurityContext: &PodSecurityContext{
				RunAsNonRoot:   ptr(true),
				SeccompProfile: &SeccompProfile{Type: "RuntimeDefault"},
			},
			Containers: []ContainerSpec{c},
		},
	}
}

// container is the generator's container: the image running one shard
// (shardArgs), its environment (shardEnv), cpu and mem as both requests and
// limits, and no privilege escalation or capabilities.
func (s Spec) container(cpu, mem Quantity) ContainerSpec {
	resources := func() ResourceList {
		return ResourceList{ResourceCPU: cpu, ResourceMemory: mem}
	}
	return ContainerSpec{
		Name:  Container,
		Image: s.Image,
		Args:  s.shardArgs(),
		Env:   s.shardEnv(),
		// Requests = limits: Guaranteed QoS, so that a generator is neither
		// throttled below what it asked for nor evicted first, and measures
		// the database, not itself.
		Resources: ResourceRequirements{Requests: resources(), Limits: resources()},
		SecurityContext: &SecurityContext{
			AllowPrivilegeEscalation: ptr(false),
			Capabilities:             &Capabilities{Drop: []string{"ALL"}},
		},
	}
}

// shardArgs is a shard's command line: 'run WORKLOAD ARGS...' with every '$'
// escaped, then what the manifest sets: the target from $RIGHTSIZE_TARGET,
// the shard from $(JOB_COMPLETION_INDEX), the run id, no result file, and
// --start-at when given.
func (s Spec) shardArgs() []string {
	workload := s.Workload
	if s.File != nil {
		workload = FileDir + "/" + s.File.Name // the ConfigMap's copy
	}
	args := []string{"run", Escape(workload)}
	for _, a := range s.Args {
		args = append(args, Escape(a))
	}
	args = append(args,
		"--target", "env:"+EnvTarget,
		"--shard", "$("+EnvIndex+")/"+strconv.Itoa(s.Generators),
		"--run-id", Escape(s.RunID),
		// The container's filesystem goes with the pod: the results are
		// recorded in the history catalog ($RIGHTSIZE_HISTORY), not in a file.
		"--out", "-",
	)
	if s.StartAt != "" {
		args = append(args, "--start-at", Escape(s.StartAt))
	}
	return args
}

// shardEnv is the container's environment: the shard's index from the pod's
// completion-index annotation, and the target's and the history catalog's
// URLs from the Secret.
func (s Spec) shardEnv() []EnvVar {
	secret := func(key string) *EnvVarSource {
		return &EnvVarSource{SecretKeyRef: &SecretKeySelector{Name: s.Secret, Key: key}}
	}
	return []EnvVar{
		{Name: EnvIndex, ValueFrom: &EnvVarSource{FieldRef: &ObjectFieldSelector{
			FieldPath: "metadata.annotations['" + JobCompletionIndexAnnotation + "']",
		}}},
		{Name: EnvTarget, ValueFrom: secret(s.TargetKey)},
		{Name: EnvHistory, ValueFrom: secret(s.HistoryKey)},
	}
}

// JobCompletionIndexAnnotation is the pod's annotation that holds its
// completion index in an Indexed Job.
const JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"

// Marshal returns job as a YAML manifest.
func Marshal(job *Job) ([]byte, error) {
	return marshal(job)
}

// Manifest returns the YAML manifest of spec's Job, after the ConfigMap
// of its workload file when it runs one (two documents).
func Manifest(s Spec) ([]byte, error) {
	job, err := Build(s)
	if err != nil {
		return nil, err
	}
	out, err := Marshal(job)
	if err != nil || !s.hasFiles() {
		return out, err
	}
	cm, err := FileConfigMap(s)
	if err != nil {
		return nil, err
	}
	file, err := marshal(cm)
	if err != nil {
		return nil, err
	}
	return append(append(file, "---\n"...), out...), nil
}

// MergeCommand is the command that merges the shards' results once the Job
// has completed.
func MergeCommand(runID string) string {
	return `rightsize merge --run ` + runID + ` --history "$` + EnvHistory + `"`
}

// JobName derives a Job's name from its run id: "rightsize-" and the id in
// lower case, with what a DNS label cannot hold replaced by '-', cut so that
// the pods' hostnames (NAME-INDEX, up to INDEX generators-1) stay within 63
// characters, and trimmed of a trailing '-'.
func JobName(runID string, generators int) string {
	var b strings.Builder
	b.WriteString("rightsize-")
	for _, r := range strings.ToLower(runID) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	name := b.String()
	if limit := maxNameLen(generators); len(name) > limit {
		name = name[:limit]
	}
	return strings.TrimRight(name, "-")
}

// maxNameLen is the longest Job name whose pods' hostnames, NAME-INDEX, are
// DNS labels (63 characters at most).
func maxNameLen(generators int) int {
	return DNS1123LabelMaxLength - len("-"+strconv.Itoa(max(generators-1, 0)))
}

// LabelValue makes s a label value: characters other than letters, digits,
// '-', '_' and '.' replaced by '-', at most 63 characters, starting and
// ending with a letter or digit.
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	notAlnum := func(c rune) bool { return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') }
	v := strings.TrimLeftFunc(string(b), notAlnum)
	if len(v) > 63 {
		v = v[:63]
	}
	return strings.TrimRightFunc(v, notAlnum)
}

// Escape quotes an argument for a container's args, where Kubernetes
// expands $(VAR) from the container's environment and reads $$ as $: with
// every '$' doubled the process gets the argument as it is (an option such
// as --label 'x $(RIGHTSIZE_TARGET)' would otherwise carry the password).
func Escape(arg string) string {
	return strings.ReplaceAll(arg, "$", "$$")
}

func quantity(name, v, examples string) (Quantity, error) {
	q, sign, err := ParseQuantity(strings.TrimSpace(v))
	if err != nil {
		return q, fmt.Errorf("--%s %q: not a Kubernetes quantity (e.g. %s)", name, v, examples)
	}
	if sign <= 0 {
		return q, fmt.Errorf("--%s %q: want more than 0", name, v)
	}
	return q, nil
}

func ptr[T any](v T) *T { return &v }
