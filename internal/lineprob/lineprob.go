// Package lineprob is the problems of a file a user wrote (a study file, a
// workload file), each at its line, and the one form they are reported in:
// every problem at once, "file:line: message" a line each, in line order.
// It is pure: the readers of such files (internal/study, internal/workfile)
// collect problems into it.
package lineprob

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Problem is one thing wrong with a file, at a line of it (0: the file as
// a whole, or no line known).
type Problem struct {
	Line int
	Msg  string
}

// Format is the problem as reported: "file:line: message".
func (p Problem) Format(file string) string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p.Msg)
	}
	return file + ": " + p.Msg
}

// Error is every problem of a file at once, in line order. It wraps Kind,
// the reading package's sentinel (study.ErrInvalid, workfile.ErrInvalid).
type Error struct {
	File     string
	Problems []Problem
	Kind     error
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Format(e.File))
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Kind }

// Of returns the Error of file's problems, sorted by line (those of one
// line in the order they were found), wrapping kind; nil when there are
// none.
func Of(file string, problems []Problem, kind error) error {
	if len(problems) == 0 {
		return nil
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return a.Line - b.Line })
	return &Error{File: file, Problems: problems, Kind: kind}
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// YAMLLine is the first line an error of the yaml package names (0: none).
func YAMLLine(err error) int {
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// YAMLMsg is a yaml error without its "yaml: " prefix and line, which the
// problem carries.
func YAMLMsg(err error) string {
	m := strings.TrimPrefix(err.Error(), "yaml: ")
	m = lineRE.ReplaceAllString(m, "")
	m = strings.TrimPrefix(strings.TrimSpace(m), ": ")
	return strings.Join(strings.Fields(m), " ")
}

// Doc says how a kind of file is read as one YAML document, and what its
// refusals say of it.
type Doc struct {
	Max      int    // the most bytes the file may have
	TooLarge string // after "larger than N bytes: "
	Empty    string // after "empty: "
	Second   string // after "a second YAML document (---): "
}

// Read decodes data as one YAML document and returns its root node, or the
// problem that stops the file (too large, empty, not YAML, a second
// document), at its line where the decoder names one.
func (d Doc) Read(data []byte) (*yaml.Node, *Problem) {
	if len(data) > d.Max {
		return nil, &Problem{Msg: fmt.Sprintf("larger than %d bytes: %s", d.Max, d.TooLarge)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return nil, &Problem{Msg: "empty: " + d.Empty}
	case err != nil:
		return nil, &Problem{Line: YAMLLine(err), Msg: "not YAML: " + YAMLMsg(err)}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, &Problem{Msg: "empty: " + d.Empty}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		line := next.Line
		if err != nil {
			line = YAMLLine(err)
		}
		return nil, &Problem{Line: line, Msg: "a second YAML document (---): " + d.Second}
	}
	return doc.Content[0], nil
}
