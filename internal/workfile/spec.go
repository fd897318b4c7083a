package workfile

import (
	"fmt"
	"strings"
	"time"

	"github.com/rightsize/rightsize/internal/datagen"
	"github.com/rightsize/rightsize/internal/exitcode"
	"github.com/rightsize/rightsize/internal/lineprob"
	"github.com/rightsize/rightsize/internal/pgbenchscript"
	"github.com/rightsize/rightsize/internal/sqltext"
)

// ErrInvalid is wrapped by every error Parse returns for a file it refuses.
var ErrInvalid = exitcode.New("invalid workload file", exitcode.Usage)

// Problem is one problem (or warning) of a file, at a line (0: the file as
// a whole).
type Problem = lineprob.Problem

// Error is every problem of a file at once, in line order. It wraps
// ErrInvalid.
type Error = lineprob.Error

// Dialects a file can name, in the order they are listed.
const (
	Postgres = "postgres"
	MySQL    = "mysql"
	SQLite   = "sqlite"
)

// AllDialects are the dialects a file runs on when it names none.
var AllDialects = []string{Postgres, MySQL, SQLite}

// Spec is a checked workload file.
type Spec struct {
	File        string // the name Parse was given (a path)
	Name        string // the workload's name (results call it so)
	Description string
	// Dialects are the databases the file runs on (postgres, mysql,
	// sqlite): every statement has SQL for each of them.
	Dialects []string
	// AllowWrites is the file's consent that its statements write tables
	// it declares existing (see CheckWrites).
	AllowWrites bool
	// BaselineRate is what --rate 1x means for this file, in transactions
	// (events) per second per instance: the rate rightsize capture
	// observed in production. 0 when the file sets none; a run's
	// --baseline-rate wins over it.
	BaselineRate float64
	Tables       []Table
	Params       []Param
	Transactions []Transaction
	// Vars are the variables of pgbench scripts (FromScripts), which a
	// virtual user keeps across its transactions; nil for a file. Defines
	// are the values given to some of them on the command line (-D).
	Vars    *pgbenchscript.Program
	Defines []Define
	// Warnings are what does not stop the file (a weight of 0, a
	// parameter no statement uses), in line order.
	Warnings []Problem

	cum []int64 // cumulative weights of Transactions (Pick)
}

// Define is a script variable's value given on the command line.
type Define struct{ Name, Value string }

// WarningLines returns the warnings as "file:line: message" lines.
func (s *Spec) WarningLines() []string {
	out := make([]string, len(s.Warnings))
	for i, w := range s.Warnings {
		out[i] = w.Format(s.File)
	}
	return out
}

// Table returns the table named name (case-insensitive), or nil.
func (s *Spec) Table(name string) *Table {
	for i := range s.Tables {
		if strings.EqualFold(s.Tables[i].Name, name) {
			return &s.Tables[i]
		}
	}
	return nil
}

// Param returns the index in Params of the parameter named name, or -1.
func (s *Spec) Param(name string) int {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return i
		}
	}
	return -1
}

// Table is a table the workload needs: created and loaded by rightsize,
// or Existing (a restored copy of production, never created, loaded or
// dropped).
type Table struct {
	Name     string
	Line     int
	Existing bool
	// Rows is the number of rows prepare loads (created tables).
	Rows       int64
	Columns    []Column
	PrimaryKey []string
	Indexes    []Index
}

// Column is a column of a created table.
type Column struct {
	Name string
	Line int
	// Type is the column's SQL type, the same on every dialect, or ""
	// when Types gives it per dialect.
	Type string
	// Types is the type per dialect where it differs (postgres: jsonb,
	// mysql: json); a dialect missing here uses Type.
	Types map[string]string
	// Null: the column accepts NULL. A nullable column without a
	// generator is loaded as NULL.
	Null bool
	// Gen generates the column's values (nil: NULL). Its Kind is never
	// Sample; a Seq numbers rows (row i gets Start + i*Step).
	Gen *Param
}

// TypeFor returns the column's SQL type on dialect.
func (c *Column) TypeFor(dialect string) string {
	if t, ok := c.Types[dialect]; ok {
		return t
	}
	return c.Type
}

// Index is a secondary index of a created table, created after its rows.
type Index struct {
	Name    string
	Line    int
	Columns []string
	Unique  bool
}

// Kind is a parameter's (or a column generator's) kind.
type Kind uint8

const (
	Int       Kind = iota + 1 // an integer range with a distribution
	Decimal                   // a decimal range (a fixed number of decimals) with a distribution
	Seq                       // a sequence: start, start+step, ...
	Choice                    // one of weighted values
	Pattern                   // a string from a pattern ('#' a digit, '@' a letter)
	Timestamp                 // the event's time plus an offset in a range, in seconds
	Sample                    // a value of a column of the target, loaded at run time
)

var kindNames = [...]string{Int: "int", Decimal: "decimal", Seq: "seq", Choice: "choice", Pattern: "pattern", Timestamp: "timestamp", Sample: "sample"}

