package sqltext

import "testing"

func TestQuoted(t *testing.T) {
	for _, c := range []struct {
		q         string
		backslash bool
		end       int
		closed    bool
	}{
		{`'abc' x`, false, 5, true},
		{`'it''s' x`, false, 7, true},
		{`'a\'b' x`, true, 6, true},
		{`'a\'b' x`, false, 4, true},
		{`'open`, false, 5, false},
	} {
		if end, closed := Quoted(c.q, 0, c.q[0], c.backslash); end != c.end || closed != c.closed {
			t.Errorf("Quoted(%q, backslash %v) = %d, %v; want %d, %v", c.q, c.backslash, end, closed, c.end, c.closed)
		}
	}
}

func TestBlockComment(t *testing.T) {
	q := "/* a /* b */ c */ x"
	if end, closed := BlockComment(q, 0, true); end != 17 || !closed {
		t.Errorf("nested: %d %v", end, closed)
	}
	if end, closed := BlockComment(q, 0, false); end != 12 || !closed {
		t.Errorf("not nested: %d %v", end, closed)
	}
	if end, closed := BlockComment("/* open", 0, true); end != 7 || closed {
		t.Errorf("open: %d %v", end, closed)
	}
}

func TestDollarQuoted(t *testing.T) {
	for _, c := range []struct {
		q   string
		end int
		ok  bool
	}{
		{"$$a$b$$ x", 7, true},
		{"$tag$ $$ $tag$ x", 14, true},
		{"$1 + 2", 0, false},
		{"$t1$x$t1$", 9, true},
		{"$$open", 6, true},
		{"$", 0, false},
	} {
		if end, ok := DollarQuoted(c.q, 0); end != c.end || ok != c.ok {
			t.Errorf("DollarQuoted(%q) = %d, %v; want %d, %v", c.q, end, ok, c.end, c.ok)
		}
	}
}
