package workfile

import (
	"fmt"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/lineprob"
	"github.com/rightsize/rightsize/internal/sqltext"
)

// MaxFile bounds a workload file: it describes tables and statements, it
// does not hold data.
const MaxFile = 1 << 20

// Parse reads and checks a workload file; name is how problems call it
// (its path). It returns every problem at once, in line order, as an
// *Error wrapping ErrInvalid; the Spec's Warnings hold what does not stop
// it.
func Parse(name string, data []byte) (*Spec, error) {
	p := &parser{}
	root, stop := lineprob.Doc{Max: MaxFile,
		TooLarge: "a workload file describes tables and statements, not data",
		Empty:    "a workload file needs a name, tables and transactions",
		Second:   "a workload file is one document"}.Read(data)
	if stop != nil {
		p.problems = append(p.problems, *stop)
		return nil, p.err(name)
	}
	p.aliases(root)
	s := p.spec(root)
	s.File = name
	for i := range s.Transactions {
		s.Transactions[i].Source = name // a step's run-time error names the file
	}
	if err := p.err(name); err != nil {
		return nil, err
	}
	slices.SortStableFunc(p.warnings, func(a, b Problem) int { return a.Line - b.Line })
	s.Warnings = p.warnings
	return s, nil
}

type parser struct {
	problems, warnings []Problem
	keys               map[*yaml.Node]*yaml.Node // a mapping's value -> its key
	dialects           []string                  // the file's, once read
	vars               *pgbenchscript.Program    // the variables of set and if, made at the first
}

// keyLine is the line of the key v is the value of (v's own line for a
// list's item).
func (p *parser) keyLine(v *yaml.Node) int {
	if k, ok := p.keys[v]; ok {
		return k.Line
	}
	return v.Line
}

func (p *parser) add(line int, format string, args ...any) {
	p.problems = append(p.problems, Problem{Line: line, Msg: printable(fmt.Sprintf(format, args...))})
}

func (p *parser) warn(line int, format string, args ...any) {
	p.warnings = append(p.warnings, Problem{Line: line, Msg: printable(fmt.Sprintf(format, args...))})
}

// printable escapes the control characters a message may hold when it
// quotes the file (a name with a newline, an escape sequence): a problem
// is one line, and nothing of the file reaches a terminal raw.
func printable(msg string) string {
	if !strings.ContainsFunc(msg, unicode.IsControl) {
		return msg
	}
	var b strings.Builder
	for _, r := range msg {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (p *parser) err(name string) error { return lineprob.Of(name, p.problems, ErrInvalid) }

// aliases reports every alias: a file is read as it is written, and an
// alias repeated in a list could multiply what it stands for.
func (p *parser) aliases(n *yaml.Node) {
	if n.Kind == yaml.AliasNode {
		p.add(n.Line, "alias *%s: anchors and aliases are not supported (write the value out)", n.Value)
		return
	}
	for _, c := range n.Content {
		p.aliases(c)
	}
}

// fields checks that n is a mapping of the known keys and returns its
// values by key, each key given once. Aliases are left out (reported once
// by aliases).
func (p *parser) fields(n *yaml.Node, what string, known ...string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	if n == nil || n.Kind == yaml.AliasNode {
		return out
	}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, "%s: want a mapping (key: value lines), not %s", what, kindName(n))
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
			p.add(k.Line, "%s: a key must be a word, not %s", what, kindName(k))
		case !slices.Contains(known, k.Value):
			p.add(k.Line, "%s: unknown key %q (known: %s)", what, k.Value, strings.Join(known, ", "))
		case out[k.Value] != nil:
			p.add(k.Line, "%s: %s given twice", what, k.Value)
		case v.Kind == yaml.AliasNode:
			// reported by aliases
		default:
			out[k.Value] = v
			p.remember(k, v)
		}
	}
	return out
}

func (p *parser) remember(k, v *yaml.Node) {
	if p.keys == nil {
		p.keys = map[*yaml.Node]*yaml.Node{}
	}
	p.keys[v] = k
}

// pairs returns the key/value pairs of a mapping whose keys are names
// (params:), each name once.
func (p *parser) pairs(n *yaml.Node, what string) [][2]*yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.add(n.Line, "%s: want a mapping of names, not %s", what, kindName(n))
		return nil
	}
	var out [][2]*yaml.Node
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || v.Kind == yaml.AliasNode {
			if k.Kind != yaml.ScalarNode {
				p.add(k.Line, "%s: a name must be a word, not %s", what, kindName(k))
			}
			continue
		}
		if line, ok := seen[k.Value]; ok {
			p.add(k.Line, "%s: %s declared twice (first at line %d)", what, k.Value, line)
			continue
		}
		seen[k.Value] = k.Line
		p.remember(k, v)
		out = append(out, [2]*yaml.Node{k, v})
	}
	return out
}

