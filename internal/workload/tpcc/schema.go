package tpcc

import (
	"strings"

	"github.com/rightsize/rightsize/internal/dialect"
)

// Cardinalities of clause 1.2 and 4.3.
const (
	items                 = 100000 // item rows (fixed)
	stockPerWarehouse     = 100000 // = items
	districtsPerWarehouse = 10
	customersPerDistrict  = 3000
	ordersPerDistrict     = 3000
	// newOrdersPerDistrict: orders 2101..3000 are undelivered at load.
	newOrdersPerDistrict = 900
	firstNewOrder        = ordersPerDistrict - newOrdersPerDistrict + 1 // 2101
	// unusedItem is the item id New-Order uses to force its 1 % rollback.
	unusedItem = items + 1
)

// table is one TPC-C table: its standard name, its columns (in load order)
// with their types, its primary key and its secondary indexes. The types are
// portable: every TIMESTAMP is declared NULL DEFAULT NULL so that no MySQL
// mode turns it into an auto-updated column.
type table struct {
	name    string
	cols    []column
	pk      []string
	indexes []index
}

type column struct{ name, typ string }

type index struct {
	name string
	cols []string
}

const ts = "TIMESTAMP NULL DEFAULT NULL"

// schema lists the nine tables in the order prepare creates them.
var schema = []table{
	{name: "warehouse", cols: []column{
		{"w_id", "INTEGER NOT NULL"}, {"w_name", "VARCHAR(10)"}, {"w_street_1", "VARCHAR(20)"}, {"w_street_2", "VARCHAR(20)"},
		{"w_city", "VARCHAR(20)"}, {"w_state", "CHAR(2)"}, {"w_zip", "CHAR(9)"}, {"w_tax", "DECIMAL(4,4)"}, {"w_ytd", "DECIMAL(12,2)"},
	}, pk: []string{"w_id"}},
	{name: "district", cols: []column{
		{"d_id", "INTEGER NOT NULL"}, {"d_w_id", "INTEGER NOT NULL"}, {"d_name", "VARCHAR(10)"}, {"d_street_1", "VARCHAR(20)"},
		{"d_street_2", "VARCHAR(20)"}, {"d_city", "VARCHAR(20)"}, {"d_state", "CHAR(2)"}, {"d_zip", "CHAR(9)"},
		{"d_tax", "DECIMAL(4,4)"}, {"d_ytd", "DECIMAL(12,2)"}, {"d_next_o_id", "INTEGER"},
	}, pk: []string{"d_w_id", "d_id"}},
	{name: "customer", cols: []column{
		{"c_id", "INTEGER NOT NULL"}, {"c_d_id", "INTEGER NOT NULL"}, {"c_w_id", "INTEGER NOT NULL"},
		{"c_first", "VARCHAR(16)"}, {"c_middle", "CHAR(2)"}, {"c_last", "VARCHAR(16)"},
		{"c_street_1", "VARCHAR(20)"}, {"c_street_2", "VARCHAR(20)"}, {"c_city", "VARCHAR(20)"}, {"c_state", "CHAR(2)"},
		{"c_zip", "CHAR(9)"}, {"c_phone", "CHAR(16)"}, {"c_since", ts}, {"c_credit", "CHAR(2)"},
		{"c_credit_lim", "DECIMAL(12,2)"}, {"c_discount", "DECIMAL(4,4)"}, {"c_balance", "DECIMAL(12,2)"},
		{"c_ytd_payment", "DECIMAL(12,2)"}, {"c_payment_cnt", "INTEGER"}, {"c_delivery_cnt", "INTEGER"}, {"c_data", "VARCHAR(500)"},
	}, pk: []string{"c_w_id", "c_d_id", "c_id"},
		// Payment and Order-Status select customers by last name, ordered by first name.
		indexes: []index{{"idx_customer", []string{"c_w_id", "c_d_id", "c_last", "c_first"}}}},
	{name: "history", cols: []column{
		{"h_c_id", "INTEGER"}, {"h_c_d_id", "INTEGER"}, {"h_c_w_id", "INTEGER"}, {"h_d_id", "INTEGER"}, {"h_w_id", "INTEGER"},
		{"h_date", ts}, {"h_amount", "DECIMAL(6,2)"}, {"h_data", "VARCHAR(24)"},
	}},
	{name: "new_order", cols: []column{
		{"no_o_id", "INTEGER NOT NULL"}, {"no_d_id", "INTEGER NOT NULL"}, {"no_w_id", "INTEGER NOT NULL"},
	}, pk: []string{"no_w_id", "no_d_id", "no_o_id"}},
	{name: "orders", cols: []column{
		{"o_id", "INTEGER NOT NULL"}, {"o_d_id", "INTEGER NOT NULL"}, {"o_w_id", "INTEGER NOT NULL"}, {"o_c_id", "INTEGER"},
		{"o_entry_d", ts}, {"o_carrier_id", "INTEGER"}, {"o_ol_cnt", "INTEGER"}, {"o_all_local", "INTEGER"},
	}, pk: []string{"o_w_id", "o_d_id", "o_id"},
		// Order-Status finds a customer's last order.
		indexes: []index{{"idx_orders", []string{"o_w_id", "o_d_id", "o_c_id", "o_id"}}}},
	{name: "order_line", cols: []column{
		{"ol_o_id", "INTEGER NOT NULL"}, {"ol_d_id", "INTEGER NOT NULL"}, {"ol_w_id", "INTEGER NOT NULL"}, {"ol_number", "INTEGER NOT NULL"},
		{"ol_i_id", "INTEGER"}, {"ol_supply_w_id", "INTEGER"}, {"ol_delivery_d", ts}, {"ol_quantity", "INTEGER"},
		{"ol_amount", "DECIMAL(6,2)"}, {"ol_dist_info", "CHAR(24)"},
	}, pk: []string{"ol_w_id", "ol_d_id", "ol_o_id", "ol_number"}},
	{name: "item", cols: []column{
		{"i_id", "INTEGER NOT NULL"}, {"i_im_id", "INTEGER"}, {"i_name", "VARCHAR(24)"}, {"i_price", "DECIMAL(5,2)"}, {"i_data", "VARCHAR(50)"},
	}, pk: []string{"i_id"}},
	{name: "stock", cols: []column{
		{"s_i_id", "INTEGER NOT NULL"}, {"s_w_id", "INTEGER NOT NULL"}, {"s_quantity", "INTEGER"},
		{"s_dist_01", "CHAR(24)"}, {"s_dist_02", "CHAR(24)"}, {"s_dist_03", "CHAR(24)"}, {"s_dist_04", "CHAR(24)"}, {"s_dist_05", "CHAR(24)"},
		{"s_dist_06", "CHAR(24)"}, {"s_dist_07", "CHAR(24)"}, {"s_dist_08", "CHAR(24)"}, {"s_dist_09", "CHAR(24)"}, {"s_dist_10", "CHAR(24)"},
		{"s_ytd", "INTEGER"}, {"s_order_cnt", "INTEGER"}, {"s_remote_cnt", "INTEGER"}, {"s_data", "VARCHAR(50)"},
	}, pk: []string{"s_w_id", "s_i_id"}},
}

