package cli

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/workload/all"
)

// documentedCommands returns the rightsize command lines shown in a
// Markdown file's code (fenced or indented blocks), continuation lines
// joined, each split into its arguments: shell comments, pipes and
// redirections cut off, a double-quoted argument kept whole. A synopsis
// (with [optional] parts) is left out.
func documentedCommands(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	fenced, cont := false, ""
	for sc.Scan() {
		raw := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(raw), "```") {
			fenced = !fenced
			continue
		}
		if !fenced && !strings.HasPrefix(raw, "    ") && cont == "" {
			continue
		}
		line := cont + strings.TrimSpace(raw)
		cont = ""
		if strings.HasSuffix(line, `\`) {
			cont = strings.TrimSuffix(line, `\`) + " "
			continue
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "$ "), "go run ./cmd/")
		if !strings.HasPrefix(line, "rightsize ") || strings.Contains(line, " [") {
			continue // not a command, or a synopsis ([optional] parts)
		}
		for _, cut := range []string{" #", " |", " >", " &&", " ;"} {
			if i := strings.Index(line, cut); i >= 0 {
				line = line[:i]
			}
		}
		var args []string
		for i, part := range strings.Split(strings.TrimPrefix(line, "rightsize "), `"`) {
			if i%2 == 1 {
				args = append(args, part)
			} else {
				args = append(args, strings.Fields(part)...)
			}
		}
		out = append(out, args)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDocumentedCommandsParse: every rightsize command line in the README
// and docs/ names a command that exists and flags that command takes, with
// a value where one is needed, and arguments it accepts, so that a renamed
// or removed command or flag cannot stay in the documentation. ("..."
// stands for what the reader fills in.)
func TestDocumentedCommandsParse(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	// A workload file a command names (my-app.yaml) is the documentation's
	// example file, written where the command finds it.
	example, err := os.ReadFile("../workfile/testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	total := 0
	for _, path := range append([]string{"../../README.md"}, docs...) {
		cmds := documentedCommands(t, path)
		total += len(cmds)
		for _, args := range cmds {
			line := "rightsize " + strings.Join(args, " ")
			for i := 1; i < len(args) && i < 3; i++ {
				if all.IsFile(args[i]) && (i == 1 || args[0] == "k8s") {
					file := filepath.Join(dir, filepath.Base(args[i]))
					if err := os.WriteFile(file, example, 0o644); err != nil {
						t.Fatal(err)
					}
					args[i] = file
				}
			}
			root := newRoot(context.Background(), &Env{Args: args})
			c, rest, err := root.Find(args)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(path), line, err)
				continue
			}
			if c == root && len(args) > 0 {
				t.Errorf("%s: %s: no such command", filepath.Base(path), line)
				continue
			}
			if err := c.ParseFlags(rest); err != nil {
				t.Errorf("%s: %s: %s: %v", filepath.Base(path), line, c.CommandPath(), err)
				continue
			}
			var pos []string
			for _, a := range c.Flags().Args() {
				if a != "..." {
					pos = append(pos, a)
				}
			}
			if c.HasSubCommands() && len(pos) > 0 {
				t.Errorf("%s: %s: %s has no command %q", filepath.Base(path), line, c.CommandPath(), pos[0])
			} else if err := c.ValidateArgs(pos); err != nil {
				t.Errorf("%s: %s: %s: %v", filepath.Base(path), line, c.CommandPath(), err)
			}
		}
	}
	// The README alone shows some forty; finding few means the scan broke.
	if total < 40 {
		t.Errorf("found %d documented command lines, want 40 or more", total)
	}
}