func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Param is a named parameter statements refer to as :name, or the
// generator of a column.
type Param struct {
	Name string
	Line int
	Kind Kind
	// Dist and Parameter shape Int, Decimal, Timestamp and Sample draws
	// (Sample: over the index of the loaded values).
	Dist      datagen.PgbenchKind
	Parameter float64
	// Min and Max bound Int (values), Decimal (in units of 10^-Scale)
	// and Timestamp (offsets from the event's time, in seconds).
	Min, Max int64
	Scale    int // Decimal: digits after the point
	// Start and Step define a Seq.
	Start, Step int64
	Choices     []ChoiceValue
	Pattern     string
	// Table and Column name a Sample's source, or the column whose highest
	// value a Seq goes on after (after:, Seqs.AfterMax); Limit is the most
	// values a Sample loads.
	Table, Column string
	Limit         int
	// HasRange: a Sample with min and max, drawn from [Min, Max] (with
	// Dist) when its column holds no values.
	HasRange bool

	dist      *datagen.Pgbench // Int, Decimal, Timestamp; Sample's is built per load
	cum       []int64          // Choice: cumulative weights
	texts     [][]byte         // Choice: the values as bytes
	choiceInt bool             // Choice: every value is a YAML integer
	pat       []byte           // Pattern with '\\' escapes resolved
	lit       []bool           // Pattern: which bytes of pat are literal
}

// ChoiceValue is one value of a Choice and its weight.
type ChoiceValue struct {
	Text   string // as written
	Int    int64  // when the Choice's Type is IntValue
	Weight int64
}

// Type returns the type of the values p generates (Unknown for a Sample:
// the values the runner loads decide).
func (p *Param) Type() ValueType {
	switch p.Kind {
	case Int, Seq:
		return IntValue
	case Decimal:
		return DecimalValue
	case Pattern:
		return TextValue
	case Timestamp:
		return TimeValue
	case Choice:
		if p.choiceInt {
			return IntValue
		}
		return TextValue
	}
	return Unknown
}

// Transaction is one component of the mix: statements run in one database
// transaction (or each in autocommit), picked with probability Weight/sum.
type Transaction struct {
	Name       string
	Line       int
	Weight     int64
	Autocommit bool
	// Keying is a fixed pause before the transaction; Think the pause
	// after it: every pause is Think, or, with ThinkExponential, drawn
	// from a negative exponential of mean Think truncated at 10 means
	// (TPC-C's think time).
	Keying, Think    time.Duration
	ThinkExponential bool
	Statements       []Statement
	// Actions are the transaction's steps, which the interpreter runs in
	// order: a file's are BEGIN (unless autocommit), its statements and
	// COMMIT; a pgbench script's are its commands.
	Actions []Action
	// Script: the transaction is a pgbench script, timed as one operation
	// (its statements are not operations of their own); Source names its
	// file in run-time errors, with its actions' lines.
	Script bool
	Source string
}

// Statement is one statement of a transaction.
type Statement struct {
	Name string // unique within its transaction ("<transaction>_<n>" unless named)
	Line int
	// Forms are the statement's SQL: the default (Dialect "") if the file
	// gives one, then the dialects' own, in AllDialects order.
	Forms []Form
	// Into names the columns of the first row the statement returns, in
	// order: later statements of the same transaction refer to them as
	// parameters.
	Into []string
	// Writes lists the tables the statement writes (INSERT, UPDATE,
	// DELETE, MERGE, REPLACE targets), lower-cased, in any of its forms.
	Writes []string
	// Opaque: the statement may write tables rightsize cannot name (a
	// CALL, a DO block, a statement it does not recognize): it is counted
	// as writing every table.
	Opaque bool
	// Store is what a script's statement does with its rows: Gset (one
	// row) or Aset (the last row, if any) into the script variables named
	// Prefix and the column's name; Discard reads them to the end.
	Store  pgbenchscript.Result
	Prefix string

	what string // how problems name it
}

// Form returns the statement's SQL for dialect: its own, else the default;
// nil when neither exists (never for a dialect of the Spec).
func (st *Statement) Form(dialect string) *Form {
	var def *Form
	for i := range st.Forms {
		switch st.Forms[i].Dialect {
		case dialect:
			return &st.Forms[i]
		case "":
			def = &st.Forms[i]
		}
	}
	return def
}

// Form is a statement's SQL for a dialect ("" for every dialect without
// its own) with its parameter references.
type Form struct {
	Dialect string
	SQL     string // as written, with :name references
	// Slots are the references in order of appearance.
	Slots []Slot

	refs   []sqltext.Ref // the references in SQL, with their byte ranges
	line   int           // the SQL's line in the file
	lines  []int         // each reference's line
	writes []string      // the tables it writes, as written
	opaque bool
	// columns is how many columns the statement returns, as its select
	// list (or RETURNING) reads; -1 when the SQL does not tell (a *).
	columns int
}

// Slot is one reference to a parameter in a statement's SQL: to a Param
// (Param >= 0), to a value an earlier statement of the same transaction
// returned (Param == -1, Stmt >= 0; Stmt and Col index the transaction's
// Statements and that statement's Into), or to a script variable (Param
// and Stmt -1; Var is its slot in Spec.Vars).
type Slot struct {
	Name  string
	Param int
	Stmt  int
	Col   int
	Var   int
}

// Style is how placeholders are written for a database.
type Style = sqltext.Style

const (
	// Question writes every reference as ? (MySQL, SQLite, and the
	// dialect Conns of rightsize, which rewrite ? for PostgreSQL).
	Question = sqltext.Question
	// Dollar writes $1, $2, ... (PostgreSQL), one number per distinct name.
	Dollar = sqltext.Dollar
)

// Render returns the SQL with its references replaced by placeholders of
// style, and what to bind to each placeholder, in order. With Dollar, two
// references to one name share a number. Call it once per statement and
// prepare the result once per connection.
func (f *Form) Render(style Style) (string, []Slot) {
	if len(f.refs) == 0 { // no :name (a script's SQL has its $n already)
		return f.SQL, f.Slots
	}
	q, idx := sqltext.Render(f.SQL, f.refs, style)
	var args []Slot
	for _, k := range idx {
		args = append(args, f.Slots[k])
	}
	return q, args
}
