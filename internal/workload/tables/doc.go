// Package tables creates, loads, resumes, records, matches, grows and
// cleans up the tables a database workload declares, so that each workload
// says only what its tables are and how their rows are made.
//
// A workload declares a Set (its tables: the CREATE TABLE a dialect gets,
// the loaded columns, the secondary indexes, the column a unit of the load
// is deleted by) and, for one prepare, a Work: what to keep of what was
// found, and the units of the load, each a batched row source per table.
// Prepare then runs the one routine every database workload shares: survey
// the tables, refuse those rightsize did not create (unless --force), record
// each table in rightsize_objects before touching it, create, load the units
// in parallel through the dialect's bulk path (COPY, LOAD DATA, batches),
// index a table once its rows are complete, analyze, and record it loaded.
// An interrupted prepare resumes: a unit's partial rows are deleted and the
// unit loaded again. Cleanup drops what the records say rightsize made;
// Survey and Match read the records back for a run.
//
// It is its own package, beside dbtarget (a database target and an opened
// instance) and objects (the rightsize_objects records), because it is the
// lifecycle built on both: dbtarget stays what every database workload
// opens, objects the record format, and this the one place that decides
// what prepare and cleanup do to a table.
package tables
