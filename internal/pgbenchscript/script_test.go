package pgbenchscript

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rightsize/rightsize/internal/datagen"
)

// eval compiles "\set x EXPR" and evaluates it in a fresh state.
func eval(t *testing.T, expr string) (Value, error) {
	t.Helper()
	p := NewProgram()
	s, err := p.Add("t", "t.sql", `\set x `+expr+"\n", 1)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	st := p.NewState(datagen.NewSource(1))
	seed, _ := p.Lookup("default_seed")
	st.SetInt(seed, 0)
	return st.Eval(s.Cmds[0].Expr)
}

func TestEval(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"7.0 / 2", "3.5"},
		{"-7 % 3", "-1"},
		{"5 % -1", "0"},
		{"7.5 % 2", "0"}, // % is integer: 7.5 rounds to 8
		{"0.1 + 0.2", "0.3"},
		{"1e6 * 1.0", "1000000"},
		{"abs(-3)", "3"},
		{"abs(-2.5)", "2.5"},
		{"least(3, 2.5, 4)", "2.5"},
		{"greatest(1, 5, 3)", "5"},
		{"least(1, null)", "NULL"},
		{"case when 1 > 2 then 1 when 2 > 1 then 2 else 3 end", "2"},
		{"case when false then 1 end", "NULL"},
		{"1 < 2 and 3 > 4", "false"},
		{"1 < 2 or 3 > 4", "true"},
		{"null and true", "NULL"},
		{"false and null", "false"},
		{"null is null", "true"},
		{"1 is null", "false"},
		{"1 isnull", "false"},
		{"null notnull", "false"},
		{"true is not false", "true"},
		{"not true", "false"},
		{"not 1 = 2", "true"},
		{"~0", "-1"},
		{"~1 | 2", "-2"},
		{"1 << 3", "8"},
		{"-16 >> 2", "-4"},
		{"6 & 3", "2"},
		{"6 | 3", "7"},
		{"6 # 3", "5"},
		{"int(2.5)", "2"},
		{"int(3.5)", "4"},
		{"double(3)", "3"},
		{"pow(2, 10)", "1024"},
		{"power(2, 0.5) * power(2, 0.5)", "2"},
		{"sqrt(16)", "4"},
		{"exp(0)", "1"},
		{"ln(1)", "0"},
		{"pi()", "3.14159265358979"},
		{"5 = 5.0", "true"},
		{"5 <> 5", "false"},
		{"5 != 6", "true"},
		{"2 >= 3", "false"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"9223372036854775807", "9223372036854775807"},
		{"mod(10, 3)", "1"},
		{"1 + null", "NULL"},
		{"hash_fnv1a(0, 0)", "-6284781860667377211"}, // pgbench 15's own results
		{"hash(12345, 678)", "-3461122863905194782"},
		{"permute(17, 1000, 5)", "785"},
		{"permute(123456789, 100000000, -3)", "61072517"},
		{"1e20 * 1.0", "1e+20"},
		{"permute(0, 1, 5)", "0"},
		{"random(5, 5)", "5"},
		{"random_zipfian(7, 7, 1.5)", "7"},
		{"random_exponential(3, 3, 1.0)", "3"},
		{"random_gaussian(3, 3, 2.0)", "3"},
	} {
		v, err := eval(t, c.expr)
		if err != nil {
			t.Errorf("%s: %v", c.expr, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}

func TestEvalErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"1 / 0", "division by zero"},
		{"9223372036854775807 + 1", "bigint add out of range"},
		{"-9223372036854775808 - 1", "bigint sub out of range"},
		{"4611686018427387904 * 2", "bigint mul out of range"},
		{"-9223372036854775808 / -1", "bigint div out of range"},
		{"random(5, 1)", "empty range given to random"},
		{"random_gaussian(1, 10, 1.5)", "gaussian parameter must be at least"},
		{"random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range"},
		{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero"},
		{"permute(1, 0)", "permute size parameter must be greater than zero"},
		{"true + 1", "cannot coerce boolean to int"},
		{"not 1", "cannot coerce int to boolean"},
		{"int(1e300)", "double to int overflow for 1e+300"},
	} {
		_, err := eval(t, c.expr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.expr, err, c.want)
		}
	}
}

