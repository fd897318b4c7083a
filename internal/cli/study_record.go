package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/observe"
	"github.com/rightsize/rightsize/internal/study"
)

// claimDir makes the study's --dir its own before any step runs
// (study.ClaimDir): a folder another study id wrote is refused (exit 2)
// unless --force.
func claimDir(s *study.Study, o studyOptions) (*study.Record, error) {
	rec, err := s.ClaimDir(study.Claim{Dir: o.dir, ID: o.id, Force: o.force, ReplaceOurs: o.replaceOurs})
	switch {
	case errors.Is(err, study.ErrDirTaken):
		return nil, usageError{fmt.Errorf("study: %w", err)}
	case err != nil:
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	return rec, nil
}

// stepSpec is what a step measures, to compare with what the history holds
// for it: its flags but those that only say where it is written (--out,
// --label, --history) and how the tables are loaded (--prepare), the
// targets' passwords removed; sorted.
func stepSpec(args []string) []string {
	var out []string
	for _, a := range observe.RedactArgs(args) {
		name, _, _ := strings.Cut(a, "=")
		if !slices.Contains([]string{"--out", "--label", "--history", "--prepare"}, name) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}
