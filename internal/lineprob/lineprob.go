// Package lineprob is the problems of a file a user wrote (a study file, a
// workload file), each at its line, and the one form they are reported in:
// every problem at once, "file:line: message" a line each, in line order.
// It is pure: the readers of such files (internal/study, internal/workfile)
// collect problems into it.
package lineprob

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
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