func TestRandomRanges(t *testing.T) {
	p := NewProgram()
	s, err := p.Add("t", "t.sql", `\set u random(1, 10)
\set g random_gaussian(1, 10, 2.5)
\set e random_exponential(1, 10, 3.0)
\set z random_zipfian(1, 10, 1.07)
`, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := p.NewState(datagen.NewSource(42))
	counts := make([][11]int, 4)
	for range 20000 {
		for k, c := range s.Cmds {
			v, err := st.Eval(c.Expr)
			if err != nil {
				t.Fatal(err)
			}
			if v.K != Int || v.I < 1 || v.I > 10 {
				t.Fatalf("%s = %v: out of [1, 10]", c.Text, v)
			}
			counts[k][v.I]++
		}
	}
	// uniform: every value about 2,000; exponential and zipfian: 1 the
	// most frequent; gaussian: the middle more frequent than the ends.
	for i := 1; i <= 10; i++ {
		if n := counts[0][i]; n < 1700 || n > 2300 {
			t.Errorf("random(1, 10): %d drawn %d times of 20,000", i, n)
		}
	}
	if counts[2][1] <= counts[2][10]*5 || counts[3][1] <= counts[3][10]*5 {
		t.Errorf("exponential %v and zipfian %v: 1 should be far more frequent than 10", counts[2], counts[3])
	}
	if counts[1][5] <= counts[1][1]*2 {
		t.Errorf("gaussian %v: the middle should be more frequent than the ends", counts[1])
	}
}

func TestParse(t *testing.T) {
	p := NewProgram()
	s, err := p.Add("x", "x.sql", `-- a comment
\set aid random(1, 100000 * :scale)
\set n 2

BEGIN;
SELECT abalance FROM pgbench_accounts
  WHERE aid = :aid AND 'a:b' <> :n::text; -- two parameters
\if :n > 1
  SELECT 1 AS one \gset p_
\elif :n = 1
  \sleep 10 ms
\else
  \sleep :n us
\endif
UPDATE pgbench_accounts SET abalance = 0 WHERE aid = :aid \gset
END;
`, 1)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, c := range s.Cmds {
		kinds = append(kinds, [...]string{"sql", "set", "sleep", "if", "jump"}[c.Kind])
	}
	if got := strings.Join(kinds, " "); got != "set set sql sql if sql jump if sleep jump sleep sql sql" {
		t.Fatalf("commands: %s", got)
	}
	sel := s.Cmds[3]
	// As pgbench's prepared mode, a :name inside quotes is a parameter too.
	if sel.Line != 6 || sel.SQL != "SELECT abalance FROM pgbench_accounts\n  WHERE aid = $1 AND 'a$2' <> $3::text;" || len(sel.Params) != 3 {
		t.Errorf("select: line %d, %q, params %v", sel.Line, sel.SQL, sel.Params)
	}
	if s.Cmds[2].Tx != Begin || s.Cmds[12].Tx != Commit || s.Cmds[3].Tx != NoTx || !s.Cmds[3].Reads || s.Cmds[11].Reads {
		t.Errorf("transaction control: %v %v %v", s.Cmds[2].Tx, s.Cmds[12].Tx, s.Cmds[3].Tx)
	}
	if c := s.Cmds[5]; c.Result != Gset || c.Prefix != "p_" || c.Line != 9 {
		t.Errorf("gset: %+v", c)
	}
	if c := s.Cmds[11]; c.Result != Gset || c.Prefix != "" {
		t.Errorf("gset after an UPDATE: %+v", c)
	}
	// The jumps: if(4) false -> the elif's If (7); the jump after the
	// first branch (6) and after the second (9) -> past the endif (11);
	// the elif's If false -> the else branch (10).
	if s.Cmds[4].Jump != 7 || s.Cmds[6].Jump != 11 || s.Cmds[7].Jump != 10 || s.Cmds[9].Jump != 11 {
		t.Errorf("jumps: %d %d %d %d", s.Cmds[4].Jump, s.Cmds[6].Jump, s.Cmds[7].Jump, s.Cmds[9].Jump)
	}
	if s.Cmds[8].Sleep != 10000 || s.Cmds[10].Var < 0 || s.Cmds[10].Sleep != 1 {
		t.Errorf("sleeps: %+v %+v", s.Cmds[8], s.Cmds[10])
	}
	if err := p.Check(); err != nil {
		t.Errorf("check: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{"\\set x 1 +\n", `f.sql:1: \set: syntax error: unexpected end of expression at column 4: 1 +`},
		{"SELECT 1;\n\\set x foo(1)\n", `f.sql:2: \set: unexpected function name (foo)`},
		{"\\set x random(1)\n", `f.sql:1: \set: unexpected number of arguments (random)`},
		{"\\set x least()\n", `f.sql:1: \set: at least one argument expected (least)`},
		{"\\set 1x 1\n", `f.sql:1: \set: invalid variable name: "1x"`},
		{"\\set x\n", `f.sql:1: \set: missing argument`},
		{"\\set x 1 < 2 < 3\n", `f.sql:1: \set: syntax error: unexpected "<"`},
		{"\n\\foo bar\n", `f.sql:2: invalid command "\foo"`},
		{"\\gset\n", `f.sql:1: \gset must follow an SQL command`},
		{"SELECT 1;\n\\if true\nSELECT 2;\n", `f.sql:2: \if without matching \endif`},
		{"\\endif\n", `f.sql:1: \endif without matching \if`},
		{"\\if 1\n\\else\n\\else\n\\endif\n", `f.sql:3: \else after \else`},
		{"\\if 1\n\\else\n\\elif 2\n\\endif\n", `f.sql:3: \elif after \else`},
		{"\\sleep 1 min\n", `f.sql:1: \sleep: unrecognized time unit, must be us, ms or s (min)`},
		{"\\sleep x\n", `f.sql:1: \sleep: invalid sleep time, must be an integer (x)`},
		{"\\sleep\n", `f.sql:1: \sleep: missing argument`},
		{"\\shell echo 1\n", `f.sql:1: \shell: shell commands are not supported`},
		{"\\startpipeline\n", `f.sql:1: \startpipeline: pipeline mode is not supported`},
		{"-- nothing\n", `f.sql: empty command list for script`},
		{"SELECT 1 \\; SELECT 2;\n", `f.sql:1: \; (several statements in one command) cannot be prepared`},
		// pgbench's parser stack holds 10,000 levels ("memory exhausted").
		{"\\set x " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + "\n", `f.sql:1: \set: memory exhausted: the expression nests more than 10000 levels deep`},
		{"\\set x " + strings.Repeat("-", 100000) + "1\n", "memory exhausted"},
		{"\\set x abs(" + strings.Repeat("abs(", 20000) + "1" + strings.Repeat(")", 20001) + "\n", "memory exhausted"},
	} {
		_, err := NewProgram().Add("f", "f.sql", c.script, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: error %v, want one with %q wrapping ErrInvalid", c.script, err, c.want)
		}
	}
}

func TestCheckUndefined(t *testing.T) {
	p := NewProgram("d")
	if _, err := p.Add("f", "f.sql", "SELECT :d, :scale, :client_id;\n\\set y :nope + 1\n", 1); err != nil {
		t.Fatal(err)
	}
	err := p.Check()
	if err == nil || err.Error() != `f.sql:2: \set: undefined variable "nope"` {
		t.Errorf("check: %v", err)
	}
	// A script that stores query results may set any variable.
	p = NewProgram()
	if _, err := p.Add("f", "f.sql", "SELECT 1 AS a \\gset\nSELECT :a;\n", 1); err != nil {
		t.Fatal(err)
	}
	if err := p.Check(); err != nil {
		t.Errorf("check with \\gset: %v", err)
	}
}

func TestText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Value
	}{
		{"42", IntValue(42)}, {" -7", IntValue(-7)}, {"2.5", DoubleValue(2.5)}, {"null", Value{}},
		{"y", BoolValue(true)}, {"off", BoolValue(false)}, {"t", BoolValue(true)}, {"1e3", DoubleValue(1000)},
	} {
		got, err := ParseText(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseText(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := ParseText("abc"); err == nil {
		t.Errorf("ParseText(abc): no error")
	}
	if got := string(DoubleValue(math.Inf(1)).AppendText(nil)); got != "inf" {
		t.Errorf("inf: %s", got)
	}
}

func TestBuiltins(t *testing.T) {
	p := NewProgram()
	for _, b := range Builtins {
		s, err := p.Add(b.Name, b.Desc, b.Script, 1)
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		if s.ReadOnly() != (b.Name == "select-only") {
			t.Errorf("%s: read only %v", b.Name, s.ReadOnly())
		}
	}
	if err := p.Check(); err != nil {
		t.Error(err)
	}
	if b, err := FindBuiltin("tpcb"); err != nil || b.Name != "tpcb-like" {
		t.Errorf("FindBuiltin(tpcb) = %v, %v", b.Name, err)
	}
	if _, err := FindBuiltin("s"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("FindBuiltin(s): %v", err)
	}
}
