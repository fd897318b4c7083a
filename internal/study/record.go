package study

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
)

// RecordFile is the file in a study's --dir that says which study id wrote
// the folder and with what specification each of its steps ran. No step
// writes it: a step's files are <step>.json and <step>-*, and a step's
// name has no '.'; a report's path is never a .json.
const RecordFile = "study.rightsize.json"

// ErrDirTaken is wrapped by ClaimDir's refusal of a --dir that holds files
// the study would write over and did not write.
var ErrDirTaken = errors.New("the study's --dir holds files it did not write")

// Record is a study's --dir as the study wrote it.
type Record struct {
	Study string `json:"study"`
	ID    string `json:"id"`
	// File and Digest are the study file that wrote it (Study.File and
	// Study.Digest; both empty in a record written before they were kept).
	File   string                `json:"file,omitempty"`
	Digest string                `json:"digest,omitempty"`
	Steps  map[string]StepRecord `json:"steps"`
}

// sameAs reports whether rec was written by this study: of its name, and
// from its file (the same path, edited or not, or the same text
// elsewhere). A record that names no file (written before they were kept)
// is the study's by its name alone.
func (s *Study) sameAs(rec *Record) bool {
	if rec.Study != s.Name {
		return false
	}
	if rec.File == "" && rec.Digest == "" {
		return true
	}
	return rec.File == s.File || rec.Digest == s.Digest
}

// StepRecord is a step that ran: its specification (the flags of what it
// measures) and the files it wrote (a sweep's file, or a run's results;
// absolute, as the history records them, to be compared with the
// history's).
type StepRecord struct {
	Spec  []string `json:"spec"`
	Files []string `json:"files"`
}

// ReadRecord reads the record of the study folder dir (nil: there is none).
func ReadRecord(dir string) (*Record, error) {
	b, err := session.ReadFile(filepath.Join(dir, RecordFile)) // capped, as every file rightsize reads back
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	return &r, nil
}

// Write replaces the record in dir, atomically.
func (r *Record) Write(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return session.WriteFile(filepath.Join(dir, RecordFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Done adds the step, run with spec and having written files, to the
// record, and writes it in dir.
func (r *Record) Done(dir, step string, spec, files []string) error {
	abs := make([]string, len(files))
	for i, p := range files {
		abs[i] = session.AbsPath(p)
	}
	r.Steps[step] = StepRecord{Spec: spec, Files: abs}
	return r.Write(dir)
}

// Claim is how a study takes its --dir.
type Claim struct {
	Dir, ID string
	// Force replaces files of the study's names that this id did not write.
	Force bool
	// ReplaceOurs lets the study replace the files rightsize wrote there
	// whatever study wrote them (quickstart's folder is its own), not others.
	ReplaceOurs bool
}

// ClaimDir makes the study's --dir its own before any step runs: a folder
// whose record names this study and id is resumed; otherwise the files the
// study would write there (its report, plan.json, a step's <step>.json and
// <step>-*, the record) must not exist, unless c.Force (an error wrapping
// ErrDirTaken). With c.ReplaceOurs files rightsize wrote may be replaced,
// and only others are refused. It returns the record the steps are added
// to as they complete.
func (s *Study) ClaimDir(c Claim) (*Record, error) {
	rec, err := ReadRecord(c.Dir)
	if err != nil {
		return nil, err
	}
	if rec != nil && rec.ID == c.ID && s.sameAs(rec) {
		if rec.Steps == nil {
			rec.Steps = map[string]StepRecord{}
		}
		rec.File, rec.Digest = s.File, s.Digest // as the study is now
		return rec, nil
	}
	if !c.Force {
		if clash := s.clashes(c); len(clash) > 0 {
			by := "that study " + c.ID + " did not write"
			if rec != nil {
				by = "that study " + rec.ID + " (" + rec.Study + ") wrote"
				if rec.ID == c.ID && rec.Study == s.Name {
					by = "that study " + rec.ID + " of another file of the name " + rec.Study + " (" + rec.File + ") wrote"
				}
			}
			how := "give another --dir, or --force to replace them"
			if c.ReplaceOurs {
				how = "give another --dir"
			}
			return nil, dirTaken{fmt.Sprintf("--dir %s holds %s, %s: %s", c.Dir, strings.Join(clash, ", "), by, how)}
		}
	}
	rec = &Record{Study: s.Name, ID: c.ID, File: s.File, Digest: s.Digest, Steps: map[string]StepRecord{}}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	if err := rec.Write(c.Dir); err != nil {
		return nil, err
	}
	return rec, nil
}

// dirTaken is ClaimDir's refusal.
type dirTaken struct{ msg string }

func (e dirTaken) Error() string { return e.msg }
func (e dirTaken) Unwrap() error { return ErrDirTaken }

// clashes lists the files in the study's --dir that it would write over
// (with c.ReplaceOurs, only those rightsize did not write).
func (s *Study) clashes(c Claim) []string {
	ents, err := os.ReadDir(c.Dir)
	if err != nil {
		return nil // none yet (or unreadable: the steps will say)
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		mine := name == RecordFile || name == s.Report.Path || (s.Sizing != nil && name == "plan.json") ||
			slices.ContainsFunc(s.Stages, func(st Stage) bool { return st.Writes(name) })
		if !mine || (c.ReplaceOurs && (name == RecordFile || session.Ours(filepath.Join(c.Dir, name)))) {
			continue
		}
		out = append(out, name)
	}
	return out
}

// RanWith reports whether the record beside path, a file the history holds
// for the step labelled label (<study id>/<step>), says this study (its
// name and file: sameAs) ran the step with spec; when it does not, why
// says so, to tell why the step runs again. Another study run under the
// same id, with a step of the same name and options, is not this one's.
func (s *Study) RanWith(path, label, step string, spec []string) (ok bool, why string) {
	why = "the history holds it (" + path + "), but no " + RecordFile + " beside it says with which options it ran"
	rec, _ := ReadRecord(filepath.Dir(path))
	if rec != nil && strings.HasPrefix(label, rec.ID+"/") && !s.sameAs(rec) {
		from := rec.Study
		if rec.File != "" {
			from += ", " + rec.File
		}
		return false, "the history holds it (" + path + ") from another study (" + from + ") under the same id"
	}
	if rec != nil && strings.HasPrefix(label, rec.ID+"/") {
		if sr, ok := rec.Steps[step]; ok && slices.Contains(sr.Files, session.AbsPath(path)) {
			if slices.Equal(sr.Spec, spec) {
				return true, ""
			}
			why = "the history holds it with other options (" + specDiff(sr.Spec, spec) + ")"
		}
	}
	return false, why
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
			diffs = append(diffs, orNot(t[k], k)+" then, "+orNot(n[k], k)+" now")
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more", len(diffs)-3))
	}
	return strings.Join(diffs, "; ")
}

// orNot is the flag as given, else "NAME not given".
func orNot(given, name string) string {
	if given != "" {
		return given
	}
	return name + " not given"
}
