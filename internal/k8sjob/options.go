package k8sjob

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// Refused are the run's flags a manifest refuses: the URLs (they hold
// passwords) and what the manifest gives each pod itself. The CLI keeps
// them on 'k8s job', to say why, but hides them.
var Refused = []string{"target", "history", "no-history", "shard", "out"}

// RefusedGiven are the errors for the refused options given (given
// reports whether a flag was; noHistory is --no-history's value), each
// saying what to do instead; s's Secret and keys name the Secret to
// create. A URL is never echoed.
func RefusedGiven(given func(flag string) bool, noHistory bool, s Spec) []error {
	var errs []error
	var urls []string
	for _, f := range []string{"target", "history"} {
		if given(f) {
			urls = append(urls, "--"+f)
		}
	}
	if len(urls) > 0 {
		secret := "NAME"
		if s.Secret != "" && len(IsDNS1123Subdomain(s.Secret)) == 0 {
			secret = s.Secret
		}
		errs = append(errs, fmt.Errorf("%s: refused, a manifest must not hold a URL and its password; put the database's URL and the history catalog's in a Kubernetes Secret, "+
			"kubectl create secret generic %s --from-literal=%s='postgres://USER:PASSWORD@HOST:5432/DB' --from-literal=%s='postgres://USER:PASSWORD@HOST:5432/HISTORY_DB', and pass --secret %s",
			strings.Join(urls, " and "), secret, s.TargetKey, s.HistoryKey, secret))
	}
	if given("shard") {
		errs = append(errs, errors.New("--shard: refused, the manifest gives each pod its shard, $(JOB_COMPLETION_INDEX)/N with N from --generators"))
	}
	if given("out") {
		errs = append(errs, errors.New("--out: refused, a pod's files go with it: the shards record their results in the history catalog, and 'rightsize merge --run ID' merges them"))
	}
	if noHistory {
		errs = append(errs, errors.New("--no-history: refused, the shards start together and record their results through the history catalog"))
	}
	return errs
}

// Args are every other run and workload option the user gave (visit calls
// its function for each flag given), as --name=value: not those refused,
// nor those the manifest sets (--run-id, --start-at), nor the manifest's
// own flags (own).
func Args(visit func(func(*pflag.Flag)), own *pflag.FlagSet) []string {
	var args []string
	visit(func(f *pflag.Flag) {
		switch f.Name {
		case "help", "target", "history", "no-history", "shard", "out", "run-id", "start-at":
			return
		}
		if own.Lookup(f.Name) != nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// Instructions are what to do with the manifest of job, for the run runID
// of workload over s's generators: apply it, watch its pods, merge the
// shards once it has completed.
func Instructions(job string, s Spec) string {
	ns := ""
	if s.Namespace != "" {
		ns = " -n " + s.Namespace
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Job %s: run %s of %s on %d generators. With the manifest saved (rightsize k8s job ... > job.yaml):\n", job, s.RunID, s.Workload, s.Generators)
	fmt.Fprintf(&b, "  kubectl apply%s -f job.yaml\n", ns)
	fmt.Fprintf(&b, "  kubectl get pods%s -l %s=%s --watch\n", ns, LabelRun, LabelValue(s.RunID))
	fmt.Fprintf(&b, "  %s   # once the Job has completed\n", MergeCommand(s.RunID))
	if s.hasFiles() {
		// A ConfigMap cannot be owned by a Job not yet created (no UID):
		// it outlives it unless deleted.
		what := "the workload file's ConfigMap"
		if len(s.Files) > 0 {
			what = "the ConfigMap of its files"
		}
		fmt.Fprintf(&b, "  kubectl delete%s job/%s configmap/%s   # afterwards: the Job and %s\n", ns, job, fileMap(job), what)
	}
	return b.String()
}
