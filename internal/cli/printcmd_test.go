package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/rightsize/rightsize/internal/shellword"
)

// shellWords runs line's words through a shell (printf '%s\0' WORDS) and
// returns the arguments the shell made of them.
func shellWords(t *testing.T, shell, line string) []string {
	t.Helper()
	cmd := exec.Command(shell, "-c", `printf '%s\0' `+line)
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -c %q: %v\n%s", shell, line, err, errb.String())
	}
	words := strings.Split(out.String(), "\x00")
	return words[:len(words)-1]
}

// TestShellJoinPastes: every argument printed by shellword.Join comes back
// as it was when the line is pasted into a POSIX shell (dash: what /bin/sh
// is here), whatever shell characters it holds, and nothing else runs.
func TestShellJoinPastes(t *testing.T) {
	pwned := filepath.Join(t.TempDir(), "pwned")
	args := []string{
		"run", "--config=x'; touch " + pwned + "; echo '", "x'; touch " + pwned + "; echo '",
		"it's", "'", "''", `\'`, "", " ", "a b", "a\tb", "`touch " + pwned + "`", "$(touch " + pwned + ")", "${HOME}", "$HOME",
		"#comment", "a#b", "~", "~/x", "x~", "(a)", "{a,b}", "[ab]", "*", "?", "!x", "a=b", "=", "--x=a;b", "a|b", "a&b", "a>b", "<a",
		`"q"`, `a\b`, "%s", "é", "--rate=1x,2x", "sqlite:/tmp/x.db", "-", "--",
	}
	line := shellword.Join(args)
	if got := shellWords(t, "sh", line); strings.Join(got, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("sh made of %s:\n%q\nwant\n%q", line, got, args)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("pasting %s ran a command", line)
	}
	// Plain words stay plain, as typed.
	if got := shellword.Join([]string{"sweep", "--rate=1x,2x", "--out=/tmp/a-b_c.json", "--target=sqlite:x.db", "--label=s1/rate", "a@b", "50%"}); got != "sweep --rate=1x,2x --out=/tmp/a-b_c.json --target=sqlite:x.db --label=s1/rate a@b 50%" {
		t.Errorf("plain words quoted: %s", got)
	}
}

// TestShellJoinControlCharacters: an argument with a control character (a
// newline, an escape sequence) never reaches the terminal raw: it is
// written $'...' with each such byte as \xHH, which bash, zsh and ksh read
// back as it was.
func TestShellJoinControlCharacters(t *testing.T) {
	args := []string{"a\nb", "a\tb\x1b", "\x1b]0;title\x07", "\x1b[31mred", "x'y\rz", "\x7f", "\u009b1m", "\u202eevil", "a\\b\x01"}
	line := shellword.Join(args)
	if strings.ContainsFunc(line, func(r rune) bool { return unicode.IsControl(r) && r != '\t' || unicode.Is(unicode.Cf, r) }) {
		t.Errorf("control characters printed raw: %q", line)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to read $'...'")
	}
	if got := shellWords(t, "bash", line); strings.Join(got, "\x00") != strings.Join(args, "\x00") {
		t.Errorf("bash made of %s:\n%q\nwant\n%q", line, got, args)
	}
}

// TestStudyPrintsNoPassword: study run prints each step's command with the
// passwords of --target and --history removed, as results show them, in
// every form a location takes (URL user info, a password= parameter); an
// env:VAR is printed as it is.
func TestStudyPrintsNoPassword(t *testing.T) {
	dir := t.TempDir()
	o := runWithEnv(t, context.Background(), map[string]string{"RS_T": "postgres://u:ENVSECRET@host3/db"},
		"study", "run", "vm-rate", "--dry-run", "--dir", dir,
		"--target", "postgres://u:SECRET1@host/db", "--target", "postgres://u@host2/db?password=SECRET2&sslmode=disable",
		"--target", "env:RS_T", "--history", "postgres://h:HSECRET@127.0.0.1:1/x?sslmode=disable")
	if o.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	for _, secret := range []string{"SECRET1", "SECRET2", "ENVSECRET", "HSECRET"} {
		if strings.Contains(o.stdout+o.stderr, secret) {
			t.Errorf("%s printed:\n%s", secret, o.stdout)
		}
	}
	for _, want := range []string{"--target=postgres://u@host/db", "'--target=postgres://u@host2/db?sslmode=disable'", "--target=env:RS_T", "'--history=postgres://h@127.0.0.1:1/x?sslmode=disable'"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("no %s in\n%s", want, o.stdout)
		}
	}
}

// TestLabelRefusesControlCharacters: --label, printed by reports, the
// history and a study, is one line without control characters, as --config
// is (exit 2, the value quoted, never raw).
func TestLabelRefusesControlCharacters(t *testing.T) {
	for _, label := range []string{"\x1b[2J\x1b[31mred", "two\nlines", "bell\a"} {
		o := run(t, context.Background(), "run", "noop", "--time", "1s", "--label", label, "--out", "-", "--no-history")
		if o.code != ExitUsage || !strings.Contains(o.stderr, "--label") || strings.ContainsAny(o.stderr, "\x1b\a") {
			t.Errorf("--label %q: exit %d\n%s", label, o.code, o.stderr)
		}
	}
}
