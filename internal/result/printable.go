package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is s with each character a terminal would act on or not show
// written visibly instead: a control character (an escape, a bell, a tab, a
// newline: every text of a result is one line) as \xHH, one above U+007F (a
// C1 control, a format character such as U+202E that turns text right to
// left, a separator other than the space) as \uHHHH. A result file can come
// from anywhere, and its label, config, notes and such are printed by
// reports and the history as they are; decoding a run or a sweep passes
// every string through Printable, so that none reaches a terminal raw.
func Printable(s string) string {
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unprintable(r):
			b.WriteRune(r)
		case r < utf8.RuneSelf:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// unprintable reports whether r is written escaped by Printable.
func unprintable(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }

// printableJSON is data, a JSON document, with every string in it (keys
// too) made Printable. A document with no backslash and no byte above
// ASCII holds no such character (JSON has no raw control characters in its
// strings) and is returned as it is, as is one that does not parse (its
// decoding will say why).
func printableJSON(data []byte) []byte {
	if !bytes.ContainsFunc(data, func(r rune) bool { return r == '\\' || r >= utf8.RuneSelf }) {
		return data
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers come back as they were written
	var v any
	if err := dec.Decode(&v); err != nil {
		return data
	}
	out, err := json.Marshal(printableValue(v))
	if err != nil {
		return data
	}
	return out
}

// printableValue is v, decoded JSON, with its strings made Printable.
func printableValue(v any) any {
	switch v := v.(type) {
	case string:
		return Printable(v)
	case []any:
		for i := range v {
			v[i] = printableValue(v[i])
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[Printable(k)] = printableValue(x)
		}
		return out
	}
	return v
}
