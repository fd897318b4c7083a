package workfile

import "strings"

// CreateSQL returns the CREATE TABLE statement of a created table on
// dialect: its columns in order (NOT NULL unless Null), then its primary
// key; tableOptions is appended after the closing parenthesis (the
// dialect's table options, such as " ENGINE=InnoDB"). Indexes come later
// (IndexSQL), once the rows are loaded.
func (t *Table) CreateSQL(dialect, tableOptions string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.Name)
	b.WriteString(" (")
	for i := range t.Columns {
		c := &t.Columns[i]
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		b.WriteString(c.Name)
		b.WriteByte(' ')
		b.WriteString(c.TypeFor(dialect))
		if !c.Null {
			b.WriteString(" NOT NULL")
		}
	}
	if len(t.PrimaryKey) > 0 {
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(strings.Join(t.PrimaryKey, ", "))
		b.WriteString(")")
	}
	b.WriteString("\n)")
	b.WriteString(tableOptions)
	return b.String()
}

// IndexSQL returns the CREATE INDEX statements of a created table's
// secondary indexes, in order.
func (t *Table) IndexSQL() []string {
	out := make([]string, len(t.Indexes))
	for i, ix := range t.Indexes {
		unique := ""
		if ix.Unique {
			unique = "UNIQUE "
		}
		out[i] = "CREATE " + unique + "INDEX " + ix.Name + " ON " + t.Name + " (" + strings.Join(ix.Columns, ", ") + ")"
	}
	return out
}

// ColumnNames returns the names of a created table's columns, in the
// order Rows.Row yields their values.
func (t *Table) ColumnNames() []string {
	out := make([]string, len(t.Columns))
	for i := range t.Columns {
		out[i] = t.Columns[i].Name
	}
	return out
}
