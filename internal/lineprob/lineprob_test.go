package lineprob

import (
	"errors"
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
