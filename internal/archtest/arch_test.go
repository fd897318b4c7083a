package archtest

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const mod = "github.com/rightsize/rightsize"

type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", mod+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, mod), "/") }

func under(p, prefix string) bool { return p == prefix || strings.HasPrefix(p, prefix+"/") }

// pure packages compute on result data only: no database, network, files,
// process state or other layers. shellword, quoting words for a shell, is
// shared by cli and history (both print lines to paste) and stays pure so
// that any layer may use it.
var pure = []string{"internal/shellword", "internal/exitcode", "internal/errclass", "internal/hist", "internal/pace", "internal/result", "internal/report", "internal/analysis", "internal/topology", "internal/sizing", "internal/shard", "internal/merge", "internal/k8sjob", "internal/workfile", "internal/lineprob", "internal/capture", "internal/sqltext"}

var impureStd = []string{"os", "os/exec", "os/signal", "net", "net/http", "database/sql", "syscall", "golang.org/x/sys/unix"}

// forbidden lists, for each layer, the project packages it must not import
// (directly or through others).
var forbidden = map[string][]string{
	"internal/dialect":   {"internal/workload", "internal/runner", "internal/cli", "internal/report"},
	"internal/workload":  {"internal/runner", "internal/cli", "internal/report"},
	"internal/runner":    {"internal/cli", "internal/report", "internal/dialect"},
	"internal/result":    {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	"internal/report":    {"internal/runner", "internal/workload", "internal/dialect", "internal/cli"},
	"internal/sizing":    {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	"internal/shard":     {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report", "internal/result"},
	"internal/merge":     {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	"internal/k8sjob":    {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report", "internal/history"},
	"internal/analysis":  {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	"internal/topology":  {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	"internal/history":   {"internal/cli", "internal/report", "internal/runner", "internal/workload", "internal/analysis", "internal/session", "internal/runplan"},
	"internal/metrics":   {"internal/cli", "internal/report", "internal/runner", "internal/workload", "internal/dialect"},
	"internal/htmeasure": {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report"},
	// runplan turns a command line into a plan: it knows the workload and
	// runner interfaces, never a database, the catalog, the session, a
	// report or the CLI (a catalog location is checked by a function the
	// CLI hands it, runplan.Env.CheckHistory).
	"internal/runplan": {"internal/cli", "internal/session", "internal/report", "internal/analysis", "internal/dialect", "internal/history", "internal/metrics"},
	// session runs a plan: it reaches databases only through the workloads,
	// and what it shows or records through its observers, its start
	// barrier's Register (the CLI's: the history catalog) and the sweep's
	// report it is handed (Options.SweepReport): the sweep file holds data,
	// the words are report's.
	"internal/session": {"internal/cli", "internal/dialect", "internal/history", "internal/metrics", "internal/report"},
	// stored is the one door to stored results: it reads files and the
	// catalog for the commands, and knows none of them, nor what is run
	// or served.
	"internal/stored": {"internal/cli", "internal/metrics", "internal/study", "internal/k8sjob"},
	// workfile reads and checks a workload file into a Spec the runner and
	// the table routine will use: it knows none of them, nor a database.
	"internal/workfile": {"internal/runner", "internal/workload", "internal/dialect", "internal/cli", "internal/report", "internal/session", "internal/history", "internal/app", "internal/stored"},
	// sqltext is the one reader of SQL text (tokens, a statement's class
	// and the tables it writes, placeholders): the dialects, workload files
	// and capture use it, and it knows none of them.
	"internal/sqltext": {"internal/dialect", "internal/workfile", "internal/capture", "internal/pgbenchscript", "internal/workload", "internal/runner", "internal/cli", "internal/report"},
	// capturedb reads a server's statement statistics and catalog for
	// rightsize capture: it knows no workload, run or report.
	"internal/capturedb": {"internal/workload", "internal/runner", "internal/session", "internal/cli", "internal/report", "internal/app", "internal/history"},
	// stmtstats reads a server's statement statistics for capturedb and
	// serverstats, through the dialect interface: it knows neither of
	// them, nor a workload, run, session or report.
	"internal/stmtstats": {"internal/workload", "internal/runner", "internal/session", "internal/cli", "internal/report", "internal/app", "internal/history", "internal/analysis", "internal/capturedb", "internal/serverstats"},
	// serverstats samples a server's own view (wait events, counters) for
	// the session, through the dialect interface: it knows no workload,
	// run, session or report (the session hands it each interval's phase).
	"internal/serverstats": {"internal/workload", "internal/runner", "internal/session", "internal/cli", "internal/report", "internal/app", "internal/history", "internal/analysis"},
	// app holds the use cases the CLI calls (a run with the process's
	// observers, the phases, a study, capture, import): the CLI calls
	// them, never the other way round.
	"internal/app": {"internal/cli"},
	// foreignflag is data about other tools' flags and the command tree: it
	// knows no layer of rightsize's.
	"internal/foreignflag": {"internal/cli", "internal/runplan", "internal/session", "internal/runner", "internal/workload", "internal/dialect", "internal/report", "internal/history"},
}

func TestImportRules(t *testing.T) {
	pkgs := listPackages(t)
	checked := 0
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		for _, pp := range pure {
			if !under(r, pp) {
				continue
			}
			checked++
			for _, d := range p.Imports {
				for _, bad := range impureStd {
					if d == bad {
						t.Errorf("%s is pure but depends on %s", r, d)
					}
				}
			}
		}
		for layer, bans := range forbidden {
			if !under(r, layer) {
				continue
			}
			checked++
			for _, d := range p.Deps {
				for _, bad := range bans {
					if under(rel(d), bad) && strings.HasPrefix(d, mod) {
						t.Errorf("%s must not depend on %s (one-way flow)", r, rel(d))
					}
				}
			}
		}
	}
	// Workloads, the run catalog and the statement statistics' reader reach
	// databases only through the dialect interface and dialect/all, never
	// one dialect.
	for _, p := range pkgs {
		if r := rel(p.ImportPath); !under(r, "internal/workload") && !under(r, "internal/history") && !under(r, "internal/stmtstats") {
			continue
		}
		for _, d := range p.Imports {
			if under(rel(d), "internal/dialect") && strings.HasPrefix(d, mod) && rel(d) != "internal/dialect" && rel(d) != "internal/dialect/all" {
				t.Errorf("%s imports %s: ask the dialect interface, not one database", rel(p.ImportPath), rel(d))
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d package/rule pairs checked; did the layout change?", checked)
	}
}

// goFiles parses p's Go files (its tests left out) with one file set.
func goFiles(t *testing.T, p pkg) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	var afs []*ast.File
	for _, f := range p.GoFiles {
		af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		afs = append(afs, af)
	}
	return fset, afs
}

// maxCLIFunc is the longest a function of internal/cli may be, in lines:
// the CLI parses flags into a run plan, hands it to a session and maps
// errors to exit codes; a longer function is deciding something that
// belongs in runplan or session.
const maxCLIFunc = 80

func TestCLIFunctionsAreShort(t *testing.T) {
	funcs := checkFuncLengths(t, maxCLIFunc, "internal/cli keeps functions to %d (move the decisions to runplan or session)",
		func(p string) bool { return p == "internal/cli" })
	if funcs < 20 {
		t.Errorf("only %d functions of internal/cli inspected", funcs)
	}
}

// checkFuncLengths reports every function of the packages in over max
// lines, saying why (why takes max), and returns how many it inspected.
func checkFuncLengths(t *testing.T, max int, why string, in func(pkg string) bool) int {
	t.Helper()
	funcs := 0
	for _, p := range listPackages(t) {
		if !in(rel(p.ImportPath)) {
			continue
		}
		fset, afs := goFiles(t, p)
		for _, af := range afs {
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				funcs++
				if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > max {
					t.Errorf("%s: %s is %d lines; "+why, fset.Position(fd.Pos()), fd.Name.Name, n, max)
				}
			}
		}
	}
	return funcs
}

// maxFunc is the longest a function of any package may be, in lines
// (internal/cli's own cap is maxCLIFunc): a longer one decides several
// things that change apart. The dialect conformance kit
// (internal/dialect/dialecttest), one table of cases a database must pass,
// is the exception.
const maxFunc = 100

func TestFunctionsAreShort(t *testing.T) {
	funcs := checkFuncLengths(t, maxFunc, "functions are kept to %d (split what changes apart)",
		func(p string) bool { return p != "internal/dialect/dialecttest" })
	if funcs < 1000 {
		t.Errorf("only %d functions inspected", funcs)
	}
}

// shared are the packages every workload's results go through: they read
// a workload's own figures in their generic form (result.Figures) and know
// no workload, so that a new workload is one folder and one line in
// workload/all.
var shared = []string{"internal/result", "internal/analysis", "internal/report", "internal/merge"}

// TestSharedPackagesKnowNoWorkload: result, analysis, report and merge
// import no workload package, not even in their tests, and no identifier or
// string in their code names a workload of workload/all (a TPCC field, a
// "fileio" case): what was once hard-wired there travels in the result.
func TestSharedPackagesKnowNoWorkload(t *testing.T) {
	pkgs := listPackages(t)
	var names []string
	for _, p := range pkgs {
		if rel(p.ImportPath) != "internal/workload/all" {
			continue
		}
		for _, d := range p.Imports {
			if r := rel(d); strings.HasPrefix(d, mod) && strings.HasPrefix(r, "internal/workload/") {
				names = append(names, strings.ToLower(filepath.Base(r)))
			}
		}
	}
	if len(names) < 3 {
		t.Fatalf("workload/all imports only %v: did the layout change?", names)
	}
	files := 0
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		isShared := false
		for _, s := range shared {
			isShared = isShared || under(r, s)
		}
		if !isShared {
			continue
		}
		for _, d := range append(append(append([]string{}, p.Imports...), p.TestImports...), p.XTestImports...) {
			if strings.HasPrefix(d, mod) && under(rel(d), "internal/workload") {
				t.Errorf("%s imports %s: it must know no workload (tests included)", r, rel(d))
			}
		}
		fset, afs := goFiles(t, p)
		for _, af := range afs {
			files++
			ast.Inspect(af, func(n ast.Node) bool {
				var text string
				switch n := n.(type) {
				case *ast.Ident:
					text = n.Name
				case *ast.BasicLit:
					if n.Kind == token.STRING {
						text = n.Value
					}
				}
				for _, w := range names {
					if text != "" && strings.Contains(strings.ToLower(text), w) {
						t.Errorf("%s: %s names workload %s: it belongs in the workload's package, reaching %s through result.Figures", fset.Position(n.Pos()), text, w, r)
					}
				}
				return true
			})
		}
	}
	if files < 20 {
		t.Errorf("only %d files of %v inspected", files, shared)
	}
}

// drivers are the database drivers' import paths (and every package under
// them): only the dialects may import one.
var drivers = []string{"github.com/jackc/pgx", "github.com/go-sql-driver/mysql", "modernc.org/sqlite"}

// driverTests are the packages outside internal/dialect whose tests, and
// only their tests, may import a driver, with the reason.
var driverTests = map[string]string{
	// A black-box test of the binary holds the database's write lock
	// itself while rightsize runs against it, with its own busy timeout.
	"cmd/rightsize": "signals_test.go: TestSecondSIGINTExitsAtOnce locks the SQLite file under a running rightsize",
}

func isDriver(path string) bool {
	for _, d := range drivers {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}

// TestOnlyDialectsImportDrivers: every database is reached through
// internal/dialect; no other package imports a driver (the run catalog
// included: it opens its database through dialect/all).
func TestOnlyDialectsImportDrivers(t *testing.T) {
	pkgs := listPackages(t)
	seen := map[string]bool{}
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		if under(r, "internal/dialect") {
			for _, d := range p.Imports {
				if isDriver(d) {
					seen[r] = true
				}
			}
			continue
		}
		for _, d := range p.Imports {
			if isDriver(d) {
				t.Errorf("%s imports %s: only internal/dialect may import a database driver", r, d)
			}
		}
		if _, ok := driverTests[r]; ok {
			continue
		}
		for _, d := range append(p.TestImports, p.XTestImports...) {
			if isDriver(d) {
				t.Errorf("%s's tests import %s: only internal/dialect may import a database driver", r, d)
			}
		}
	}
	// The rule holds because the drivers are where it says: a renamed
	// driver path would make it pass vacuously.
	for _, want := range []string{"internal/dialect/postgres", "internal/dialect/mysql", "internal/dialect/sqlite"} {
		if !seen[want] {
			t.Errorf("%s imports none of %v: update the driver list", want, drivers)
		}
	}
}

// processState are the selectors only main may use.
var processState = map[string][]string{
	"os":     {"Stdout", "Stderr", "Stdin", "Args", "Exit", "Getenv", "LookupEnv", "Environ", "Setenv", "Unsetenv", "Clearenv"},
	"signal": {"Notify", "NotifyContext"},
}

func TestOnlyMainTouchesTheProcess(t *testing.T) {
	pkgs := listPackages(t)
	files := 0
	for _, p := range pkgs {
		switch rel(p.ImportPath) {
		case "cmd/rightsize", "internal/testenv", "internal/dialect/dialecttest":
			// main owns the process; the two test-support packages read the
			// test environment (server URLs, CI) and are never linked into main.
			continue
		}
		fset, afs := goFiles(t, p)
		for _, af := range afs {
			files++
			names := map[string]string{} // local name -> import path
			for _, imp := range af.Imports {
				ip := strings.Trim(imp.Path.Value, `"`)
				name := filepath.Base(ip)
				if imp.Name != nil {
					name = imp.Name.Name
				}
				names[name] = ip
			}
			ast.Inspect(af, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				id, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				ip := names[id.Name]
				for _, s := range processState[filepath.Base(ip)] {
					if (ip == "os" || ip == "os/signal") && sel.Sel.Name == s {
						t.Errorf("%s: %s.%s — only cmd/rightsize may touch process state", fset.Position(sel.Pos()), id.Name, s)
					}
				}
				return true
			})
		}
	}
	if files < 20 {
		t.Errorf("only %d files inspected", files)
	}
}

// TestOnlyStoredUpgradesResults: a result read back (from a file or the
// catalog) is upgraded to this build's figures in one place, package
// stored, the door every command reads stored results through; no other
// package calls workload/all.Upgrade.
func TestOnlyStoredUpgradesResults(t *testing.T) {
	pkgs := listPackages(t)
	calls := 0
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		fset, afs := goFiles(t, p)
		for _, af := range afs {
			local := ""
			for _, imp := range af.Imports {
				if strings.Trim(imp.Path.Value, `"`) == mod+"/internal/workload/all" {
					local = "all"
					if imp.Name != nil {
						local = imp.Name.Name
					}
				}
			}
			ast.Inspect(af, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "Upgrade" {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && local != "" && id.Name == local {
					if r != "internal/stored" {
						t.Errorf("%s: %s calls workload/all.Upgrade: read results through internal/stored", fset.Position(sel.Pos()), r)
					}
					calls++
				}
				return true
			})
		}
	}
	if calls == 0 {
		t.Errorf("no call of workload/all.Upgrade found: did the upgrade move?")
	}
}

// The CLI only parses flags, builds the plan, calls one function and maps
// its error to an exit code: what it does beyond that belongs to the
// packages it calls (app, stored, ...). These bounds keep it so.
const (
	maxCLILines   = 2500 // non-test lines of internal/cli
	maxCLIImports = 12   // internal packages internal/cli imports
)

func TestCLIStaysThin(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", mod+"/internal/cli")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var p pkg
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, f := range p.GoFiles {
		b, err := os.ReadFile(filepath.Join(p.Dir, f))
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	var internal []string
	for _, d := range p.Imports {
		if strings.HasPrefix(d, mod+"/internal/") {
			internal = append(internal, rel(d))
		}
	}
	if len(p.GoFiles) == 0 {
		t.Fatal("go list found no files in internal/cli")
	}
	if lines > maxCLILines {
		t.Errorf("internal/cli has %d non-test lines, more than %d: move what a command does into the package it belongs to (app, stored, ...)", lines, maxCLILines)
	}
	if len(internal) > maxCLIImports {
		t.Errorf("internal/cli imports %d internal packages, more than %d: %s; reach them through app or stored", len(internal), maxCLIImports, strings.Join(internal, ", "))
	}
}

// maxAppImports is the most internal packages a package of the application
// layer (internal/app and its use cases) may import, as the CLI: a use
// case that needs more is two use cases, or is deciding what belongs in
// the packages it calls.
const maxAppImports = 12

// TestAppStaysThin: every package under internal/app imports at most
// maxAppImports internal packages, and no use case imports the door
// (internal/app, the CLI's): the arrows run cli -> app -> use cases.
func TestAppStaysThin(t *testing.T) {
	pkgs := listPackages(t)
	apps := 0
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		if !under(r, "internal/app") {
			continue
		}
		apps++
		var internal []string
		for _, d := range p.Imports {
			if strings.HasPrefix(d, mod+"/internal/") {
				internal = append(internal, rel(d))
			}
			if r != "internal/app" && d == mod+"/internal/app" {
				t.Errorf("%s imports internal/app, the CLI's door to the use cases: import the use case (internal/app/run, ...) itself", r)
			}
		}
		if len(internal) > maxAppImports {
			t.Errorf("%s imports %d internal packages, more than %d: %s; split the use case, or move what it decides into the package it belongs to",
				r, len(internal), maxAppImports, strings.Join(internal, ", "))
		}
	}
	if apps < 2 {
		t.Errorf("only %d packages under internal/app: did the layout change?", apps)
	}
}
