package cli

// What a command may write over. A command that writes a file (run and
// sweep --out and --cpuprofile, report -o, merge -o) never replaces:
//
//   - one of its own inputs (the same file by any name: a symlink, a hard
//     link, another spelling of the path): refused, whatever --force says;
//   - a file rightsize did not write, unless --force. rightsize wrote a file
//     when it is empty, or is a result (a checkpoint too), a sweep file or a
//     plan (rightsize plan --format json) that decodes as ours, an HTML
//     report (its <meta name="generator" content="rightsize ..."> tag), a
//     Markdown report written by report -o (its first line is
//     markdownMarker) or a Go CPU profile (--cpuprofile's); a sweep's
//     Markdown report is ours when the sweep file beside it is. CSV and
//     text reports carry no mark: replacing one needs --force.
//
// Both refusals are usage errors (exit 2), made before anything runs.

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
	"strings"

	"github.com/rightsize/rightsize/internal/result"
	"github.com/rightsize/rightsize/internal/session"
)

// markdownMarker is the first line of a Markdown report report -o writes,
// which tells a later report -o that it may replace the file (an HTML
// comment: Markdown renders nothing of it).
const markdownMarker = "<!-- generator: rightsize -->\n"

// htmlMarker is in the head of every HTML page rightsize writes.
const htmlMarker = `<meta name="generator" content="rightsize`

// checkOutput refuses (exit 2) to let the command cmd write its flag's file
// path over one of inputs (paths it read), or over an existing file
// rightsize did not write unless force. A path that does not exist is
// fine; one that is not a regular file (a directory) is refused, except a
// device or a pipe (/dev/null, /dev/stdout), which is written to as it is.
func checkOutput(cmd, flag, path string, force bool, inputs []string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usagef("%s: %s %s: %w", cmd, flag, path, err)
	case st.IsDir():
		return usagef("%s: %s %s is a directory: name a file", cmd, flag, path)
	case !st.Mode().IsRegular():
		return nil
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			if in == path {
				return usagef("%s: %s %s is also an input of this command: it would be replaced by the output; write elsewhere", cmd, flag, path)
			}
			return usagef("%s: %s %s is the input %s (the same file): it would be replaced by the output; write elsewhere", cmd, flag, path, in)
		}
	}
	if force || st.Size() == 0 || ours(path) {
		return nil
	}
	return usagef("%s: %s %s exists and was not written by rightsize (not a result, sweep, plan or report of its own): --force replaces it", cmd, flag, path)
}

// ours reports whether rightsize wrote the file at path (see the top of
// this file).
func ours(path string) bool {
	// A sweep's Markdown report goes with the sweep file beside it.
	if sweep := strings.TrimSuffix(path, ".md") + ".json"; strings.HasSuffix(path, "-sweep.md") && ownJSON(sweep) {
		return true
	}
	head, err := readHead(path, 4096)
	if err != nil {
		return false
	}
	switch {
	case bytes.HasPrefix(head, []byte(markdownMarker)):
		return true
	case bytes.Contains(head, []byte(htmlMarker)):
		return true
	case bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")):
		return ownJSON(path)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return profile(head)
	}
	return false
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

// ownJSON reports whether path holds a result (or checkpoint), a sweep
// file or a plan of rightsize's, told apart by their fields as report
// tells them.
func ownJSON(path string) bool {
	b, err := session.ReadFile(path)
	if err != nil {
		return false
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal(b, &keys) != nil {
		return false
	}
	has := func(k string) bool { _, ok := keys[k]; return ok }
	switch {
	case has("schema_version") && has("axis") && has("steps"):
		var sw result.Sweep
		return json.Unmarshal(b, &sw) == nil && sw.SchemaVersion >= 1
	case has("schema_version") && has("summary"):
		_, err := result.Decode(bytes.NewReader(b))
		return err == nil
	}
	return has("host") && has("ht_gain_pct")
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

// checkOutputs checks each of paths as checkOutput does.
func checkOutputs(cmd, flag string, paths []string, force bool, inputs []string) error {
	for _, p := range paths {
		if err := checkOutput(cmd, flag, p, force, inputs); err != nil {
			return err
		}
	}
	return nil
}

// writeOutput writes b to path as results are written (session.WriteFile:
// a temporary file beside it, renamed into place, so that a full disk
// leaves the old file whole); a device or a pipe (/dev/null, /dev/stdout)
// is written to in place (session.WriteFile does it), and a symlink's
// target is replaced, not the link.
func writeOutput(path string, b []byte) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("%s: the folder %s: %w", path, filepath.Dir(path), errors.Unwrap(err)) // none is made for it
	}
	return session.WriteFile(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}