// Bounds on what one file declares: a workload, not a schema dump; they
// also keep every check linear enough for any file Parse accepts.
const (
	maxTables       = 1000
	maxColumns      = 1000 // per table (PostgreSQL allows 1,600)
	maxIndexes      = 100  // per table
	maxParams       = 10_000
	maxTransactions = 1000
	maxStatements   = 1000 // per transaction
	maxChoices      = 10_000
)

// listMax is list with at most max items: more is a problem, and the
// rest is not read.
func (p *parser) listMax(n *yaml.Node, what string, max int) []*yaml.Node {
	items := p.list(n, what)
	if len(items) > max {
		p.add(items[max].Line, "%s: more than %d", what, max)
		items = items[:max]
	}
	return items
}

// list returns the items of a sequence (aliases left out).
func (p *parser) list(n *yaml.Node, what string) []*yaml.Node {
	if n == nil || isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.add(n.Line, "%s: want a list (- item lines), not %s", what, kindName(n))
		return nil
	}
	var out []*yaml.Node
	for _, c := range n.Content {
		if c.Kind != yaml.AliasNode {
			out = append(out, c)
		}
	}
	return out
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	if isNull(n) {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

// scalar returns n's text, or false (with a problem) when it is not one
// value.
func (p *parser) scalar(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		p.add(n.Line, "%s: want a value, not %s", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

// text returns a printable one-line scalar (a name, a description).
func (p *parser) text(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	s, ok := p.scalar(n, what)
	if ok && strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) && r != '\n' }) {
		p.add(n.Line, "%s: control characters (a tab, an escape sequence) are not allowed", what)
	}
	return s
}

// nameRE is a name of a table, column, index, parameter or transaction:
// it is written into SQL and referred to as :name.
var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// name returns a checked name.
func (p *parser) name(n *yaml.Node, what string) string {
	s, ok := p.scalar(n, what)
	if ok && !nameRE.MatchString(s) {
		p.add(n.Line, "%s %q: want a letter or _ then letters, digits or _ (at most 63)", what, s)
	}
	return s
}

// sqlName reads the name of a column or an index rightsize creates: a
// name, and no reserved word.
func (p *parser) sqlName(n *yaml.Node, what string) string {
	s := p.name(n, what)
	if sqltext.Reserved(s) {
		p.add(n.Line, "%s %q: a reserved word of SQL, which rightsize's own statements would use unquoted: choose another name", what, s)
	}
	return s
}

func (p *parser) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	s, ok := p.scalar(n, what)
	if !ok {
		return false
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	p.add(n.Line, "%s: want true or false, not %q", what, s)
	return false
}

// integer parses an integer ("_" may group digits: 1_000_000).
func (p *parser) integer(n *yaml.Node, what string) (int64, bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") {
		p.add(n.Line, "%s: want an integer, not %q", what, s)
		return 0, false
	}
	return v, true
}

func (p *parser) number(n *yaml.Node, what string) (float64, bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v > 1e308 || v < -1e308 {
		p.add(n.Line, "%s: want a number, not %q", what, s)
		return 0, false
	}
	return v, true
}

// decimalRE is a decimal as the file writes it: no exponent, no grouping.
var decimalRE = regexp.MustCompile(`^([+-]?)([0-9]+)(?:\.([0-9]+))?$`)

// decimal parses a decimal into units of 10^-scale and its number of
// decimals.
func (p *parser) decimal(n *yaml.Node, what string) (units int64, scale int, ok bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return 0, 0, false
	}
	m := decimalRE.FindStringSubmatch(s)
	if m == nil || len(m[3]) > maxScale {
		p.add(n.Line, "%s: want a decimal number such as 12.50 (at most %d decimals), not %q", what, maxScale, s)
		return 0, 0, false
	}
	v, err := strconv.ParseInt(m[2]+m[3], 10, 64)
	if err != nil {
		p.add(n.Line, "%s: %q is too large", what, s)
		return 0, 0, false
	}
	if m[1] == "-" {
		v = -v
	}
	return v, len(m[3]), true
}

// maxScale is the most decimals a decimal parameter has.
const maxScale = 9

// dayRE is a number of days ("30d"), which Go's durations lack.
var dayRE = regexp.MustCompile(`^([+-]?)([0-9]+)d$`)

// duration parses a duration: Go's form (1.5s, 2m, -720h), a number of
// days (30d) or 0.
func (p *parser) duration(n *yaml.Node, what string) (time.Duration, bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return 0, false
	}
	if m := dayRE.FindStringSubmatch(s); m != nil {
		d, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil || d > 100_000 {
			p.add(n.Line, "%s: %q is too long", what, s)
			return 0, false
		}
		if m[1] == "-" {
			d = -d
		}
		return time.Duration(d) * 24 * time.Hour, true
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		p.add(n.Line, "%s: want a duration such as 500ms, 2s, 5m, 720h or 30d, not %q", what, s)
		return 0, false
	}
	return d, true
}
