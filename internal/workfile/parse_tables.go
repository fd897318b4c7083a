package workfile

import (
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/rightsize/rightsize/internal/sqltext"
)

// workloadRE is a workload's name: results and file names carry it.
var workloadRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func (p *parser) spec(root *yaml.Node) *Spec {
	f := p.fields(root, "file", "version", "name", "description", "dialects", "allow_writes", "baseline_rate", "tables", "params", "transactions")
	s := &Spec{}
	if v := f["version"]; v != nil {
		if n, ok := p.integer(v, "version"); ok && n != 1 {
			p.add(v.Line, "version %d: this rightsize reads version 1", n)
		}
	}
	if f["name"] == nil {
		p.add(root.Line, "name: missing (the workload's name, as results call it)")
	} else if s.Name = p.text(f["name"], "name"); s.Name != "" && !workloadRE.MatchString(s.Name) {
		p.add(f["name"].Line, "name %q: want 1 to 64 letters, digits, '-' or '_', starting with a letter or digit", s.Name)
	}
	s.Description = p.text(f["description"], "description")
	s.Dialects = p.dialectList(f["dialects"])
	p.dialects = s.Dialects
	s.AllowWrites = p.boolean(f["allow_writes"], "allow_writes")
	if v := f["baseline_rate"]; v != nil {
		if r, ok := p.number(v, "baseline_rate"); ok && (r <= 0 || r > maxBaselineRate) {
			p.add(v.Line, "baseline_rate %s: want transactions per second per instance above 0 (at most %g), the rate --rate 1x means", v.Value, float64(maxBaselineRate))
		} else if ok {
			s.BaselineRate = r
		}
	}
	if f["tables"] == nil {
		p.add(root.Line, "tables: missing (the tables the statements use: created by rightsize or existing)")
	}
	s.Tables = p.tables(f["tables"])
	s.Params = p.params(f["params"])
	if f["transactions"] == nil {
		p.add(root.Line, "transactions: missing (the mix the virtual users run)")
	}
	s.Transactions = p.transactions(f["transactions"])
	p.resolve(s)
	return s
}

// otherDialects are names a user may reach for, with what to write.
// An empty hint: a database rightsize does not run on.
var otherDialects = map[string]string{
	"mariadb": "MariaDB runs the mysql dialect's SQL", "postgresql": "write postgres", "pg": "write postgres",
	"sqlite3": "write sqlite", "oracle": "", "mssql": "", "sqlserver": "", "db2": "",
}

// dialect checks a dialect's name.
func (p *parser) dialect(n *yaml.Node, what string) (string, bool) {
	s, ok := p.scalar(n, what)
	if !ok {
		return "", false
	}
	if slices.Contains(AllDialects, s) {
		return s, true
	}
	hint := "want postgres, mysql or sqlite"
	if h := otherDialects[strings.ToLower(s)]; h != "" {
		hint = h
	}
	p.add(n.Line, "%s: no dialect %q (%s)", what, s, hint)
	return "", false
}

func (p *parser) dialectList(n *yaml.Node) []string {
	if n == nil {
		return AllDialects
	}
	var out []string
	for _, item := range p.list(n, "dialects") {
		d, ok := p.dialect(item, "dialects")
		switch {
		case !ok:
		case slices.Contains(out, d):
			p.add(item.Line, "dialects: %s listed twice", d)
		default:
			out = append(out, d)
		}
	}
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.add(n.Line, "dialects: empty (list postgres, mysql or sqlite, or leave it out for all three)")
	}
	if len(out) == 0 {
		return AllDialects
	}
	// In AllDialects order, whatever the file's.
	slices.SortFunc(out, func(a, b string) int { return slices.Index(AllDialects, a) - slices.Index(AllDialects, b) })
	return out
}

