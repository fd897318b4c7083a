// Package oltp implements sysbench 1.0's OLTP workloads (oltp_read_write,
// oltp_read_only, oltp_write_only, oltp_point_select, oltp_update_index,
// oltp_update_non_index, oltp_insert, oltp_delete) with sysbench's names,
// options, defaults, schema and statements, so that figures measured with
// rightsize compare with published sysbench figures.
//
// The statements and their order follow sysbench's src/lua/oltp_common.lua and
// oltp_*.lua; tables are sbtest1..N with a secondary index k_N created after
// the load. The workload never names a database: everything that differs
// (auto-increment key, table options, bulk load, error codes, how a writing
// transaction starts) comes from the dialect.
//
// Unlike sysbench, prepare records what it created in a rightsize_objects
// table in the target database, so that prepare never overwrites tables it
// did not create (unless forced), can be restarted after an interruption, and
// cleanup drops only what prepare made. Tables made by sysbench itself are
// still runnable: run only checks that the tables exist.
package oltp
