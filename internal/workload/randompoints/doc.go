// Package randompoints is sysbench's select_random_points: SELECTs of the
// rows whose secondary key k is in a list of random values, over one sbtest
// table.
//
// It is also the smallest example of a database workload: it declares its
// table (tables.Set) and its row source, and gets prepare, resume after an
// interruption, ownership records, refusal of foreign tables, the match
// before a run and cleanup from workload/tables; one line in workload/all
// registers it.
package randompoints
