package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rightsize/rightsize/internal/k8sjob"
	"github.com/rightsize/rightsize/internal/runplan"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

const k8sJobLong = `Print (on stdout) a Kubernetes manifest: an Indexed Job that runs WORKLOAD
over --generators N pods, pod I running

  rightsize run WORKLOAD <the options given here> --target env:RIGHTSIZE_TARGET \
    --shard $(JOB_COMPLETION_INDEX)/N --run-id ID --out -

Every run and workload option given here is passed to each shard as given.
The shards wait for each other and record their results in the history
catalog, a PostgreSQL database every pod must reach; merge them once the Job
has completed. Neither URL is in the manifest: the pods read both from a
Kubernetes Secret (--secret), so --target and --history are refused here.

  kubectl create secret generic rightsize \
    --from-literal=target='postgres://USER:PASSWORD@HOST:5432/DB' \
    --from-literal=history='postgres://USER:PASSWORD@HOST:5432/HISTORY_DB'
  rightsize prepare tpcc --warehouses 30 --target env:TARGET   # once, beforehand
  rightsize k8s job tpcc --warehouses 30 --threads 20 --generators 4 \
    --secret rightsize --image registry.example.com/rightsize:1.0 > job.yaml
  kubectl apply -f job.yaml
  rightsize merge --run ID --history "$RIGHTSIZE_HISTORY"

Each generator's --cpu and --memory are both its requests and its limits
(Guaranteed QoS): a generator throttled or evicted first would measure
itself, not the database. A failed shard fails the Job, which stops the
others (backoffLimit 0): run again, it would measure another window than
theirs. A workload file, and pgbench's -f scripts (weights kept), go to the
pods in a ConfigMap printed before the Job. See docs/kubernetes.md for the
container image.`

// k8sCommand is "rightsize k8s": Kubernetes manifests for distributed runs.
func k8sCommand(ctx context.Context, env *Env) *cobra.Command {
	k8s := &cobra.Command{
		Use:   "k8s",
		Short: "Print Kubernetes manifests for distributed runs (k8s job)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("k8s: name the manifest to print: job")
			}
			return usagef("k8s: unknown manifest %q (want: job)", args[0])
		},
		RunE: func(c *cobra.Command, args []string) error { return nil },
	}
	k8s.AddCommand(k8sJobCommand(ctx, env))
	return k8s
}

// k8sOptions are the flags of 'k8s job WORKLOAD' besides the run's.
type k8sOptions struct {
	fs                            *pflag.FlagSet
	generators                    int
	image, name, namespace        string
	secret, targetKey, historyKey string
	cpu, memory                   string
}

func (o *k8sOptions) bind() {
	fs := pflag.NewFlagSet("k8s job", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.IntVar(&o.generators, "generators", 0, fmt.Sprintf("load generators, one pod each, over which the run is split in shards (1 to %d; required)", k8sjob.MaxGenerators))
	fs.StringVar(&o.secret, "secret", "", "the Kubernetes Secret holding the database's URL and the history catalog's (required): kubectl create secret generic NAME --from-literal=target=URL --from-literal=history=URL")
	fs.StringVar(&o.targetKey, "target-key", "target", "the key of the database's URL in --secret (the shards read it with --target env:RIGHTSIZE_TARGET)")
	fs.StringVar(&o.historyKey, "history-key", "history", "the key of the history catalog's URL in --secret (the shards get it as $RIGHTSIZE_HISTORY): a PostgreSQL database every pod reaches, the shards' start barrier and where their results are recorded")
	fs.StringVar(&o.image, "image", "rightsize:latest", "container image of rightsize (docs/kubernetes.md)")
	fs.StringVar(&o.cpu, "cpu", "2", "CPU of each generator, as a Kubernetes quantity (2, 1500m), both requested and limited: Guaranteed QoS, so that a generator is not throttled or evicted first and does not become the bottleneck")
	fs.StringVar(&o.memory, "memory", "2Gi", "memory of each generator (2Gi, 512Mi), both requested and limited, as --cpu")
	fs.StringVar(&o.name, "name", "", "the Job's name (default: rightsize- and the run id)")
	fs.StringVar(&o.namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
	o.fs = fs
}

// k8sJobCommand is "rightsize k8s job WORKLOAD": the workloads' subcommands
// of "run", with their flags and the run's, and the k8s flags added.
func k8sJobCommand(ctx context.Context, env *Env) *cobra.Command {
	opts := map[string]*k8sOptions{}
	job := phaseCommand(ctx, env, "run", "", func(ctx context.Context, env *Env, w workload.Workload, c *runplan.Flags) error {
		return k8sJob(env, w, c, opts[w.Meta().CommandArg()])
	})
	job.Use = "job WORKLOAD"
	job.Short = "Print a Kubernetes Indexed Job running WORKLOAD over N load generators (a distributed run)"
	job.Long = k8sJobLong
	var names []string
	for _, sub := range job.Commands() {
		names = append(names, sub.Name())
		o := &k8sOptions{}
		o.bind()
		sub.Flags().AddFlagSet(o.fs)
		sub.Long = k8sJobLong
		// Refused here (see k8sJob): kept, to say why, but not shown.
		for _, f := range k8sjob.Refused {
			_ = sub.Flags().MarkHidden(f)
		}
		sub.Flags().Lookup("run-id").Usage = "the id the shards of the run share, and the Job's name (default: a fresh one such as 20261201T100000Z-1a2b3c)"
		opts[sub.Name()] = o
	}
	fileArgs := job.Args // phaseCommand's: a workload file's problems
	job.Args = func(c *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usagef("k8s job: name a workload (one of: %s)", strings.Join(names, ", "))
		}
		if err := fileArgs(c, args); err != nil && !strings.Contains(err.Error(), "unknown workload") {
			return err // the file's own refusal
		}
		return usagef("k8s job: unknown workload %q (one of: %s; or a workload file, FILE.yaml)", args[0], strings.Join(names, ", "))
	}
	// As for run: with an unknown workload its flags are unknown too, and
	// the mistake to report is the workload.
	job.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if c == job && len(env.Args) > 2 && env.Args[0] == "k8s" && env.Args[1] == "job" && !strings.HasPrefix(env.Args[2], "-") {
			return job.Args(job, env.Args[2:3])
		}
		return flagError(c, err, env.Args)
	})
	return job
}

