package session

// What a command may write over. A command that writes a file (run and
// sweep --out and --cpuprofile, report -o, merge -o) never replaces:
//
//   - one of its own inputs (the same file by any name: a symlink, a hard
//     link, another spelling of the path): refused, whatever --force says;
//   - a file of another kind than it writes, unless --force: report -o
//     replaces a report rightsize wrote (an HTML report, with its <meta
//     name="generator" content="rightsize ..."> tag, or a Markdown report
//     of report -o, whose first line is MarkdownMarker); run and sweep
//     --out and merge -o a result (a checkpoint too) or a sweep file that
//     decodes as ours, or a sweep's Markdown report (ours when the sweep
//     file beside it is); --cpuprofile a Go CPU profile. An empty file is
//     replaced by all. A plan, CSV and text reports (they carry no mark)
//     and files rightsize did not write need --force.
//   - an output another of its flags names (--out and --cpuprofile).
//
// The refusals are usage errors (the CLI exits 2), made before anything
// runs.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rightsize/rightsize/internal/result"
)

// MarkdownMarker is the first line of a Markdown report report -o writes,
// which tells a later report -o that it may replace the file (an HTML
// comment: Markdown renders nothing of it).
const MarkdownMarker = "<!-- generator: rightsize -->\n"

// HTMLMarker is in the head of every HTML page rightsize writes.
const HTMLMarker = `<meta name="generator" content="rightsize`

// kind is what a file rightsize wrote is, as fileKind tells it.
type kind int

const (
	notOurs kind = iota // not rightsize's, or it cannot tell
	kindResult
	kindSweep
	kindSweepMarkdown
	kindPlan
	kindHTML
	kindMarkdown
	kindProfile
)

// String names the kind in a refusal: "-o b.json is a rightsize result".
func (k kind) String() string {
	return [...]string{"not rightsize's", "a rightsize result (a measurement)", "a rightsize sweep file",
		"a sweep's Markdown report (beside its sweep file)", "a rightsize plan", "an HTML report of rightsize's",
		"a Markdown report of rightsize's", "a Go CPU profile"}[k]
}

// Output is what a command's flag writes, and which kinds of rightsize's
// files it replaces without --force.
type Output struct {
	name     string
	replaces []kind
}

// The outputs: report -o's, run, sweep and merge's result or sweep file,
// --cpuprofile's.
var (
	ReportOutput  = Output{"a report", []kind{kindHTML, kindMarkdown}}
	ResultOutput  = Output{"a result or sweep file", []kind{kindResult, kindSweep, kindSweepMarkdown}}
	ProfileOutput = Output{"a CPU profile", []kind{kindProfile}}
)

// CheckOutput refuses (a usage error) to let the command cmd write its flag's file
// path, which is out, over one of inputs (paths it read), or over an
// existing file that is not of a kind out replaces unless force. A path
// that does not exist, or is empty, is fine; one that is not a regular
// file (a directory) is refused, except a device or a pipe (/dev/null,
// /dev/stdout), which is written to as it is.
func CheckOutput(cmd, flag, path string, out Output, force bool, inputs []string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("%s: %s %s: %w", cmd, flag, path, err)
	case st.IsDir():
		return fmt.Errorf("%s: %s %s is a directory: name a file", cmd, flag, path)
	case !st.Mode().IsRegular():
		return nil
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			if in == path {
				return fmt.Errorf("%s: %s %s is also an input of this command: it would be replaced by the output; write elsewhere", cmd, flag, path)
			}
			return fmt.Errorf("%s: %s %s is the input %s (the same file): it would be replaced by the output; write elsewhere", cmd, flag, path, in)
		}
	}
	if force || st.Size() == 0 {
		return nil
	}
	switch k := fileKind(path); {
	case slices.Contains(out.replaces, k):
		return nil
	case k != notOurs:
		return fmt.Errorf("%s: %s %s is %s, not %s: --force replaces it", cmd, flag, path, k, out.name)
	case slices.Contains([]string{".csv", ".txt", ".text"}, strings.ToLower(filepath.Ext(path))):
		return fmt.Errorf("%s: %s %s exists and rightsize cannot tell who wrote it (CSV and text reports carry no mark): --force replaces it", cmd, flag, path)
	}
	return fmt.Errorf("%s: %s %s exists and was not written by rightsize (not a result, sweep, plan or report of its own): --force replaces it", cmd, flag, path)
}

