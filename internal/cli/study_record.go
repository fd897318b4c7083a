package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/study"
)

// recordFile is the file in a study's --dir that says which study id wrote
// the folder and with what specification each of its steps ran. No step
// writes it: a step's files are <step>.json and <step>-*, and a step's
// name has no '.'; a report's path is never a .json.
const recordFile = "study.rightsize.json"

// studyRecord is a study's --dir as the study wrote it.
type studyRecord struct {
	Study string                `json:"study"`
	ID    string                `json:"id"`
	Steps map[string]stepRecord `json:"steps"`
}

// stepRecord is a step that ran: its specification (stepSpec) and the
// files it wrote (a sweep's file, or a run's results; absolute, as the
// history records them, to be compared with the history's).
type stepRecord struct {
	Spec  []string `json:"spec"`
	Files []string `json:"files"`
}

// readRecord reads the record of the study folder dir (nil: there is none).
func readRecord(dir string) (*studyRecord, error) {
	b, err := session.ReadFile(filepath.Join(dir, recordFile)) // capped, as every file rightsize reads back
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r studyRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, recordFile), err)
	}
	return &r, nil
}

// write replaces the record in dir, atomically.
func (r *studyRecord) write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return session.WriteFile(filepath.Join(dir, recordFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// claimDir makes the study's --dir its own before any step runs: a folder
// whose record names this study and id is resumed; otherwise the files the
// study would write there (its report, plan.json, a step's <step>.json and
// <step>-*, the record) must not exist, unless --force (exit 2). With
// o.replaceOurs (quickstart, whose folder is its own) files rightsize wrote
// may be replaced, and only others are refused. It returns the record the
// steps are added to as they complete.
func claimDir(s *study.Study, o studyOptions) (*studyRecord, error) {
	rec, err := readRecord(o.dir)
	if err != nil {
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	if rec != nil && rec.ID == o.id && rec.Study == s.Name {
		if rec.Steps == nil {
			rec.Steps = map[string]stepRecord{}
		}
		return rec, nil
	}
	if !o.force {
		if clash := studyClashes(s, o); len(clash) > 0 {
			by := "that study " + o.id + " did not write"
			if rec != nil {
				by = "that study " + rec.ID + " (" + rec.Study + ") wrote"
			}
			how := "give another --dir, or --force to replace them"
			if o.replaceOurs {
				how = "give another --dir"
			}
			return nil, usagef("study: --dir %s holds %s, %s: %s", o.dir, strings.Join(clash, ", "), by, how)
		}
	}
	rec = &studyRecord{Study: s.Name, ID: o.id, Steps: map[string]stepRecord{}}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	if err := rec.write(o.dir); err != nil {
		return nil, runError{fmt.Errorf("study: %w", err)}
	}
	return rec, nil
}

// studyClashes lists the files in the study's --dir that it would write
// over (with o.replaceOurs, only those rightsize did not write).
func studyClashes(s *study.Study, o studyOptions) []string {
	ents, err := os.ReadDir(o.dir)
	if err != nil {
		return nil // none yet (or unreadable: the steps will say)
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		mine := name == recordFile || name == s.Report.Path || (s.Plan != nil && name == "plan.json") ||
			slices.ContainsFunc(s.Steps, func(st study.Step) bool { return st.Writes(name) })
		if !mine || (o.replaceOurs && (name == recordFile || session.Ours(filepath.Join(o.dir, name)))) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// stepSpec is what a step measures, to compare with what the history holds
// for it: its flags but those that only say where it is written (--out,
// --label, --history) and how the tables are loaded (--prepare), the
// targets' passwords removed; sorted.
func stepSpec(args []string) []string {
	var out []string
	for _, a := range redactArgs(args) {
		name, _, _ := strings.Cut(a, "=")
		if !slices.Contains([]string{"--out", "--label", "--history", "--prepare"}, name) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// specDiff says how the spec recorded (then) differs from now's: each flag
// that differs, "--threads=8 then, --threads=16 now" (at most three).
func specDiff(then, now []string) string {
	byName := func(spec []string) map[string]string {
		m := map[string]string{}
		for _, a := range spec {
			name, _, _ := strings.Cut(a, "=")
			m[name] = strings.TrimSpace(m[name] + " " + a)
		}
		return m
	}
	t, n := byName(then), byName(now)
	var names []string
	for k := range t {
		names = append(names, k)
	}
	for k := range n {
		if _, ok := t[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var diffs []string
	for _, k := range names {
		if t[k] != n[k] {
			diffs = append(diffs, orElse(t[k], k+" not given")+" then, "+orElse(n[k], k+" not given")+" now")
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more", len(diffs)-3))
	}
	return strings.Join(diffs, "; ")
}

// absPaths is paths made absolute (each as it is when it cannot be).
func absPaths(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = absPath(p)
	}
	return out
}