// k8sLocalFiles gives the pods copies of the files the workload's options
// name (pgbench's -f scripts), in the manifest's ConfigMap, and points the
// options at the copies (a FILE@W keeps its weight).
func k8sLocalFiles(w workload.Workload, spec *k8sjob.Spec) error {
	local := w.Hooks().LocalFiles
	if local == nil {
		return nil
	}
	files, err := local()
	if err != nil {
		return err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	names := k8sjob.PlaceFiles(paths)
	moved := map[string]string{} // --flag=ARG -> --flag=COPY's ARG
	for i, f := range files {
		if !slices.ContainsFunc(spec.Files, func(g k8sjob.File) bool { return g.Name == names[i] }) {
			spec.Files = append(spec.Files, k8sjob.File{Name: names[i], Data: f.Data})
		}
		moved["--"+f.Flag+"="+f.Arg] = "--" + f.Flag + "=" + k8sjob.FilePath(names[i]) + strings.TrimPrefix(f.Arg, f.Path)
	}
	for i, a := range spec.Args {
		if m, ok := moved[a]; ok {
			spec.Args[i] = m
		}
	}
	return nil
}

// k8sJob checks the options, prints the manifest on stdout and what to do
// with it on stderr.
func k8sJob(env *Env, w workload.Workload, c *runplan.Flags, o *k8sOptions) error {
	runID := c.RunID
	if !c.Changed("run-id") {
		runID = session.NewRunID(time.Now())
	}
	spec := k8sjob.Spec{
		Name: o.name, Namespace: o.namespace, Image: o.image,
		Workload: w.Meta().Name, Args: k8sjob.Args(c.VisitChanged, o.fs), Generators: o.generators,
		RunID: runID, StartAt: c.StartAt,
		Secret: o.secret, TargetKey: o.targetKey, HistoryKey: o.historyKey,
		CPU: o.cpu, Memory: o.memory,
	}
	if def := w.Hooks().Definition; def != nil { // a workload file: the pods get a copy
		d := def()
		spec.File = &k8sjob.File{Name: filepath.Base(d.Path), Data: d.Data}
	}
	errs := k8sjob.RefusedGiven(c.Changed, c.NoHistory, spec)
	// What every shard will check of its options, checked now rather than
	// in N pods' logs: the workload's and the run's options, and those a
	// shard refuses (--prepare always, --steady-state, ...).
	if err := w.Validate(); err != nil {
		errs = append(errs, err)
	} else if err := k8sLocalFiles(w, &spec); err != nil {
		errs = append(errs, err)
	}
	if err := c.RunnerProblems(w); err != nil {
		errs = append(errs, err)
	}
	if _, err := c.InstanceCounts(); err != nil {
		errs = append(errs, err)
	}
	shards := "0/" + strconv.Itoa(min(max(o.generators, 1), k8sjob.MaxGenerators)) // --generators is checked by k8sjob
	if _, err := c.Distributed(shards, runID); err != nil {
		errs = append(errs, err)
	}
	job, err := k8sjob.Build(spec)
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return usageError{fmt.Errorf("k8s job: %w", errors.Join(errs...))}
	}
	manifest, err := k8sjob.Manifest(spec)
	if err != nil {
		return runError{fmt.Errorf("k8s job: %w", err)}
	}
	if _, err := env.Stdout.Write(manifest); err != nil {
		return runError{fmt.Errorf("k8s job: writing the manifest: %w", err)}
	}
	fmt.Fprint(env.Stderr, k8sjob.Instructions(job.Name, spec))
	return nil
}