// CheckOnce refuses (a usage error) a file that two of a command's flags name
// (files[i] is flags[i]'s; "" is none): one output would overwrite the
// other. Paths are compared cleaned and absolute, and as files when both
// exist (a symlink, a hard link).
func CheckOnce(cmd string, flags, files []string) error {
	for i := range files {
		for j := range i {
			if files[i] != "" && files[j] != "" && samePath(files[i], files[j]) {
				return fmt.Errorf("%s: %s %s is also %s's %s: name each output once", cmd, flags[i], files[i], flags[j], files[j])
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ab, err2 := filepath.Abs(b)
	if err1 == nil && err2 == nil && aa == ab {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Ours reports whether rightsize wrote the file at path, of any kind (see
// the top of this file).
func Ours(path string) bool {
	return fileKind(path) != notOurs
}

// fileKind tells what kind of rightsize's file path is (notOurs when none).
func fileKind(path string) kind {
	// A sweep's Markdown report goes with the sweep file beside it.
	if sweep := strings.TrimSuffix(path, ".md") + ".json"; strings.HasSuffix(path, "-sweep.md") && ownJSON(sweep) == kindSweep {
		return kindSweepMarkdown
	}
	head, err := readHead(path, 4096)
	if err != nil {
		return notOurs
	}
	switch {
	case bytes.HasPrefix(head, []byte(MarkdownMarker)):
		return kindMarkdown
	case bytes.Contains(head, []byte(HTMLMarker)):
		return kindHTML
	case bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")):
		return ownJSON(path)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}) && profile(head):
		return kindProfile
	}
	return notOurs
}

// profile reports whether head begins a Go CPU profile as --cpuprofile
// writes it: gzip, then a protocol buffer whose first byte is the key of
// one of the pprof Profile message's fields (1 to 14), a varint or a
// length-delimited one.
func profile(head []byte) bool {
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return false
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(zr, b); err != nil {
		return false
	}
	field, wire := b[0]>>3, b[0]&7
	return field >= 1 && field <= 14 && (wire == 0 || wire == 2)
}

// ownJSON tells whether path holds a result (or checkpoint), a sweep file
// or a plan of rightsize's, told apart by their fields as report tells
// them (notOurs when none).
func ownJSON(path string) kind {
	b, err := ReadFile(path)
	if err != nil {
		return notOurs
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) != nil {
		return notOurs
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	switch {
	case has("schema_version") && has("axis") && has("steps"):
		var sw result.Sweep
		if json.Unmarshal(b, &sw) == nil && sw.SchemaVersion >= 1 {
			return kindSweep
		}
	case has("schema_version") && has("summary"):
		if _, err := result.Decode(bytes.NewReader(b)); err == nil {
			return kindResult
		}
	case has("host") && has("ht_gain_pct"):
		return kindPlan
	}
	return notOurs
}

// readHead reads up to n bytes from the start of the file at path.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:k], nil
}

// CheckOutputs checks each of paths as CheckOutput does.
func CheckOutputs(cmd, flag string, paths []string, out Output, force bool, inputs []string) error {
	for _, p := range paths {
		if err := CheckOutput(cmd, flag, p, out, force, inputs); err != nil {
			return err
		}
	}
	return nil
}

// WriteOutput writes b to path as results are written (WriteFile:
// a temporary file beside it, renamed into place, so that a full disk
// leaves the old file whole); a device or a pipe (/dev/null, /dev/stdout)
// is written to in place (WriteFile does it), and a symlink's
// target is replaced, not the link.
func WriteOutput(path string, b []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: the folder %s: %w", path, filepath.Dir(path), errors.Unwrap(err)) // none is made for it
	}
	return WriteFile(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// AbsPath is p made absolute, as the history records a result file's path
// ("" for none or "-"; p as it is when it cannot be).
func AbsPath(p string) string {
	if p == "" || p == "-" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
