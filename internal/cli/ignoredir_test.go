package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/workload/dbtarget"
)

// The folders a clone's README commands write into (quickstart's --dir, the
// default embedded database's, results/) and the built binary are ignored
// by the repository's .gitignore: following the README leaves no untracked
// files.
func TestREADMEOutputsAreGitIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not in a git work tree")
	}
	qs := quickstartCommand(context.Background(), &Env{}).Flags().Lookup("dir").DefValue
	db := filepath.Dir(strings.TrimPrefix(dbtarget.DefaultSQLite("sbtest", 0), "sqlite:"))
	for _, p := range []string{
		filepath.Join(qs, "sbtest.db"),
		filepath.Join(db, "sbtest.db"),
		filepath.Join("results", "x-oltp_read_write.json"),
		"rightsize",   // go build -o rightsize ./cmd/rightsize
		"report.html", // the README's report, comparison and merge examples
		"cmp.html",
		"merged.json",
	} {
		cmd := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", p)
		if err := cmd.Run(); err != nil {
			t.Errorf("%s is not ignored by %s/.gitignore (git check-ignore: %v)", p, root, err)
		}
	}
}

// A folder makeIgnoredDir creates ignores itself; one that existed is left
// untouched.
func TestMakeIgnoredDir(t *testing.T) {
	base := t.TempDir()
	fresh := filepath.Join(base, "a", "quick")
	if err := makeIgnoredDir(fresh); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(fresh, ".gitignore"))
	if err != nil || !strings.HasSuffix(string(b), "\n*\n") {
		t.Errorf("new folder's .gitignore = %q, %v; want one ignoring everything", b, err)
	}
	if err := makeIgnoredDir(base); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(base, ".gitignore")); !os.IsNotExist(err) {
		t.Errorf("an existing folder got a .gitignore (stat: %v)", err)
	}
	file := filepath.Join(base, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := makeIgnoredDir(file); err == nil {
		t.Errorf("makeIgnoredDir on a file: no error")
	}
}
