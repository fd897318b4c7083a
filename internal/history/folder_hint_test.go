package history

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMkdirHintPastes: the "mkdir -p DIR" a missing folder's error offers
// is quoted for a shell, so that a folder named with ';' or '$(...)' is made
// as it is when the hint is pasted, and nothing else runs.
func TestMkdirHintPastes(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "a b;touch x", "$(id)")
	err := Validate("sqlite:"+filepath.Join(missing, "h.db"), func(string) string { return "" })
	want := "(mkdir -p '" + missing + "')"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant it to hold %s", err, want)
	}
}

// TestMissingFolderMessagePrintable: a folder named with an escape sequence
// is written visibly in the message's prose, as in its mkdir -p.
func TestMissingFolderMessagePrintable(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "red\x1b[31m")
	err := Validate("sqlite:"+filepath.Join(missing, "h.db"), func(string) string { return "" })
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) || !strings.Contains(err.Error(), `red\x1b[31m`) {
		t.Errorf("got %q", err)
	}
}