// tableRE is a table's name: an existing table may be qualified by its
// schema (sales.orders).
var tableRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?$`)

func (p *parser) tables(n *yaml.Node) []Table {
	var out []Table
	seen := map[string]int{}
	indexes := map[string]int{}
	for _, item := range p.listMax(n, "tables", maxTables) {
		t := p.table(item, indexes)
		if t.Name == "" {
			continue
		}
		if line, ok := seen[strings.ToLower(t.Name)]; ok {
			p.add(t.Line, "table %s declared twice (first at line %d)", t.Name, line)
			continue
		}
		seen[strings.ToLower(t.Name)] = t.Line
		out = append(out, t)
	}
	if n != nil && (isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		p.add(n.Line, "tables: empty (declare the tables the statements use)")
	}
	return out
}

// table reads one table; indexes holds the index names seen so far (one
// namespace per database).
func (p *parser) table(n *yaml.Node, indexes map[string]int) Table {
	f := p.fields(n, "table", "name", "existing", "rows", "columns", "primary_key", "indexes")
	t := Table{Line: n.Line}
	if f["name"] == nil {
		p.add(n.Line, "table: name missing")
		return t
	}
	if name, ok := p.scalar(f["name"], "table name"); ok {
		if !tableRE.MatchString(name) {
			p.add(f["name"].Line, "table name %q: want a letter or _ then letters, digits or _ (schema.table for an existing one)", name)
		} else if w := sqltext.ReservedPart(name); w != "" {
			p.add(f["name"].Line, "table name %q: %s is a reserved word of SQL, and rightsize's own statements (create, load, count, sample) name tables unquoted: choose another name", name, w)
		}
		t.Name = name
	}
	what := "table " + t.Name
	t.Existing = p.boolean(f["existing"], what+": existing")
	if t.Existing {
		for _, k := range []string{"rows", "columns", "primary_key", "indexes"} {
			if v := f[k]; v != nil {
				p.add(p.keyLine(v), "%s is existing: it may not declare %s (rightsize never creates, loads or changes it)", what, k)
			}
		}
		return t
	}
	if strings.Contains(t.Name, ".") {
		p.add(f["name"].Line, "%s: a table rightsize creates is named without a schema (it is created in the target's)", what)
	}
	if f["rows"] == nil {
		p.add(n.Line, "%s: rows missing (how many rows prepare loads; existing: true for a table rightsize must not create)", what)
	} else if r, ok := p.integer(f["rows"], what+": rows"); ok {
		if r < 0 || r > maxRows {
			p.add(f["rows"].Line, "%s: rows %d: want 0 to %d", what, r, int64(maxRows))
		}
		t.Rows = r
	}
	t.Columns = p.columns(f["columns"], n.Line, what, t.Rows != 0)
	t.PrimaryKey = p.columnList(f["primary_key"], &t, what+": primary_key")
	for _, item := range p.listMax(f["indexes"], what+": indexes", maxIndexes) {
		ix := p.index(item, &t, what)
		if ix.Name == "" {
			continue
		}
		if line, ok := indexes[strings.ToLower(ix.Name)]; ok {
			p.add(ix.Line, "%s: index %s declared twice (first at line %d; index names are one namespace)", what, ix.Name, line)
			continue
		}
		indexes[strings.ToLower(ix.Name)] = ix.Line
		t.Indexes = append(t.Indexes, ix)
	}
	p.checkKeys(&t)
	return t
}

// maxRows bounds a created table's rows.
const maxRows = 1e12

// columns reads a created table's columns; needGen: the table has rows to
// load, so each column that is not nullable needs a generator (a table of
// 0 rows, which the transactions fill, needs none).
func (p *parser) columns(n *yaml.Node, line int, what string, needGen bool) []Column {
	if n == nil {
		p.add(line, "%s: columns missing", what)
		return nil
	}
	var out []Column
	seen := map[string]int{}
	for _, item := range p.listMax(n, what+": columns", maxColumns) {
		c := p.column(item, what, needGen)
		if c.Name == "" {
			continue
		}
		if first, ok := seen[strings.ToLower(c.Name)]; ok {
			p.add(c.Line, "%s: column %s declared twice (first at line %d)", what, c.Name, first)
			continue
		}
		seen[strings.ToLower(c.Name)] = c.Line
		out = append(out, c)
	}
	if isNull(n) || n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.add(n.Line, "%s: columns empty", what)
	}
	return out
}

func (p *parser) column(n *yaml.Node, table string, needGen bool) Column {
	f := p.fields(n, table+": column", "name", "type", "null", "gen")
	c := Column{Line: n.Line}
	if f["name"] == nil {
		p.add(n.Line, "%s: column name missing", table)
		return c
	}
	c.Name = p.sqlName(f["name"], table+": column")
	what := table + ", column " + c.Name
	c.Null = p.boolean(f["null"], what+": null")
	switch t := f["type"]; {
	case t == nil:
		p.add(n.Line, "%s: type missing (an SQL type, or one per dialect)", what)
	case t.Kind == yaml.MappingNode:
		c.Types = p.columnTypes(t, what)
	default:
		if s, ok := p.scalar(t, what+": type"); ok {
			c.Type = s
			if !portableRE.MatchString(s) {
				p.add(t.Line, "%s: type %q is not one rightsize knows on every dialect (%s); give it per dialect: {postgres: ..., mysql: ..., sqlite: ...}", what, s, portableList)
			}
		}
	}
	if g := f["gen"]; g != nil {
		prm := p.param(g, what+": gen", true)
		c.Gen = &prm
	} else if !c.Null && needGen {
		p.add(n.Line, "%s: gen missing (how prepare fills the column), or null: true to load NULL", what)
	}
	return c
}

// portableRE are the column types whose spelling every dialect accepts
// with the same meaning.
var portableRE = regexp.MustCompile(`(?i)^(smallint|int|integer|bigint|real|double precision|boolean|date|timestamp|text|(var)?char\([1-9][0-9]{0,4}\)|(decimal|numeric)\([1-9][0-9]?(, ?[0-9][0-9]?)?\))$`)

const portableList = "smallint, int, integer, bigint, real, double precision, boolean, date, timestamp, text, varchar(n), char(n), decimal(p,s), numeric(p,s)"

// typeRE is a column type given for one dialect: SQL words, not
// statements.
var typeRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ,()]{0,99}$`)