// tableByName returns the table called name.
func tableByName(name string) *table {
	for i := range schema {
		if schema[i].name == name {
			return &schema[i]
		}
	}
	return nil
}

// columns returns the table's column names in load order.
func (t *table) columns() []string {
	out := make([]string, len(t.cols))
	for i, c := range t.cols {
		out[i] = c.name
	}
	return out
}

// createSQL is the table's CREATE TABLE with its primary key.
func (t *table) createSQL(d dialect.Dialect) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(t.name)
	b.WriteString(" (\n")
	for i, c := range t.cols {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.WriteString(c.name)
		b.WriteString(" ")
		b.WriteString(c.typ)
	}
	if len(t.pk) > 0 {
		b.WriteString(",\n  PRIMARY KEY (")
		b.WriteString(strings.Join(t.pk, ", "))
		b.WriteString(")")
	}
	b.WriteString("\n)")
	b.WriteString(d.TableOptions())
	return b.String()
}

// indexSQL returns the CREATE INDEX statements of the table's secondary
// indexes, run after its load.
func (t *table) indexSQL() []string {
	var out []string
	for _, ix := range t.indexes {
		out = append(out, "CREATE INDEX "+ix.name+" ON "+t.name+" ("+strings.Join(ix.cols, ", ")+")")
	}
	return out
}

// tableIndex returns the index in schema of the table called name.
func tableIndex(name string) int {
	for i := range schema {
		if schema[i].name == name {
			return i
		}
	}
	panic("tpcc: no table " + name)
}
