package study

import (
	"bytes"
	"embed"
	"path"
	"slices"
	"strings"
)

//go:embed protocols/*.yaml
var protocols embed.FS

// Builtins are the names of the built-in protocols, sorted.
func Builtins() []string {
	ents, _ := protocols.ReadDir("protocols")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(out)
	return out
}

// Builtin returns a built-in protocol's file (false: no protocol of that
// name).
func Builtin(name string) ([]byte, bool) {
	if !slices.Contains(Builtins(), name) {
		return nil, false
	}
	b, err := protocols.ReadFile(path.Join("protocols", name+".yaml"))
	return b, err == nil
}

// ParseBuiltin parses a built-in protocol (false: none of that name).
func ParseBuiltin(name string) (*Study, bool, error) {
	b, ok := Builtin(name)
	if !ok {
		return nil, false, nil
	}
	s, err := Parse(bytes.NewReader(b), name)
	if err == nil {
		s.File = "builtin:" + name
	}
	return s, true, err
}