func (p *parser) columnTypes(n *yaml.Node, what string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		d, ok := p.dialect(k, what+": type")
		if !ok {
			continue
		}
		if _, dup := out[d]; dup {
			p.add(k.Line, "%s: type for %s given twice", what, d)
			continue
		}
		if s, ok := p.scalar(v, what+": type for "+d); ok {
			if !typeRE.MatchString(s) {
				p.add(v.Line, "%s: type for %s %q: want SQL type words (letters, digits, spaces, commas, parentheses)", what, d, s)
			}
			out[d] = s
		}
	}
	for _, d := range p.dialects {
		if _, ok := out[d]; !ok {
			p.add(n.Line, "%s: no type for %s (the file runs on %s)", what, d, strings.Join(p.dialects, ", "))
		}
	}
	return out
}

// columnList reads a list of t's column names.
func (p *parser) columnList(n *yaml.Node, t *Table, what string) []string {
	cols := map[string]bool{}
	for _, c := range t.Columns {
		cols[strings.ToLower(c.Name)] = true
	}
	var out []string
	listed := map[string]bool{}
	for _, item := range p.listMax(n, what, maxColumns) {
		s, ok := p.scalar(item, what)
		if !ok {
			continue
		}
		switch l := strings.ToLower(s); {
		case !cols[l]:
			p.add(item.Line, "%s: no column %s in table %s", what, s, t.Name)
		case listed[l]:
			p.add(item.Line, "%s: column %s listed twice", what, s)
		default:
			listed[l] = true
			out = append(out, s)
		}
	}
	if n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
		p.add(n.Line, "%s: empty", what)
	}
	return out
}

func (p *parser) index(n *yaml.Node, t *Table, table string) Index {
	f := p.fields(n, table+": index", "name", "columns", "unique")
	ix := Index{Line: n.Line}
	if f["name"] == nil {
		p.add(n.Line, "%s: index name missing", table)
	} else {
		ix.Name = p.sqlName(f["name"], table+": index")
	}
	what := table + ", index " + ix.Name
	if f["columns"] == nil {
		p.add(n.Line, "%s: columns missing", what)
	}
	ix.Columns = p.columnList(f["columns"], t, what+": columns")
	ix.Unique = p.boolean(f["unique"], what+": unique")
	return ix
}

// checkKeys warns of keys that will not load or index as meant.
func (p *parser) checkKeys(t *Table) {
	cols := map[string]*Column{}
	for i := range t.Columns {
		cols[strings.ToLower(t.Columns[i].Name)] = &t.Columns[i]
	}
	col := func(name string) *Column { return cols[strings.ToLower(name)] }
	if len(t.PrimaryKey) == 1 {
		if c := col(t.PrimaryKey[0]); c != nil && c.Gen != nil && c.Gen.Kind != Seq {
			p.warn(c.Line, "table %s: primary key %s is drawn (%s), not numbered: duplicate values fail the load (type: seq numbers rows)", t.Name, c.Name, c.Gen.Kind)
		}
	}
	if !slices.Contains(p.dialects, MySQL) {
		return
	}
	keyed := slices.Clone(t.PrimaryKey)
	for _, ix := range t.Indexes {
		keyed = append(keyed, ix.Columns...)
	}
	seen := map[*Column]bool{}
	for _, k := range keyed {
		if c := col(k); c != nil && !seen[c] && strings.EqualFold(c.TypeFor(MySQL), "text") {
			seen[c] = true
			p.add(c.Line, "table %s: column %s is text and a key: MySQL indexes text only by a prefix; use varchar(n)", t.Name, c.Name)
		}
	}
}

// maxBaselineRate bounds baseline_rate: a billion transactions per second
// per instance is past any server, and a number past it is a typo.
const maxBaselineRate = 1e9
