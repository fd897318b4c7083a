package study

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/lineprob"
	"github.com/rightsize/rightsize/internal/session"
	"github.com/rightsize/rightsize/internal/workload"
)

// maxFile bounds a study file (a study is a page, not a data set).
const maxFile = 1 << 20

// ReadFile reads and validates the study file at path (Parse), at most
// maxFile bytes of it: a device, a named pipe or anything else that is not
// a regular file is refused unopened, a larger file unread (wrapping
// ErrInvalid and workload.ErrNotAFile).
func ReadFile(path string) (*Study, error) {
	data, err := workload.ReadUserFile(path, maxFile)
	if errors.Is(err, workload.ErrNotAFile) {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), path)
}

// Parse reads and validates a study file; name is how errors call it (its
// path, or the protocol's name), and the study's File is its absolute
// path. Every problem is returned at once as an *Error, with the lines
// yaml gives.
func Parse(r io.Reader, name string) (*Study, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &parser{}
	root, stop := lineprob.Doc{Max: maxFile,
		TooLarge: "a study file lists steps, not data",
		Empty:    "a study needs a name and steps",
		Second:   "a study file is one document (one study per file)"}.Read(b)
	if stop != nil {
		p.problems = append(p.problems, *stop)
		return nil, p.err(name)
	}
	s := p.study(root)
	if err := p.err(name); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	s.File, s.Digest = session.AbsPath(name), hex.EncodeToString(sum[:])
	return s, nil
}

type parser struct{ problems []Problem }

func (p *parser) add(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) err(name string) error { return lineprob.Of(name, p.problems, ErrInvalid) }

// fields checks that n is a mapping of the known keys and returns its
// values by key, each key given once.
func (p *parser) fields(n *yaml.Node, what string, known ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, "%s: want a mapping (key: value lines), not %s", what, kindName(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !slices.Contains(known, k.Value):
			p.add(k.Line, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(known, ", "))
		case out[k.Value] != nil:
			p.add(k.Line, "%s: %s given twice", what, k.Value)
		default:
			out[k.Value] = v
		}
	}
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Value == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

// str is a scalar's text ("" and a problem when n is not a scalar).
func (p *parser) str(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.add(n.Line, "%s: want a single value, not %s", what, kindName(n))
		return ""
	}
	p.printable(n.Line, what, n.Value)
	return n.Value
}

// printable adds a problem when s, a value rightsize prints (a title, a
// step's workload, an option), holds a control character: an escape
// sequence would reach the terminal raw.
func (p *parser) printable(line int, what, s string) {
	if strings.ContainsFunc(s, unicode.IsControl) {
		p.add(line, "%s: %q: control characters (a newline, a tab, an escape sequence) are not allowed", what, s)
	}
}

// CheckID checks a study id (study run --study-id): it names the study's
// folder (results/<id>-<study>) and labels its steps in the history
// (<id>/<step>), so it is one plain word, as a study's and a step's names
// are.
func CheckID(id string) error {
	if !nameRE.MatchString(id) {
		msg := fmt.Sprintf("--study-id %q: want 1 to 64 letters, digits, '-' or '_', starting with a letter or digit (it names the study's folder and labels its steps)", id)
		return &Error{File: "study", Problems: []Problem{{Msg: msg}}, Kind: ErrInvalid}
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func (p *parser) study(root *yaml.Node) *Study {
	f := p.fields(root, "study", "study", "title", "follows", "options", "steps", "plan", "report")
	s := &Study{Name: p.str(f["study"], "study"), Title: p.str(f["title"], "title"), Follows: p.str(f["follows"], "follows")}
	switch {
	case f["study"] == nil:
		p.add(root.Line, "study: missing (the study's name)")
	case !nameRE.MatchString(s.Name):
		p.add(f["study"].Line, "study %q: want 1 to 64 letters, digits, '-' or '_'", s.Name)
	}
	common := p.options(f["options"], "options")
	s.Stages = p.steps(f["steps"], root.Line, common)
	if f["plan"] != nil {
		s.Sizing = p.plan(f["plan"], s)
		if st := s.StageByName("plan"); st != nil {
			p.add(st.Line, "step plan: a study with a plan writes plan.json, which would replace this step's plan.json: name the step otherwise")
		}
	}
	s.Report = p.report(f["report"], root.Line, s)
	return s
}

// reserved are the flags a study sets itself on every step.
var reserved = map[string]string{
	"target":     "give --target to 'rightsize study run'",
	"out":        "each step writes into the study's --dir",
	"label":      "the study labels its steps (<study id>/<step>) to find them in the history",
	"config":     "use the step's config key",
	"history":    "give --history to 'rightsize study run'",
	"no-history": "a study records its steps in the history to resume",
	"shard":      "a study runs on one generator",
	"run-id":     "a study runs on one generator",
	"start-at":   "a study runs on one generator",
	// Options that name a file to write: a study writes only into its --dir.
	"cpuprofile": "it names a file to write, and a study writes only into its --dir (profile a step with 'rightsize run ... --cpuprofile FILE')",
	"file":       "it names the file fileio writes: give --target to 'rightsize study run'",
}

var flagRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// options reads a mapping of flag names to values.
func (p *parser) options(n *yaml.Node, what string) []Option {
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, "%s: want a mapping of flag names to values, not %s", what, kindName(n))
		return nil
	}
	var out []Option
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := strings.TrimPrefix(k.Value, "--")
		switch {
		case !flagRE.MatchString(name):
			p.add(k.Line, "%s: %q is not a flag name (time, table-size, think-time: as on the command line)", what, k.Value)
			continue
		case reserved[name] != "":
			p.add(k.Line, "%s: %s is not a study option: %s", what, name, reserved[name])
			continue
		case seen[name]:
			p.add(k.Line, "%s: %s given twice", what, name)
			continue
		}
		seen[name] = true
		out = append(out, Option{Name: name, Line: k.Line, Value: p.value(v, what+"."+name, true)})
	}
	return out
}

// value reads a scalar or a list, or a mapping of them by scale.
func (p *parser) value(n *yaml.Node, what string, scalable bool) Value {
	v := Value{Line: n.Line, ByScale: map[string][]string{}}
	if n.Kind == yaml.MappingNode && scalable {
		f := p.fields(n, what+" (a value per scale)", Scales...)
		for _, sc := range Scales {
			if f[sc] == nil {
				p.add(n.Line, "%s: no %s value (a value per scale gives both small and full)", what, sc)
				continue
			}
			one := p.value(f[sc], what+"."+sc, false)
			v.ByScale[sc], v.List = one.ByScale[Small], v.List || one.List
		}
		return v
	}
	var items []string
	switch n.Kind {
	case yaml.ScalarNode:
		items = []string{n.Value}
	case yaml.SequenceNode:
		v.List = true
		for _, it := range n.Content {
			if it.Kind != yaml.ScalarNode {
				p.add(it.Line, "%s: a list of single values, not of %s", what, kindName(it))
				continue
			}
			items = append(items, it.Value)
		}
		if len(n.Content) == 0 {
			p.add(n.Line, "%s: an empty list", what)
		}
	default:
		p.add(n.Line, "%s: want a value, a list or {small: ..., full: ...}, not %s", what, kindName(n))
	}
	for _, it := range items {
		p.printable(n.Line, what, it)
		if v.List && strings.Contains(it, ",") {
			p.add(n.Line, "%s: %q: list items without commas", what, it)
		}
	}
	for _, sc := range Scales {
		v.ByScale[sc] = items
	}
	return v
}
