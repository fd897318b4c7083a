package lineprob

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestOf(t *testing.T) {
	kind := errors.New("invalid")
	if Of("f", nil, kind) != nil {
		t.Error("no problems made an error")
	}
	err := Of("f.yaml", []Problem{{Line: 9, Msg: "b"}, {Msg: "whole"}, {Line: 2, Msg: "a"}, {Line: 9, Msg: "c"}}, kind)
	if want := "f.yaml: whole\nf.yaml:2: a\nf.yaml:9: b\nf.yaml:9: c"; err.Error() != want {
		t.Errorf("%q, want %q", err, want)
	}
	var e *Error
	if !errors.Is(err, kind) || !errors.As(err, &e) || len(e.Problems) != 4 {
		t.Errorf("%v does not wrap its kind or is no *Error", err)
	}
}

func TestYAML(t *testing.T) {
	var v any
	err := yaml.Unmarshal([]byte("a: 1\nb: [\n"), &v)
	if err == nil {
		t.Fatal("no yaml error")
	}
	if YAMLLine(err) == 0 || YAMLMsg(err) == "" || YAMLMsg(err) == err.Error() {
		t.Errorf("line %d, message %q of %q", YAMLLine(err), YAMLMsg(err), err)
	}
}

func TestDocRead(t *testing.T) {
	d := Doc{Max: 40, TooLarge: "big", Empty: "none", Second: "one"}
	for in, want := range map[string]Problem{
		"":                      {Msg: "empty: none"},
		"# only a comment\n":    {Msg: "empty: none"},
		"a: 1\nb: [\n":          {Line: 2, Msg: "not YAML:"},
		"a: 1\n---\nb: 2\n":     {Line: 2, Msg: "a second YAML document (---): one"},
		strings.Repeat("x", 41): {Msg: "larger than 40 bytes: big"},
	} {
		root, p := d.Read([]byte(in))
		if p == nil || root != nil || p.Line != want.Line || !strings.HasPrefix(p.Msg, want.Msg) {
			t.Errorf("%q: %+v, want %+v", in, p, want)
		}
	}
	if root, p := d.Read([]byte("a: 1\n")); p != nil || root == nil || root.Kind != yaml.MappingNode {
		t.Errorf("one document: %v, %+v", root, p)
	}
}
