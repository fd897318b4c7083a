package errclass_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rightsize/rightsize/internal/errclass"
)

func TestMessagesCountsDistinctMessagesPerClass(t *testing.T) {
	var m errclass.Messages
	for i := 0; i < 5; i++ {
		m.Add(errclass.Other, errors.New("division by zero"))
	}
	m.Add(errclass.Constraint, errors.New("duplicate key"))
	for i := 0; i < 10; i++ { // ten distinct messages: only the first ones are kept
		m.Add(errclass.Other, fmt.Errorf("value %d out of range", i))
	}
	m.Add(errclass.None, errors.New("not an error"))
	m.Add(errclass.Other, nil)
	got := m.List()
	want := []errclass.Message{
		{Class: errclass.Other, Text: "division by zero", Count: 5},
		{Class: errclass.Constraint, Text: "duplicate key", Count: 1},
		{Class: errclass.Other, Text: "value 0 out of range", Count: 1},
		{Class: errclass.Other, Text: "value 1 out of range", Count: 1},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("List() = %v, want %v", got, want)
	}
}

func TestMessagesMergeAddsCounts(t *testing.T) {
	var a, b errclass.Messages
	a.Add(errclass.Other, errors.New("x"))
	b.Add(errclass.Other, errors.New("x"))
	b.Add(errclass.Other, errors.New("x"))
	b.Add(errclass.Timeout, errors.New("y"))
	a.Merge(&b)
	got := a.List()
	if len(got) != 2 || got[0].Count != 3 || got[1].Class != errclass.Timeout {
		t.Fatalf("merged = %v", got)
	}
	a.Reset()
	if a.List() != nil {
		t.Fatalf("after Reset: %v", a.List())
	}
}

func TestMessagesClipLongMessagesOnARune(t *testing.T) {
	var m errclass.Messages
	m.Add(errclass.Other, errors.New(strings.Repeat("é", 400)))
	txt := m.List()[0].Text
	if len(txt) > errclass.MaxMessageLen+len("…") || !utf8.ValidString(txt) || !strings.HasSuffix(txt, "…") {
		t.Fatalf("clipped to %d bytes, valid %v: %q", len(txt), utf8.ValidString(txt), txt)
	}
}
