package workfile

import (
	"fmt"
	"strings"
	"testing"
)

// stepsFile has a transaction of every kind of step: set from a parameter
// and a returned value, sleep, and an if with then and else.
const stepsFile = base + `params:
  k: {type: int, min: 1, max: 10}
transactions:
  - name: x
    statements:
      - set: {double: ":k * 2"}
      - sql: SELECT v FROM a WHERE id = :double
        into: [got]
      - sleep: 5ms
      - if: ":got > 4 and :k > 1"
        then:
          - UPDATE a SET v = v - 1 WHERE id = :double
        else:
          - set: {one: "1"}
          - UPDATE a SET v = v + :one WHERE id = :k
`

// TestSteps: set, sleep and if compile to actions between BEGIN and
// COMMIT, with the if's jumps past the BEGIN; an expression's parameters
// and returned values are loaded into its variables; a statement binds a
// variable set before it.
func TestSteps(t *testing.T) {
	s, err := Parse("steps.yaml", []byte(stepsFile))
	if err != nil {
		t.Fatal(err)
	}
	tx := &s.Transactions[0]
	var kinds []ActionKind
	for _, a := range tx.Actions {
		kinds = append(kinds, a.Kind)
	}
	want := []ActionKind{Begin, Set, Run, Sleep, Branch, Run, Jump, Set, Run, Commit}
	if len(kinds) != len(want) {
		t.Fatalf("actions %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("actions %v, want %v", kinds, want)
		}
	}
	if br, jmp := tx.Actions[4], tx.Actions[6]; br.Jump != 7 || jmp.Jump != 9 {
		t.Errorf("the if's branch goes to %d (want 7, the else) and its jump to %d (want 9, COMMIT)", br.Jump, jmp.Jump)
	}
	if tx.Actions[3].Micros != 5000 {
		t.Errorf("sleep %d µs, want 5000", tx.Actions[3].Micros)
	}
	if l := tx.Actions[1].Loads; len(l) != 1 || l[0].Param != s.Param("k") {
		t.Errorf("set double loads %+v, want the parameter k", l)
	}
	if l := tx.Actions[4].Loads; len(l) != 2 || l[0].Stmt != 0 || l[0].Col != 0 || l[1].Param != s.Param("k") {
		t.Errorf("the if loads %+v, want got (statement 0, column 0) and k", l)
	}
	sl := tx.Statements[0].Forms[0].Slots[0]
	if v, ok := s.Vars.Lookup("double"); sl.Param != -1 || sl.Stmt != -1 || !ok || sl.Var != v {
		t.Errorf("the SELECT's :double binds %+v, want the variable double", sl)
	}
	if len(tx.Statements) != 3 || tx.Statements[2].Name != "x_3" || tx.Source != "steps.yaml" {
		t.Errorf("statements %d, the last named %s, source %q", len(tx.Statements), tx.Statements[2].Name, tx.Source)
	}
	if !tx.Writes() {
		t.Error("the transaction's UPDATEs are not counted as writes")
	}
}

// TestStepProblems: every problem of a step, at its line.
func TestStepProblems(t *testing.T) {
	tx := func(steps string) string {
		return base + "params:\n  k: {type: int, min: 1, max: 10}\ntransactions:\n  - name: x\n    statements:\n" + steps
	}
	for _, c := range []struct{ name, yaml, msg string }{
		{"unknown name", tx("      - set: {a: \":nope + 1\"}\n      - SELECT :a\n"), "reads :nope, which is no parameter"},
		{"bad expression", tx("      - set: {a: \"1 +\"}\n      - SELECT :a\n"), "set a: "},
		{"set a parameter", tx("      - set: {k: \"1\"}\n      - SELECT :k\n"), "set k: a parameter of that name"},
		{"set an into", tx("      - sql: SELECT 1\n        into: [r]\n      - set: {r: \"2\"}\n"), "set r: a statement of the transaction returns"},
		{"use before set", tx("      - SELECT :a\n      - set: {a: \"1\"}\n"), "unknown parameter :a"},
		{"read before set", tx("      - set: {a: \":b\"}\n      - set: {b: \"1\"}\n      - SELECT :a\n"), "reads :b"},
		{"if without then", tx("      - if: \"1 = 1\"\n      - SELECT 1\n"), "then missing"},
		{"negative sleep", tx("      - sleep: -1s\n      - SELECT 1\n"), "is negative"},
		{"bad variable", tx("      - set: {\"9a\": \"1\"}\n      - SELECT 1\n"), "a variable's name"},
		{"unknown key", tx("      - if: \"1 = 1\"\n        then: [SELECT 1]\n        otherwise: [SELECT 2]\n"), `unknown key "otherwise"`},
	} {
		_, err := Parse("x.yaml", []byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.msg)
		}
	}
	var many strings.Builder
	for i := range maxStatements + 1 {
		fmt.Fprintf(&many, "v%d: \"1\", ", i)
	}
	if _, err := Parse("x.yaml", []byte(tx("      - set: {"+many.String()+"}\n      - SELECT 1\n"))); err == nil || !strings.Contains(err.Error(), "more than 1000 steps") {
		t.Errorf("a set of %d variables: error %v", maxStatements+1, err)
	}
	deep := strings.Repeat("{if: \"1\", then: [", maxDepth+1) + "SELECT 1" + strings.Repeat("]}", maxDepth+1)
	if _, err := Parse("x.yaml", []byte(tx("      - "+deep+"\n"))); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("if nested %d deep: error %v", maxDepth+1, err)
	}
}
