package shellword

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Join joins arguments into a line a POSIX shell splits back into
// them (Quote each).
func Join(args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = Quote(a)
	}
	return strings.Join(words, " ")
}

// Quote is a as one shell word: as it is when it holds only
// characters a shell takes literally anywhere in a word; else in single
// quotes, each single quote in it closed, escaped and reopened (the four
// characters quote, backslash, quote, quote). An argument with a character a
// terminal would act on or not show (a newline, an escape sequence, a
// right-to-left override) is written $'...' instead, each such byte as
// \xHH, so that none reaches the terminal raw (bash, zsh, ksh and
// POSIX.1-2024 shells read $'...'; the study refuses such characters in
// what it prints, this only keeps a path typed with one from the screen).
func Quote(a string) string {
	switch {
	case a != "" && !strings.ContainsFunc(a, notPlain):
		return a
	case !hasUnprintable(a):
		return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(a); {
		r, n := utf8.DecodeRuneInString(a[i:])
		switch {
		case (r == utf8.RuneError && n == 1) || unprintable(r):
			for _, c := range []byte(a[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(a[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// notPlain reports whether r needs quoting in a shell word: anything but
// ASCII letters, digits and @%+=:,./_- (a '~' expands, '#' starts a
// comment, '!' recalls history, brackets and braces glob or expand).
func notPlain(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
}

// hasUnprintable reports whether s holds a byte that is not valid UTF-8 or
// an unprintable character.
func hasUnprintable(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, unprintable)
}

// unprintable reports whether a terminal would act on r or not show it: a
// control character but the tab, a format character (U+202E turns the
// text right to left), a separator other than the space.
func unprintable(r rune) bool {
	return !unicode.IsPrint(r) && r != ' ' && r != '\t'
}
