package workfile

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestDocExampleIsTestdata: the example of docs/workload-files.md is
// testdata/example.yaml, byte for byte, so the documented file is the one
// the tests parse.
func TestDocExampleIsTestdata(t *testing.T) {
	doc, err := os.ReadFile("../../docs/workload-files.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "internal/workfile/testdata/example.yaml, byte for byte"
	_, rest, ok := strings.Cut(string(doc), marker)
	if !ok {
		t.Fatalf("docs/workload-files.md has no %q marker", marker)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("no ```yaml block after the marker")
	}
	if block != string(want) {
		t.Errorf("the doc's example differs from testdata/example.yaml:\n%s", block)
	}
}

func TestExample(t *testing.T) {
	s := example(t)
	if len(s.Warnings) > 0 {
		t.Errorf("warnings: %v", s.WarningLines())
	}
	if s.Name != "order-entry" || !slices.Equal(s.Dialects, AllDialects) || s.AllowWrites {
		t.Errorf("name %q, dialects %v, allow_writes %v", s.Name, s.Dialects, s.AllowWrites)
	}
	items := s.Table("ITEMS")
	if items == nil || items.Existing || items.Rows != 100_000 || len(items.Columns) != 6 || !slices.Equal(items.PrimaryKey, []string{"id"}) {
		t.Fatalf("items: %+v", items)
	}
	if c := items.Columns[2]; c.Type != "decimal(10,2)" || c.Gen.Kind != Decimal || c.Gen.Min != 50 || c.Gen.Max != 50000 || c.Gen.Scale != 2 {
		t.Errorf("price: %+v, gen %+v", c, c.Gen)
	}
	if ix := items.Indexes; len(ix) != 1 || ix[0].Name != "items_by_category" || !slices.Equal(ix[0].Columns, []string{"category", "price"}) {
		t.Errorf("indexes %+v", ix)
	}
	if c := s.Table("customers"); c == nil || !c.Existing {
		t.Errorf("customers: %+v", c)
	}
	no := s.Transactions[0]
	if no.Name != "new_order" || no.Weight != 45 || no.Autocommit || no.Keying != 2*time.Second || no.Think != 12*time.Second || !no.ThinkExponential {
		t.Errorf("new_order: %+v", no)
	}
	if st := no.Statements[0]; !slices.Equal(st.Into, []string{"unit_price"}) || st.WritesData() {
		t.Errorf("price: into %v, writes %v", st.Into, st.Writes)
	}
	line := no.Statements[2].Form(SQLite)
	q, args := line.Render(Question)
	if !strings.Contains(q, "VALUES (?, ?, ?, CAST(? AS decimal(10,2)) * ?)") || len(args) != 5 || args[3].Param != -1 || args[3].Stmt != 0 || args[3].Col != 0 {
		t.Errorf("insert_line: %q %+v", q, args)
	}
	status := s.Transactions[2]
	if !status.Autocommit || status.Writes() || len(status.Statements[1].Forms) != 3 || status.Statements[1].Form("") != nil {
		t.Errorf("order_status: %+v", status)
	}
	if got := s.WrittenTables(); !slices.Equal(got, []string{"customers", "order_lines", "orders"}) {
		t.Errorf("written tables %v", got)
	}
	if got := s.WritesExisting(); !slices.Equal(got, []string{"customers", "order_lines", "orders"}) {
		t.Errorf("existing tables written %v", got)
	}
	err := s.CheckWrites(false)
	if !errors.Is(err, ErrWritesExisting) || !strings.Contains(err.Error(), "transaction new_order writes existing table(s) order_lines, orders") {
		t.Errorf("CheckWrites(false) = %v", err)
	}
	if err := s.CheckWrites(true); err != nil {
		t.Errorf("CheckWrites(true) = %v", err)
	}
}

// TestWritesToCreatedTablesNeedNoConsent: a file that writes only tables
// it creates runs without consent; an opaque statement needs it.
func TestWritesToCreatedTablesNeedNoConsent(t *testing.T) {
	s := mustParse(t, "w.yaml", []byte(withTx("", "UPDATE a SET v = v + 1")))
	if err := s.CheckWrites(false); err != nil {
		t.Errorf("CheckWrites: %v", err)
	}
	if !s.Writes() || !slices.Equal(s.Transactions[0].WrittenTables(), []string{"a"}) {
		t.Errorf("writes %v %v", s.Writes(), s.Transactions[0].WrittenTables())
	}
	s = mustParse(t, "w.yaml", []byte(withTx("", "CALL refresh()")))
	if err := s.CheckWrites(false); !errors.Is(err, ErrWritesExisting) || !strings.Contains(err.Error(), "cannot read") {
		t.Errorf("CheckWrites with a CALL: %v", err)
	}
	s = mustParse(t, "w.yaml", []byte("allow_writes: true\n"+withTx("", "UPDATE prod SET v = 1")))
	if err := s.CheckWrites(false); err != nil || !slices.Equal(s.WritesExisting(), []string{"prod"}) {
		t.Errorf("allow_writes in the file: %v, %v", err, s.WritesExisting())
	}
	s = mustParse(t, "w.yaml", []byte(withTx("", "UPDATE public.prod SET v = 1")))
	if !slices.Equal(s.WritesExisting(), []string{"prod"}) {
		t.Errorf("a schema-qualified write of a declared table: %v", s.WritesExisting())
	}
}

func TestTableSQL(t *testing.T) {
	s := example(t)
	items := s.Table("items")
	want := `CREATE TABLE items (
  id bigint NOT NULL,
  title varchar(40) NOT NULL,
  price decimal(10,2) NOT NULL,
  category varchar(12) NOT NULL,
  added timestamp NOT NULL,
  note text,
  PRIMARY KEY (id)
) ENGINE=InnoDB`
	if got := items.CreateSQL(MySQL, " ENGINE=InnoDB"); got != want {
		t.Errorf("CreateSQL:\n%s\nwant:\n%s", got, want)
	}
	if got := items.IndexSQL(); !slices.Equal(got, []string{"CREATE INDEX items_by_category ON items (category, price)"}) {
		t.Errorf("IndexSQL: %q", got)
	}
	if got := items.ColumnNames(); !slices.Equal(got, []string{"id", "title", "price", "category", "added", "note"}) {
		t.Errorf("ColumnNames: %q", got)
	}
	y := "name: t\ntables:\n  - name: d\n    rows: 1\n    columns:\n      - {name: doc, type: {postgres: jsonb, mysql: json, sqlite: text}, null: true}\n    indexes: [{name: d_doc, columns: [doc], unique: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n"
	d := mustParse(t, "d.yaml", []byte(y)).Table("d")
	if got := d.CreateSQL(Postgres, ""); got != "CREATE TABLE d (\n  doc jsonb\n)" {
		t.Errorf("per-dialect type: %q", got)
	}
	if got := d.IndexSQL(); !slices.Equal(got, []string{"CREATE UNIQUE INDEX d_doc ON d (doc)"}) {
		t.Errorf("unique index: %q", got)
	}
}

// TestBaselineRate reads the rate 1x means: a number of transactions per
// second, fractions included; a file without one has 0.
func TestBaselineRate(t *testing.T) {
	const body = "tables: [{name: prod, existing: true}]\ntransactions: [{name: x, statements: [SELECT 1]}]\n"
	s, err := Parse("r.yaml", []byte("name: t\nbaseline_rate: 212.5\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	if s.BaselineRate != 212.5 {
		t.Errorf("BaselineRate %v, want 212.5", s.BaselineRate)
	}
	s, err = Parse("r.yaml", []byte("name: t\n"+body))
	if err != nil {
		t.Fatal(err)
	}
	if s.BaselineRate != 0 {
		t.Errorf("BaselineRate %v without baseline_rate, want 0", s.BaselineRate)
	}
}
