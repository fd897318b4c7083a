package shellword_test

import (
	"fmt"

	"github.com/rightsize/rightsize/internal/shellword"
)

// Plain words stay as typed; one with a shell character is single-quoted;
// one with a character a terminal acts on is written $'...' with \xHH.
// (Pasting such lines into sh and bash is tested in package cli,
// TestShellJoinPastes and TestShellJoinControlCharacters.)
func ExampleJoin() {
	fmt.Println(shellword.Join([]string{"mkdir", "-p", "/tmp/a b;$(id)", "it's", "red\x1b[31m", ""}))
	// Output: mkdir -p '/tmp/a b;$(id)' 'it'\''s' $'red\x1b[31m' ''
}
